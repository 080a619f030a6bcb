import PomodoroCore

/// The renderer: one function from the engine's state to the panel's pixels. `shift` moves the
/// whole picture (see `PixelShift`).
public func renderScreen(state: EngineState, now: Instant, height: Int = 64, shift: PixelShift.Offset = .zero)
  -> Framebuffer
{
  renderScreen(ScreenModel(state: state, now: now), height: height, shift: shift)
}

/// Draws `model` on a 128 x `height` panel (64: the full layout, 32: the compact one), the
/// dissolves included, moved by `shift`.
public func renderScreen(_ model: ScreenModel, height: Int = 64, shift: PixelShift.Offset = .zero) -> Framebuffer {
  func draw(_ m: ScreenModel) -> Framebuffer {
    height <= 32 ? CompactLayout.draw(m) : FullLayout.draw(m)
  }
  var picture: Framebuffer
  if let transition = model.transition {
    var still = model
    still.transition = nil
    let level = 2 * transition.step + 1  // of 16: 1, 3, ... 15 new pixels in each 4 x 4 cell
    picture = Dissolve.mix(from: draw(still.leaving(transition.from)), to: draw(still), level: level)
  } else {
    picture = draw(model)
  }
  return shift == .zero ? picture : picture.shifted(dx: shift.dx, dy: shift.dy)
}

extension ScreenModel {
  /// The screen the dissolve starts from: this model's data drawn as phase `from` showed it
  /// (its icon, controls and bar; a ringing screen's 00:00 with its flash off).
  func leaving(_ from: Phase) -> ScreenModel {
    var m = self
    m.phase = from
    m.knobHint = ScreenModel.knobHint(from)
    m.restored = false
    switch from {
    case .idle:
      m.startLabel = "Start"
      m.canCancel = false
      if case .tomato = icon { m.icon = .tomato(frame: 0) }
    case .running:
      m.startLabel = "Pause"
      m.canCancel = true
      if case .tomato = icon { m.icon = .tomato(frame: 0) }
    case .paused:
      m.startLabel = "Resume"
      m.canCancel = true
      m.icon = .pause
    case .ringing:
      m.startLabel = "Stop"
      m.canCancel = false
      m.icon = .bell(frame: 0)
      m.timeText = formatClock(0)
      m.flashOn = false
    }
    return m
  }
}

/// Pieces both layouts draw.
enum ScreenParts {
  /// The icon of `model`; nil for none.
  static func iconBitmap(_ icon: ScreenModel.Icon) -> Bitmap? {
    switch icon {
    case .none: return nil
    case .tomato(let frame): return Icons.tomatoFrames[((frame % 4) + 4) % 4]
    case .egg: return Icons.egg
    case .bell(let frame): return Icons.bellFrames[((frame % 2) + 2) % 2]
    case .pause: return Icons.pause
    }
  }

  /// Filled width of a progress bar `inner` pixels wide: round(elapsed / total x inner), exactly.
  static func filledWidth(elapsed: Int64, total: Int64, inner: Int) -> Int {
    guard total > 0 else { return 0 }
    let e = max(0, min(elapsed, total))
    // Multiply in halves to round to nearest without floating point (no overflow below ~2^55 ns).
    let twice = (e.multipliedFullWidth(by: Int64(inner) * 2))
    let (q, _) = total.dividingFullWidth((twice.high, twice.low))
    return Int((q + 1) / 2)
  }

  /// Draws `text` with its top-left corner at (x, y), notes where, and returns its width.
  @discardableResult
  static func text(
    _ text: String, font: Font = .small, x: Int, y: Int, mode: Framebuffer.BlitMode = .or,
    into fb: inout Framebuffer, texts: inout [PlacedText]
  ) -> Int {
    fb.draw(text, font: font, x: x, y: y, mode: mode)
    let w = font.width(text)
    texts.append(PlacedText(text: text, x: x, y: y, width: w, height: font.height))
    return w
  }

  /// A button's label in a pill 11 rows high at (x, y): lit with the text dark (`filled`), or
  /// outlined with the text lit. Returns its width.
  @discardableResult
  static func pill(
    _ label: String, x: Int, y: Int, filled: Bool = true, into fb: inout Framebuffer, texts: inout [PlacedText]
  ) -> Int {
    let w = Font.small.width(label) + 8
    fb.fillRoundedRect(x: x, y: y, width: w, height: 11, radius: 3)
    if !filled { fb.fillRoundedRect(x: x + 1, y: y + 1, width: w - 2, height: 9, radius: 2, false) }
    text(label, x: x + 4, y: y + 2, mode: filled ? .clear : .or, into: &fb, texts: &texts)
    texts.append(PlacedText(text: "(\(label))", x: x, y: y, width: w, height: 11))
    return w
  }

  /// The width of today's tally in `m`: the goal's `5/8` after a tomato (a tick when met), or
  /// the tomatoes (`dotsWidth`); nil when it does not fit in `available` or there is nothing.
  static func tallyWidth(_ m: ScreenModel, available: Int) -> Int? {
    guard let goal = m.goal else { return m.dots > 0 ? dotsWidth(m.dots, available: available) : nil }
    let w = Icons.dot.width + 2 + Font.small.width(goal.text)
    return w <= available ? w : nil
  }

  /// Today's tally (see `tallyWidth`) right-aligned at `right` in at most `width` pixels.
  static func tally(
    _ m: ScreenModel, right: Int, y: Int, width: Int, mode: Framebuffer.BlitMode = .or, into fb: inout Framebuffer,
    texts: inout [PlacedText]
  ) {
    guard let goal = m.goal else {
      dots(m.dots, right: right, y: y, width: width, mode: mode, into: &fb, texts: &texts)
      return
    }
    guard let w = tallyWidth(m, available: width) else { return }
    let tw = Font.small.width(goal.text)
    text(goal.text, x: right - tw, y: y - 1, mode: mode, into: &fb, texts: &texts)
    fb.blit(goal.met ? Icons.check : Icons.dot, x: right - w, y: y, mode: mode)
    texts.append(
      PlacedText(
        text: goal.met ? "(goal met)" : "(tomato)", x: right - w, y: y, width: Icons.dot.width,
        height: Icons.dot.height))
  }

  /// The width today's `count` tomatoes take: all of them, or one and "xN" when they do not
  /// all fit in `available`; nil when not even that fits.
  static func dotsWidth(_ count: Int, available: Int) -> Int? {
    let all = count * (Icons.dot.width + 2) - 2
    if all <= available { return all }
    let short = Icons.dot.width + 2 + Font.small.width("x\(count)")
    return short <= available ? short : nil
  }

  /// Today's tomatoes right-aligned at `right` in at most `width` pixels (see `dotsWidth`);
  /// nothing when there are none or they do not fit.
  static func dots(
    _ count: Int, right: Int, y: Int, width: Int, mode: Framebuffer.BlitMode = .or, into fb: inout Framebuffer,
    texts: inout [PlacedText]
  ) {
    guard count > 0, let w = dotsWidth(count, available: width) else { return }
    let pitch = Icons.dot.width + 2
    if w == count * pitch - 2 {
      for i in 0..<count { fb.blit(Icons.dot, x: right - (count - i) * pitch + 2, y: y, mode: mode) }
      texts.append(PlacedText(text: "(\(count) tomatoes)", x: right - w, y: y, width: w, height: Icons.dot.height))
    } else {
      let label = "x\(count)"
      let tw = Font.small.width(label)
      text(label, x: right - tw, y: y - 1, mode: mode, into: &fb, texts: &texts)
      fb.blit(Icons.dot, x: right - tw - 2 - Icons.dot.width, y: y, mode: mode)
      texts.append(PlacedText(text: "(tomato)", x: right - w, y: y, width: Icons.dot.width, height: Icons.dot.height))
    }
  }
}

/// A text (or a pill, or tomatoes) a layout drew, and where: the tests check that everything
/// fits on the panel and nothing overlaps.
struct PlacedText: Equatable {
  var text: String
  var x: Int
  var y: Int
  var width: Int
  var height: Int
}
