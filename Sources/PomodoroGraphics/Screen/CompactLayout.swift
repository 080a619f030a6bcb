import PomodoroCore

/// The 128 x 32 layout: the icon and the big time fill rows 0-27 with a narrow column on the
/// right: the start/pause button's action on top ("Pause"), below it the cycle ("1/4") or the
/// mode ("Short"), with a cancel mark (a small x) after either where it fits while a timer
/// exists. The icon makes way when the action does not fit beside the time ("Resume"). A thin
/// progress bar runs along rows 29-31. Ringing gives the title its own line instead.
enum CompactLayout {
  static let width = 128

  static func draw(_ m: ScreenModel) -> Framebuffer {
    var texts: [PlacedText] = []
    return draw(m, texts: &texts)
  }

  /// Draws `m`, adding every text drawn (and where) to `texts`.
  static func draw(_ m: ScreenModel, texts: inout [PlacedText]) -> Framebuffer {
    var fb = Framebuffer(width: width, height: 32)
    if m.phase == .ringing {
      drawRinging(m, into: &fb, texts: &texts)
      return fb
    }
    let textWidth = Font.bigDigits.width(m.timeText)
    let action = m.startLabel
    let second = m.cycleText ?? m.label
    var icon = ScreenParts.iconBitmap(m.icon)
    // The icon makes way for the action when that makes it fit, and for a time that needs the width.
    let actionRoom = width - textWidth - 3 - Font.small.width(action)
    if let i = icon, i.width + 3 > actionRoom, actionRoom >= 0 || i.width + 3 + textWidth > width { icon = nil }
    var x = 0
    if let icon {
      fb.blit(icon, x: 0, y: 6)
      x = icon.width + 3
    }
    ScreenParts.text(m.timeText, font: .bigDigits, x: x, y: 0, into: &fb, texts: &texts)
    let column = x + textWidth + 3
    let room = width - column
    var lines: [(text: String, y: Int)] = []
    if Font.small.width(action) <= room { lines.append((action, 2)) }
    if Font.small.width(second) <= room { lines.append((second, 14)) }
    var markPlaced = !m.canCancel
    for line in lines {
      let end = column + ScreenParts.text(line.text, x: column, y: line.y, into: &fb, texts: &texts)
      if !markPlaced, end + 2 + cancelMark.width <= width {
        fb.blit(cancelMark, x: width - cancelMark.width, y: line.y + 1)
        texts.append(
          PlacedText(
            text: "(cancel)", x: width - cancelMark.width, y: line.y + 1, width: cancelMark.width,
            height: cancelMark.height))
        markPlaced = true
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

  /// Cancel does something now: a small x at the right of the column.
  static let cancelMark = Bitmap(rows: ["#...#", ".#.#.", "..#..", ".#.#.", "#...#"])

  static func drawRinging(_ m: ScreenModel, into fb: inout Framebuffer, texts: inout [PlacedText]) {
    let title = Font.small.truncated(m.title, toWidth: width - 4)
    if m.flashOn { fb.fillRoundedRect(x: 0, y: 0, width: width, height: 11, radius: 3) }
    ScreenParts.text(
      title, x: (width - Font.small.width(title)) / 2, y: 1, mode: m.flashOn ? .clear : .or, into: &fb,
      texts: &texts)
    if let bell = ScreenParts.iconBitmap(m.icon) { fb.blit(bell, x: 8, y: 14) }
    var x = 30 + ScreenParts.pill(m.startLabel, x: 30, y: 16, into: &fb, texts: &texts)
    if let hint = m.knobHint, x + 4 + Font.small.width(hint) <= width {
      x += 4 + ScreenParts.text(hint, x: x + 4, y: 18, into: &fb, texts: &texts)
    }
  }
}
