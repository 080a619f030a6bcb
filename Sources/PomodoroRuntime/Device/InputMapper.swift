import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// Turns line edges into engine events: the quadrature decoder for the encoder, a debouncer
/// per button. A click (press and release under the long-press time) is a `.press`, acted on
/// at the release; holding reports `.longPress` once and the release then says nothing more.
/// The presence line's edges pass as they come (`PresenceWatch` settles them), its level at
/// start first.
public struct InputMapper {
  /// What happened, with the instant it happened.
  public enum Action: Equatable {
    case engine(Event)
    /// A button went down (for the optional click sound).
    case buttonDown(Button)
    /// The presence line's level changed (true: the sensor sees someone); not a touch.
    case presence(Bool)
  }

  var decoder: QuadratureDecoder
  var debouncers: [ButtonDebouncer]  // indexed like Button.allCases
  /// The presence line's level at start, said at the first `advance` (nil: said, or no line).
  var presenceAtStart: Bool?

  public init(config: DeviceConfig, initialLevels: [Bool]) {
    let level = { (line: DeviceLine) in initialLevels.count > line.rawValue ? initialLevels[line.rawValue] : false }
    decoder = QuadratureDecoder(
      transitionsPerDetent: config.encoderDetent, inverted: config.encoderInvert, a: level(.encoderA),
      b: level(.encoderB))
    debouncers = Button.allCases.map { button in
      ButtonDebouncer(
        stableFor: config.debounce, longPressAfter: config.longPress, initiallyPressed: level(DeviceLine(button)))
    }
    if config.presenceLine != nil { presenceAtStart = level(.presence) }
  }

  /// Feeds edges (oldest first) and returns the actions they complete, in time order.
  public mutating func feed(_ edges: [LineEdge]) -> [(Instant, Action)] {
    var out: [(Instant, Action)] = []
    for edge in edges {
      guard let line = DeviceLine(rawValue: edge.index), line != .buzzer else { continue }
      switch line {
      case .encoderA, .encoderB:
        if let detent = decoder.edge(line == .encoderA ? .a : .b, active: edge.active, at: edge.timestamp) {
          out.append((detent.timestamp, .engine(.turn(detent.steps))))
        }
      case .buzzer:
        continue
      case .presence:
        out.append((edge.timestamp, .presence(edge.active)))
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
    if let level = presenceAtStart {
      presenceAtStart = nil
      out.append((now, .presence(level)))
    }
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
