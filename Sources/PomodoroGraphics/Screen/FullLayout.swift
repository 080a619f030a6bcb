import PomodoroCore

/// The 128 x 64 layout. Rows are chosen along the controller's 8-row pages, so that what
/// changes often touches few of them:
/// title rows 0-10 (pages 0-1), time rows 12-39 (pages 1-4), tomato rows 16-31 (pages 2-3),
/// progress bar rows 42-47 (page 5), footer rows 53-63 (pages 6-7).
///
/// The footer says what the controls do now: the start/pause button's action in a lit pill
/// (`[Start]`, `[Pause]`, `[Resume]`, `[Stop]`), cancel in an outlined one while a timer exists,
/// then the knob's hint ("Turn: set  Push: mode") or the RESTORED note. Today's tomatoes sit at
/// the right of the title row when the title leaves room (pomodoro modes), else at the right of
/// the footer when it does.
enum FullLayout {
  static let width = 128
  static let timeY = 12
  static let iconY = 16
  static let barY = 42
  static let footerY = 53

  static func draw(_ m: ScreenModel) -> Framebuffer {
    var texts: [PlacedText] = []
    return draw(m, texts: &texts)
  }

  /// Draws `m`, adding every text drawn (and where) to `texts`.
  static func draw(_ m: ScreenModel, texts: inout [PlacedText]) -> Framebuffer {
    var fb = Framebuffer(width: width, height: 64)
    if let chooser = m.chooser {
      drawChooser(m, chooser, into: &fb, texts: &texts)
      return fb
    }
    let dotsInTitle = drawTitle(m, into: &fb, texts: &texts)
    drawTime(m, into: &fb, texts: &texts)
    drawBar(m, into: &fb)
    drawFooter(m, dots: !dotsInTitle, into: &fb, texts: &texts)
    return fb
  }

  /// The title, centred (in the picker after its profile's name, in an outlined pill at the
  /// left); today's tomatoes at the right when they fit beside it (returns whether).
  static func drawTitle(_ m: ScreenModel, into fb: inout Framebuffer, texts: inout [PlacedText]) -> Bool {
    var start = 0
    if let profile = m.profileName {
      let name = Font.small.truncated(profile, toWidth: profileWidth)
      start = 3 + ScreenParts.pill(name, x: 0, y: 0, filled: false, into: &fb, texts: &texts)
    }
    let title = Font.small.truncated(m.title, toWidth: width - 4 - start)
    let inverted = m.phase == .ringing && m.flashOn
    if inverted { fb.fillRoundedRect(x: 0, y: 0, width: width, height: 11, radius: 3) }
    let left = start + (width - start - Font.small.width(title)) / 2
    ScreenParts.text(title, x: left, y: 1, mode: inverted ? .clear : .or, into: &fb, texts: &texts)
    let room = width - 2 - (left + Font.small.width(title) + 4)
    guard ScreenParts.tallyWidth(m, available: room) != nil else { return false }
    ScreenParts.tally(m, right: width - 2, y: 2, width: room, mode: inverted ? .clear : .or, into: &fb, texts: &texts)
    return true
  }

  /// The icon and the big time, centred together; the icon is left out when both do not fit
  /// (10 hours and more).
  static func drawTime(_ m: ScreenModel, into fb: inout Framebuffer, texts: inout [PlacedText]) {
    // A label takes the row under the title; the time then uses the medium digits below it.
    var font = Font.bigDigits
    var (timeY, iconY) = (Self.timeY, Self.iconY)
    if let label = m.sessionLabel {
      let shown = Font.small.truncated(label, toWidth: width - 4)
      ScreenParts.text(shown, x: (width - Font.small.width(shown)) / 2, y: labelY, into: &fb, texts: &texts)
      (font, timeY, iconY) = (.mediumDigits, labelY + 9, labelY + 11)
    }
    let textWidth = font.width(m.timeText)
    let gap = 6
    var icon = ScreenParts.iconBitmap(m.icon)
    if let i = icon, i.width + gap + textWidth > width { icon = nil }
    let block = (icon.map { $0.width + gap } ?? 0) + textWidth
    var x = (width - block) / 2
    if let icon {
      fb.blit(icon, x: x, y: iconY)
      x += icon.width + gap
    }
    ScreenParts.text(m.timeText, font: font, x: x, y: timeY, into: &fb, texts: &texts)
  }

  /// The most a profile's name takes beside the title (a longer one is cut).
  static let profileWidth = 48

  /// The label's row, under the title (rows 12-20), when there is one.
  static let labelY = 12

  /// The knob's label chooser: the title, three entries with the chosen one lit (the list
  /// scrolls to keep it in sight), and the footer's controls with the knob's hint.
  static func drawChooser(
    _ m: ScreenModel, _ chooser: ScreenModel.Chooser, into fb: inout Framebuffer, texts: inout [PlacedText]
  ) {
    let title = Font.small.truncated(m.title, toWidth: width - 4)
    ScreenParts.text(title, x: (width - Font.small.width(title)) / 2, y: 1, into: &fb, texts: &texts)
    let rows = 3
    let first = max(0, min(chooser.selected - 1, chooser.entries.count - rows))
    for (row, index) in (first..<min(chooser.entries.count, first + rows)).enumerated() {
      let y = 13 + row * 13
      let text = Font.small.truncated(chooser.text(chooser.entries[index]), toWidth: width - 10)
      let lit = index == chooser.selected
      if lit { fb.fillRoundedRect(x: 0, y: y, width: width, height: 11, radius: 3) }
      ScreenParts.text(text, x: 5, y: y + 1, mode: lit ? .clear : .or, into: &fb, texts: &texts)
    }
    drawFooter(m, dots: false, into: &fb, texts: &texts)
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

  /// The controls: start/pause's action, cancel while a timer exists, the knob's hint (or the
  /// RESTORED note) where it fits, and today's tomatoes in what is left when `dots`.
  static func drawFooter(_ m: ScreenModel, dots: Bool, into fb: inout Framebuffer, texts: inout [PlacedText]) {
    var x = ScreenParts.pill(m.startLabel, x: 0, y: footerY, into: &fb, texts: &texts)
    if m.canCancel {
      x += 3 + ScreenParts.pill(m.cancelLabel, x: x + 3, y: footerY, filled: false, into: &fb, texts: &texts)
    }
    let note = m.restored ? "RESTORED" : m.earnedText ?? m.roomText ?? m.knobHint ?? m.interruptionsText
    if let note, x + 4 + Font.small.width(note) <= width {
      x += 4 + ScreenParts.text(note, x: x + 4, y: footerY + 2, into: &fb, texts: &texts)
    }
    if dots { ScreenParts.tally(m, right: width, y: footerY + 2, width: width - x - 6, into: &fb, texts: &texts) }
  }
}
