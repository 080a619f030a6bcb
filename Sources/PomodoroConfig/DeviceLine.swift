import PomodoroCore
import PomodoroSystem

/// The device's GPIO signals: the one table of what each line is, which button it is, which
/// config key names its pin and how the part labels it. Inputs are requested in `inputs` order,
/// so an edge's `index` is the row's raw value. The presence sensor's line is the one optional
/// row: requested only where `presence_line` names it.
public enum DeviceLine: Int, CaseIterable, Sendable {
  case encoderA = 0
  case encoderB
  case encoderPush
  case start
  case cancel
  case presence
  case buzzer

  /// The input lines every desk has, in request order (an edge's index).
  public static let inputs: [DeviceLine] = [.encoderA, .encoderB, .encoderPush, .start, .cancel]

  /// The config key that names this line's pin (deploy/pomodoro.conf).
  public var configKey: String {
    switch self {
    case .encoderA: return "encoder_a"
    case .encoderB: return "encoder_b"
    case .encoderPush: return "encoder_push"
    case .start: return "button_start"
    case .cancel: return "button_cancel"
    case .presence: return "presence_line"
    case .buzzer: return "buzzer"
    }
  }

  /// What the part calls it, for `pomodoro probe` (hardware/WIRING.md uses the same words).
  public var partLabel: String {
    switch self {
    case .encoderA: return "encoder CLK"
    case .encoderB: return "encoder DT"
    case .encoderPush: return "encoder SW"
    case .start: return "start button"
    case .cancel: return "cancel button"
    case .presence: return "presence OUT"
    case .buzzer: return "buzzer"
    }
  }

  /// The button this line is, if it is one.
  public var button: Button? {
    switch self {
    case .encoderPush: return .encoder
    case .start: return .start
    case .cancel: return .cancel
    case .encoderA, .encoderB, .presence, .buzzer: return nil
    }
  }

  /// The line `button` is wired to.
  public init(_ button: Button) {
    switch button {
    case .encoder: self = .encoderPush
    case .start: self = .start
    case .cancel: self = .cancel
    }
  }

  /// Where the config keeps this line's pin (nil for the presence line, which is optional:
  /// `DeviceConfig.presenceLine`).
  var configField: WritableKeyPath<DeviceConfig, String>? {
    switch self {
    case .encoderA: return \.encoderA
    case .encoderB: return \.encoderB
    case .encoderPush: return \.encoderPush
    case .start: return \.buttonStart
    case .cancel: return \.buttonCancel
    case .presence: return nil
    case .buzzer: return \.buzzer
    }
  }
}

extension DeviceConfig {
  /// The pin (line name or offset) `line` is wired to; nil: not wired (the presence line unset).
  public func pin(_ line: DeviceLine) -> String? { line.configField.map { self[keyPath: $0] } ?? presenceLine }

  /// The pin `button` is wired to.
  public func pin(_ button: Button) -> String { pin(DeviceLine(button))! }

  /// The lines this desk has and their pins, in the table's order.
  public var wired: [(line: DeviceLine, pin: String)] {
    DeviceLine.allCases.compactMap { line in pin(line).map { (line, $0) } }
  }

  /// The input lines requested, in request order (an edge's index is the row's raw value): the
  /// presence line last, where there is one.
  public var inputLines: [DeviceLine] { DeviceLine.inputs + (presenceLine == nil ? [] : [.presence]) }
}
