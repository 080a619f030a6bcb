import PomodoroCore

/// The renderer: one function from the engine's state to the panel's pixels.
public func renderScreen(state: EngineState, now: Instant, height: Int = 64) -> Framebuffer {
  renderScreen(ScreenModel(state: state, now: now), height: height)
}

/// Draws `model` on a 128 x `height` panel (64: the full layout, 32: the compact one), the
/// idle <-> running dissolve included.
public func renderScreen(_ model: ScreenModel, height: Int = 64) -> Framebuffer {
  func draw(_ m: ScreenModel) -> Framebuffer {
    height <= 32 ? CompactLayout.draw(m) : FullLayout.draw(m)
  }
  guard let transition = model.transition else { return draw(model) }
  var still = model
  still.transition = nil
  var before = still
  before.phase = transition.from
  if transition.from == .idle { before.hint = ScreenModel.idleHint }
  if transition.from == .running { before.hint = ScreenModel.runningHint }
  if case .tomato = model.icon { before.icon = .tomato(frame: 0) }
  let level = 2 * transition.step + 1  // of 16: 1, 3, ... 15 new pixels in each 4 x 4 cell
  return Dissolve.mix(from: draw(before), to: draw(still), level: level)
}

extension ScreenModel {
  static let idleHint = "Turn: set  Push: mode"
  static let runningHint = "Start: pause"
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

  /// An inverted pill with `text` in capitals, at (x, y), 11 rows high; returns its width.
  @discardableResult
  static func pill(_ text: String, x: Int, y: Int, into fb: inout Framebuffer) -> Int {
    let w = Font.small.width(text) + 8
    fb.fillRoundedRect(x: x, y: y, width: w, height: 11, radius: 3)
    fb.draw(text, font: .small, x: x + 4, y: y + 2, mode: .clear)
    return w
  }

  /// Up to as many tomato dots as fit in `width`, right-aligned at `right`; "x N" after one dot
  /// when they do not all fit.
  static func dots(_ count: Int, right: Int, y: Int, width: Int, into fb: inout Framebuffer) {
    guard count > 0 else { return }
    let pitch = Icons.dot.width + 2
    if count * pitch - 2 <= width {
      for i in 0..<count { fb.blit(Icons.dot, x: right - (count - i) * pitch + 2, y: y) }
    } else {
      let text = "x\(count)"
      let tw = Font.small.width(text)
      fb.draw(text, font: .small, x: right - tw, y: y - 1)
      fb.blit(Icons.dot, x: right - tw - 2 - Icons.dot.width, y: y)
    }
  }
}
