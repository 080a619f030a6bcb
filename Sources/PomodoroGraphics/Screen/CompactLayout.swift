import PomodoroCore

/// The 128 x 32 layout: the icon and the time fill rows 0-27 with a narrow column on the right:
/// the start/pause button's action on top ("Pause"), below it the cycle ("1/4") or the mode
/// ("Short") and, while a timer exists, the cancel mark (a small x) at the right end of that
/// row, in every phase. The time is in the big digits when the action fits beside them (MM:SS),
/// else in the medium ones (H:MM:SS); the icon makes way when the action does not fit beside
/// the time ("Resume"). A thin progress bar runs along rows 29-31. Ringing gives the title its
/// own line instead.
enum CompactLayout {
  static let width = 128
  /// The column's two rows: the action, then the cycle or mode and the cancel mark.
  static let actionY = 2
  static let secondY = 14

  static func draw(_ m: ScreenModel) -> Framebuffer {
    var texts: [PlacedText] = []
    return draw(m, texts: &texts)
  }

  /// The time's font: the big digits when the action fits beside them, else the medium ones.
  static func timeFont(_ m: ScreenModel) -> Font {
    Font.bigDigits.width(m.timeText) + 3 + Font.small.width(m.startLabel) <= width ? .bigDigits : .mediumDigits
  }

  /// Draws `m`, adding every text drawn (and where) to `texts`.
  static func draw(_ m: ScreenModel, texts: inout [PlacedText]) -> Framebuffer {
    var fb = Framebuffer(width: width, height: 32)
    if let chooser = m.chooser {
      drawChooser(chooser, hint: m.knobHint, into: &fb, texts: &texts)
      return fb
    }
    if m.phase == .ringing {
      drawRinging(m, into: &fb, texts: &texts)
      return fb
    }
    let font = timeFont(m)
    let textWidth = font.width(m.timeText)
    let action = m.startLabel
    var icon = ScreenParts.iconBitmap(m.icon)
    // The icon makes way for the action when that makes it fit, and for a time that needs the width.
    let actionRoom = width - textWidth - 3 - Font.small.width(action)
    if let i = icon, i.width + 3 > actionRoom, actionRoom >= 0 || i.width + 3 + textWidth > width { icon = nil }
    var x = 0
    if let icon {
      fb.blit(icon, x: 0, y: 6)
      x = icon.width + 3
    }
    // Both fonts' digits centred on row 13.5, as the icon is.
    ScreenParts.text(m.timeText, font: font, x: x, y: (28 - font.height) / 2, into: &fb, texts: &texts)
    let column = x + textWidth + 3
    let room = width - column
    if Font.small.width(action) <= room {
      ScreenParts.text(action, x: column, y: actionY, into: &fb, texts: &texts)
    }
    let mark = m.canCancel && cancelMark.width <= room
    let markWidth = mark ? 2 + cancelMark.width : 0
    // A flow's earned break where the mode's name would be: "Brk 5:00", or "5:00" where the
    // word does not fit (beside the spinning tomato).
    var second = m.cycleText ?? m.label
    if let earned = m.earnedBreak.map(formatShortClock) {
      second = Font.small.width("Brk \(earned)") + markWidth <= room ? "Brk \(earned)" : earned
    }
    // The label, where there is one and no earned break to show, cut to the room left.
    if let label = m.sessionLabel, m.earnedBreak == nil {
      second = Font.small.truncated(label, toWidth: room - markWidth)
    } else if let profile = m.profileName, Font.small.width("\(second) \(profile)") + markWidth <= room {
      // The picker's profile after the cycle or mode, where it fits whole.
      second += " \(profile)"
    }
    if Font.small.width(second) + markWidth <= room, !second.isEmpty, second != "..." {
      ScreenParts.text(second, x: column, y: secondY, into: &fb, texts: &texts)
    }
    if mark {
      let markX = width - cancelMark.width
      fb.blit(cancelMark, x: markX, y: secondY + 1)
      texts.append(
        PlacedText(
          text: "(\(m.cancelLabel.lowercased()))", x: markX, y: secondY + 1, width: cancelMark.width,
          height: cancelMark.height))
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

  /// The knob's label chooser: two entries in list order, the chosen one lit (on top, but at
  /// the end of the list, under the one before it), and the knob's hint on the bottom row.
  static func drawChooser(
    _ chooser: ScreenModel.Chooser, hint: String?, into fb: inout Framebuffer, texts: inout [PlacedText]
  ) {
    let first = max(0, min(chooser.selected, chooser.entries.count - 2))
    for (row, index) in (first..<min(chooser.entries.count, first + 2)).enumerated() {
      let y = row * 11
      let lit = index == chooser.selected
      let text = Font.small.truncated(chooser.text(chooser.entries[index]), toWidth: width - 10)
      if lit { fb.fillRoundedRect(x: 0, y: y, width: width, height: 11, radius: 3) }
      ScreenParts.text(text, x: 5, y: y + 1, mode: lit ? .clear : .or, into: &fb, texts: &texts)
    }
    if let hint, Font.small.width(hint) <= width {
      ScreenParts.text(hint, x: (width - Font.small.width(hint)) / 2, y: 23, into: &fb, texts: &texts)
    }
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
    if let hint = m.roomText ?? m.knobHint, x + 4 + Font.small.width(hint) <= width {
      x += 4 + ScreenParts.text(hint, x: x + 4, y: 18, into: &fb, texts: &texts)
    }
  }
}
