/// What the timer is doing.
public enum Phase: String, CaseIterable, Sendable {
  /// Choosing: the dialed duration is shown and can be changed.
  case idle
  case running
  case paused
  /// Reached zero; the alarm sounds until acknowledged or timed out.
  case ringing
}

/// What the timer is for: the pomodoro cycle's three modes and the egg timer's presets.
public enum Mode: String, CaseIterable, Sendable {
  case focus
  case shortBreak = "short"
  case longBreak = "long"
  case soft
  case medium
  case hard

  public var displayName: String {
    switch self {
    case .focus: return "Focus"
    case .shortBreak: return "Short break"
    case .longBreak: return "Long break"
    case .soft: return "Soft"
    case .medium: return "Medium"
    case .hard: return "Hard"
    }
  }

  /// The egg timer's presets.
  public var isEgg: Bool { self == .soft || self == .medium || self == .hard }

  /// The mode the encoder's push steps to while idle: focus, short, long, soft, medium, hard, focus...
  public var next: Mode {
    let all = Mode.allCases
    return all[(all.firstIndex(of: self)! + 1) % all.count]
  }
}

/// The device's buttons. The encoder's push switch is a button too.
public enum Button: String, CaseIterable, Sendable {
  case start
  case cancel
  case encoder
}
