/// What the timer is doing.
public enum Phase: String, CaseIterable, Sendable {
  /// Choosing: the dialed duration is shown and can be changed.
  case idle
  case running
  case paused
  /// Reached zero; the alarm sounds until acknowledged or timed out.
  case ringing
}

/// What the timer is for: the pomodoro cycle's three modes, the egg timer's presets, and flow,
/// which counts up until it is ended and earns a break in proportion.
public enum Mode: String, CaseIterable, Sendable {
  case focus
  case shortBreak = "short"
  case longBreak = "long"
  case soft
  case medium
  case hard
  case flow

  public var displayName: String {
    switch self {
    case .focus: return "Focus"
    case .shortBreak: return "Short break"
    case .longBreak: return "Long break"
    case .soft: return "Soft"
    case .medium: return "Medium"
    case .hard: return "Hard"
    case .flow: return "Flow"
    }
  }

  /// The egg timer's presets.
  public var isEgg: Bool { self == .soft || self == .medium || self == .hard }

  /// Flow counts up from 00:00 until it is ended; every other mode counts down to zero.
  public var countsUp: Bool { self == .flow }

  /// The mode after this one in `cycle` (the `modes` key: the knob's push while idle); a mode
  /// the cycle leaves out (set by a command) steps to the cycle's first.
  public func next(in cycle: [Mode]) -> Mode {
    guard let first = cycle.first else { return self }
    guard let i = cycle.firstIndex(of: self) else { return first }
    return cycle[(i + 1) % cycle.count]
  }
}

/// The device's buttons. The encoder's push switch is a button too.
public enum Button: String, CaseIterable, Sendable {
  case start
  case cancel
  case encoder
}
