/// What survives a restart or a power cut: durations, not instants, because the monotonic
/// clock starts again from zero after a reboot.
public struct SavedTimer: Equatable, Sendable {
  public var phase: Phase
  public var mode: Mode
  /// The timer's total, extensions included.
  public var duration: Nanoseconds
  public var remaining: Nanoseconds
  public var focusDoneInCycle: Int
  /// The time added after the timer first reached zero (snoozes); more than 0 only for a timer
  /// that has reached zero once, so the original plan is `duration - extended`.
  public var extended: Nanoseconds
  /// A short break a flow earned: flow follows it (`EngineState.breakAfterFlow`).
  public var breakAfterFlow: Bool

  public init(
    phase: Phase, mode: Mode, duration: Nanoseconds, remaining: Nanoseconds, focusDoneInCycle: Int,
    extended: Nanoseconds = 0, breakAfterFlow: Bool = false
  ) {
    self.phase = phase
    self.mode = mode
    self.duration = duration
    self.remaining = remaining
    self.focusDoneInCycle = focusDoneInCycle
    self.extended = extended
    self.breakAfterFlow = breakAfterFlow
  }
}

extension EngineState {
  /// The state to save now.
  public func saved(at now: Instant) -> SavedTimer {
    SavedTimer(
      phase: phase, mode: mode, duration: duration, remaining: remaining(at: now), focusDoneInCycle: focusDoneInCycle,
      extended: session?.extended ?? 0, breakAfterFlow: breakAfterFlow)
  }

  /// The state after a restart, without the record `Engine.restore` also gives for a timer that
  /// was ringing: the shell should call `Engine.restore`.
  public init(restoring saved: SavedTimer, settings: EngineSettings, now: Instant) {
    self = Engine.restore(saved, settings: settings, now: now).0
  }
}

extension Engine {
  /// The state after a restart, and its effects. A timer that was running or paused comes back
  /// paused with the time it had (never running on by itself) and marked `restored`; a ringing
  /// one ends there: its session is recorded (completed, at `now`) and the device comes back
  /// idle with the next session preselected; the effects then say so (`.alarm(false)`,
  /// `.record`, `.persist`: saving at once keeps a second restart from recording it again).
  public static func restore(_ saved: SavedTimer, settings: EngineSettings, now: Instant) -> (EngineState, [Effect]) {
    var s = EngineState(settings: settings, now: now)
    s.mode = saved.mode
    // A timer's total may pass the dial's top (turned up while paused), an idle duration not.
    let timer = saved.phase != .idle
    s.duration = min(timer ? longestTotal : Dial.longest, max(Dial.shortest, saved.duration))
    // A flow always counts up to the dial's top, whatever a file says.
    switch saved.mode.kind.counting {
    case .up: s.duration = Dial.longest
    case .down: break
    }

    // A crafted or damaged file's count is held to the cycle (never `9223372036854775807/4`).
    s.focusDoneInCycle = min(max(0, saved.focusDoneInCycle), settings.cycle.longBreakEvery)
    let extended = max(0, min(s.duration - Dial.shortest, saved.extended))
    // The file does not say whether the time was dialed: an idle picker at its mode's preset
    // follows the preset; a timer or another time is kept as dialed.
    if saved.breakAfterFlow && saved.mode == .shortBreak {
      s.origin = .earned
    } else if saved.phase != .idle || s.duration != settings.preset(s.mode) {
      s.origin = .dialed
    }
    var effects: [Effect] = []
    switch saved.phase {
    case .idle:
      break
    case .running, .paused:
      let session = Session(extended: extended, completed: extended > 0)
      let remaining = max(0, min(s.duration, Dial.longest, saved.remaining))
      s.phaseState = .paused(session, remaining: remaining, lastDetentAt: nil)
      s.restored = true
    case .ringing:
      s.phaseState = .ringing(Session(extended: extended, completed: true))
      acknowledge(&s, now: now, effects: &effects, allowAutoStart: false)
      s.previousPhase = .idle
    }
    return (s, effects)
  }
}
