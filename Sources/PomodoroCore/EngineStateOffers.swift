/// What every view of a state shows beside the time, so that the panel, the page and scripts
/// say the same: what the buttons offer, the progress bar, the picker's modes, the dial's range.
/// The page draws these from the wire (StateFields) and derives none of them.
extension EngineState {
  /// Whether adding time applies (`Engine.extend`): a countdown's timer, or its alarm (a snooze);
  /// not while idle, and never in a flow (it has no end to move).
  public var canExtend: Bool {
    switch (mode.kind.counting, phase) {
    case (.up, _), (.down, .idle): return false
    case (.down, .running), (.down, .paused), (.down, .ringing): return true
    }
  }

  /// Whether skip is offered: not while ringing, where the start button stops the alarm.
  public var canSkip: Bool { phase != .ringing }

  /// The progress bar: `done` of `total` (no bar when `total` is 0). A countdown's time counted
  /// of its length; a flow's bar is the break it has earned, full at its ceiling (the long
  /// break's preset).
  public func progress(at now: Instant) -> (done: Nanoseconds, total: Nanoseconds) {
    switch count(at: now) {
    case .down(let remaining, let total): return (total - remaining, total)
    case .up(let counted): return (settings.earnedBreak(counted), settings.longBreak)
    }
  }

  /// While a flow runs or is paused: the time counted at which the break it earns next changes
  /// (a view that counts the time between the desk's updates asks again then); nil at the
  /// break's ceiling and outside a flow.
  public func earnedBreakChanges(at now: Instant) -> Nanoseconds? {
    guard hasTimer, case .up(let counted) = count(at: now) else { return nil }
    return settings.earnedBreakChanges(after: counted)
  }

  /// The modes the picker offers, in order: the knob's push steps through them (`modes`).
  public var pickerModes: [Mode] { settings.modes }
}

extension EngineSettings {
  /// The time counted after `elapsed` at which `earnedBreak` next changes; nil once it is at its
  /// ceiling. The break is `elapsed / ratio` rounded to the minute (a half up), so it becomes
  /// k+1 minutes once `elapsed / ratio` reaches k minutes and a half.
  public func earnedBreakChanges(after elapsed: Nanoseconds) -> Nanoseconds? {
    guard elapsed >= EngineSettings.shortestFlow else { return EngineSettings.shortestFlow }
    let minute = minutes(1)
    let now = earnedBreak(elapsed)
    guard now < longBreak else { return nil }
    // `share / minute` rounds up to now + 1 minute once share >= now + half a minute; share is
    // elapsed / ratio rounded down, so that is elapsed >= (now + minute / 2) * ratio.
    return (now + minute / 2) * Int64(flowBreakRatio)
  }
}

extension Mode {
  /// The mode's name on the picker's button: "Short" and "Long" without " break".
  public var pickerName: String {
    switch self {
    case .shortBreak: return "Short"
    case .longBreak: return "Long"
    case .focus, .soft, .medium, .hard, .flow: return displayName
    }
  }
}

extension ModeKind {
  /// The kind's name on the wire: focus, rest, egg, flow.
  public var name: String {
    switch self {
    case .focus: return "focus"
    case .rest: return "rest"
    case .egg: return "egg"
    case .flow: return "flow"
    }
  }
}
