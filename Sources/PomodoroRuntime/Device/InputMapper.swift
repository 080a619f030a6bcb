import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// Turns line edges into engine events: the quadrature decoder for the encoder, a debouncer
/// per button. A click (press and release under the long-press time) is a `.press`, acted on
/// at the release; holding reports `.longPress` once and the release then says nothing more.
public struct InputMapper {
  /// What happened, with the instant it happened.
  public enum Action: Equatable {
    case engine(Event)
    /// A button went down (for the optional click sound).
    case buttonDown(Button)
  }

  var decoder: QuadratureDecoder
  var debouncers: [ButtonDebouncer]  // indexed like Button.allCases

  public init(config: DeviceConfig, initialLevels: [Bool]) {
    let level = { (line: DeviceLine) in initialLevels.count > line.rawValue ? initialLevels[line.rawValue] : false }
    decoder = QuadratureDecoder(
      transitionsPerDetent: config.encoderDetent, inverted: config.encoderInvert, a: level(.encoderA),
      b: level(.encoderB))
    debouncers = Button.allCases.map { button in
      ButtonDebouncer(
        stableFor: config.debounce, longPressAfter: config.longPress, initiallyPressed: level(DeviceLine(button)))
    }
  }

  /// Feeds edges (oldest first) and returns the actions they complete, in time order.
  public mutating func feed(_ edges: [LineEdge]) -> [(Instant, Action)] {
    var out: [(Instant, Action)] = []
    for edge in edges {
      guard edge.index < DeviceLine.inputs.count else { continue }
      let line = DeviceLine.inputs[edge.index]
      switch line {
      case .encoderA, .encoderB:
        if let detent = decoder.edge(line == .encoderA ? .a : .b, active: edge.active, at: edge.timestamp) {
          out.append((detent.timestamp, .engine(.turn(detent.steps))))
        }
      case .buzzer:
        continue
      case .encoderPush, .start, .cancel:
        let button = line.button!
        let index = Button.allCases.firstIndex(of: button)!
        out += debouncers[index].edge(active: edge.active, at: edge.timestamp).compactMap { map($0, button) }
      }
    }
    return out
  }

  /// Reports what the passing of time settled (a press that stayed pressed for the debounce
  /// time, a long press).
  public mutating func advance(to now: Instant) -> [(Instant, Action)] {
    var out: [(Instant, Action)] = []
    for (index, button) in Button.allCases.enumerated() {
      out += debouncers[index].advance(to: now).compactMap { map($0, button) }
    }
    return out.sorted { $0.0 < $1.0 }
  }

  public var nextDeadline: Instant? { debouncers.compactMap(\.nextDeadline).min() }

  /// A release after a long press says nothing more: the long press already acted.
  private func map(_ event: ButtonEvent, _ button: Button) -> (Instant, Action)? {
    let longPress = debouncers[Button.allCases.firstIndex(of: button)!].longPressAfter
    switch event {
    case .pressed(let at): return (at, .buttonDown(button))
    case .longPress(let at): return (at, .engine(.longPress(button)))
    case .released(let at, let held): return held < longPress ? (at, .engine(.press(button))) : nil
    }
  }
}
