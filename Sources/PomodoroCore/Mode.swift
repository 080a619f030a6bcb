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

  /// What kind of timer the mode is: the rules it follows. A new mode does not compile until it
  /// is given one, and a new kind until every rule that switches on it (the engine's press,
  /// knob, extend, skip, choose and acknowledge; the title; the wire's fields) says what it does.
  public var kind: ModeKind {
    switch self {
    case .focus: return .focus
    case .shortBreak, .longBreak: return .rest
    case .soft, .medium, .hard: return .egg
    case .flow: return .flow
    }
  }

  /// The mode after this one in `cycle` (the `modes` key: the knob's push while idle); a mode
  /// the cycle leaves out (set by a command) steps to the cycle's first.
  public func next(in cycle: [Mode]) -> Mode {
    guard let first = cycle.first else { return self }
    guard let i = cycle.firstIndex(of: self) else { return first }
    return cycle[(i + 1) % cycle.count]
  }
}

/// The kinds of timer: the pomodoro cycle's focus and its breaks (`rest`), the egg timer's
/// presets, and flow.
public enum ModeKind: Sendable {
  /// Counts down; completing one counts toward the day and the cycle.
  case focus
  /// A short or long break: counts down; what follows it is the cycle's (or flow's, after a
  /// break a flow earned).
  case rest
  /// An egg preset: counts down; skipping steps through the eggs; its alarm has its own timeout.
  case egg
  /// Counts up until ended; earns a break in proportion.
  case flow

  public enum Counting: Sendable { case down, up }

  /// A completed session of this kind is completed focus: focus, and flow (focus that counts
  /// up). One meaning everywhere (docs/history.md): today's count (the panel's tomatoes, `today`
  /// on the wire, the page, Home Assistant), the statistics' focus, Home Assistant's "focusing".
  /// The cycle's count toward the long break is focus's alone (`Cycle`): a flow earns its own break.
  public var isFocus: Bool {
    switch self {
    case .focus, .flow: return true
    case .rest, .egg: return false
    }
  }

  public var counting: Counting {
    switch self {
    case .focus, .rest, .egg: return .down
    case .flow: return .up
    }
  }
}

/// Where the picker's duration came from: the mode's preset (which a new preset replaces at
/// once), the knob or a command (`dialed`, kept), or the break a flow earned (`earned`, kept, and
/// flow follows it).
public enum DurationOrigin: String, Equatable, Sendable {
  case preset
  case dialed
  case earned
}

/// The device's buttons. The encoder's push switch is a button too.
public enum Button: String, CaseIterable, Sendable {
  case start
  case cancel
  case encoder
}
