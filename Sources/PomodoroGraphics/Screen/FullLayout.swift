import PomodoroCore

/// The 128 x 64 layout. Rows are chosen along the controller's 8-row pages, so that what
/// changes often touches few of them:
/// title rows 0-10 (pages 0-1), time rows 12-39 (pages 1-4), tomato rows 16-31 (pages 2-3),
/// progress bar rows 42-47 (page 5), footer rows 53-63 (pages 6-7).
enum FullLayout {
  static let width = 128
  static let timeY = 12
  static let iconY = 16
  static let barY = 42
  static let footerY = 53

  static func draw(_ m: ScreenModel) -> Framebuffer {
    var fb = Framebuffer(width: width, height: 64)
    drawTitle(m, into: &fb)
    drawTime(m, into: &fb)
    drawBar(m, into: &fb)
    drawFooter(m, into: &fb)
    return fb
  }

  static func drawTitle(_ m: ScreenModel, into fb: inout Framebuffer) {
    let title = Font.small.truncated(m.title, toWidth: width - 4)
    if m.phase == .ringing && m.flashOn {
      fb.fillRoundedRect(x: 0, y: 0, width: width, height: 11, radius: 3)
      fb.draw(title, font: .small, centeredAt: width / 2, y: 1, mode: .clear)
    } else {
      fb.draw(title, font: .small, centeredAt: width / 2, y: 1)
    }
  }

  /// The icon and the big time, centred together; the icon is left out when both do not fit
  /// (10 hours and more).
  static func drawTime(_ m: ScreenModel, into fb: inout Framebuffer) {
    let textWidth = Font.bigDigits.width(m.timeText)
    let gap = 6
    var icon = ScreenParts.iconBitmap(m.icon)
    if let i = icon, i.width + gap + textWidth > width { icon = nil }
    let block = (icon.map { $0.width + gap } ?? 0) + textWidth
    var x = (width - block) / 2
    if let icon {
      fb.blit(icon, x: x, y: iconY)
      x += icon.width + gap
    }
    fb.draw(m.timeText, font: .bigDigits, x: x, y: timeY)
  }

  /// The progress bar: a rounded outline and an inner fill of round(elapsed / total x 116)
  /// pixels. Idle shows the empty track dotted.
  static func drawBar(_ m: ScreenModel, into fb: inout Framebuffer) {
    let x = 4
    let w = width - 8
    if m.phase == .idle || m.phase == .ringing {
      var px = x + 1
      while px < x + w - 1 {
        fb.setPixel(px, barY + 3)
        px += 3
      }
      return
    }
    // Outline with its corners cut.
    fb.fillRect(x: x + 1, y: barY, width: w - 2, height: 1)
    fb.fillRect(x: x + 1, y: barY + 5, width: w - 2, height: 1)
    fb.fillRect(x: x, y: barY + 1, width: 1, height: 4)
    fb.fillRect(x: x + w - 1, y: barY + 1, width: 1, height: 4)
    let inner = w - 4
    let filled = ScreenParts.filledWidth(elapsed: m.elapsed, total: m.total, inner: inner)
    fb.fillRect(x: x + 2, y: barY + 2, width: filled, height: 2)
  }

  /// Hint or badge on the left, today's tomatoes on the right.
  static func drawFooter(_ m: ScreenModel, into fb: inout Framebuffer) {
    var left = 0
    if m.restored {
      left = ScreenParts.pill("RESTORED", x: 0, y: footerY, into: &fb)
    } else if m.phase == .paused {
      left = ScreenParts.pill("PAUSED", x: 0, y: footerY, into: &fb)
    } else if let hint = m.hint {
      left = fb.draw(hint, font: .small, x: 2, y: footerY + 1)
    }
    ScreenParts.dots(m.dots, right: width, y: footerY + 2, width: width - left - 6, into: &fb)
  }
}
