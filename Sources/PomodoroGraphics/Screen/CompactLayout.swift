import PomodoroCore

/// The 128 x 32 layout: the icon and the big time fill rows 0-27 with a narrow column on the
/// right for the mode and the cycle; a thin progress bar runs along rows 29-31. Ringing gives
/// the title its own line instead.
enum CompactLayout {
  static let width = 128

  static func draw(_ m: ScreenModel) -> Framebuffer {
    var fb = Framebuffer(width: width, height: 32)
    if m.phase == .ringing {
      drawRinging(m, into: &fb)
      return fb
    }
    let textWidth = Font.bigDigits.width(m.timeText)
    var icon = ScreenParts.iconBitmap(m.icon)
    if let i = icon, i.width + 3 + textWidth > width { icon = nil }
    var x = 0
    if let icon {
      fb.blit(icon, x: 0, y: 6)
      x = icon.width + 3
    }
    fb.draw(m.timeText, font: .bigDigits, x: x, y: 0)
    let column = x + textWidth + 3
    if width - column >= 20 {
      let top = m.phase == .paused ? "Pause" : m.label  // no room for the restored note here
      fb.draw(Font.small.truncated(top, toWidth: width - column), font: .small, x: column, y: 2)
      if let cycle = m.cycleText {
        fb.draw(cycle, font: .small, x: column, y: 14)
      } else if m.dots > 0 {
        ScreenParts.dots(m.dots, right: width, y: 15, width: width - column, into: &fb)
      }
    }
    // Thin bar: the filled part 3 rows high over a dotted track.
    if m.phase == .idle {
      var px = 0
      while px < width {
        fb.setPixel(px, 30)
        px += 3
      }
    } else {
      let filled = ScreenParts.filledWidth(elapsed: m.elapsed, total: m.total, inner: width)
      fb.fillRect(x: 0, y: 29, width: filled, height: 3)
      var px = filled + 1
      while px < width {
        fb.setPixel(px, 30)
        px += 2
      }
    }
    return fb
  }

  static func drawRinging(_ m: ScreenModel, into fb: inout Framebuffer) {
    let title = Font.small.truncated(m.title, toWidth: width - 4)
    if m.flashOn {
      fb.fillRoundedRect(x: 0, y: 0, width: width, height: 11, radius: 3)
      fb.draw(title, font: .small, centeredAt: width / 2, y: 1, mode: .clear)
    } else {
      fb.draw(title, font: .small, centeredAt: width / 2, y: 1)
    }
    if let bell = ScreenParts.iconBitmap(m.icon) { fb.blit(bell, x: 8, y: 14) }
    fb.draw(m.hint ?? "", font: .small, x: 32, y: 18)
  }
}
