/// The countdown engine: a pure state machine, `(state, event, now) -> (state, effects)`.
///
/// Time is handed in, never read. The engine counts to deadlines, so the alarm is due at
/// exactly start + duration + time spent paused, whatever the number and timing of pauses
/// (a pause keeps the sub-second remainder). `nextWake` tells the shell the next instant it
/// must be woken, so that nothing polls.
public enum Engine {
  /// While running, the state is saved at least this often.
  public static let persistInterval: Nanoseconds = seconds(10)

  /// Applies `event`, which happened at `now`, to `state`.
  public static func step(_ state: EngineState, _ event: Event, now: Instant) -> (EngineState, [Effect]) {
    var s = state
    var effects: [Effect] = []
    // Time first: a deadline or an alarm timeout that passed before `now` takes effect at
    // its own instant, before the event is applied.
    catchUp(&s, now: now, effects: &effects)

    switch (event, s.phase) {
    case (.tick, _):
      if s.phase == .running && now - s.lastPersistAt >= persistInterval {
        s.lastPersistAt = now
        effects.append(.persist)
      }

    case (.setCompletedToday(let n), _):
      s.completedToday = max(0, n)

    case (.press, .ringing), (.longPress, .ringing):
      acknowledge(&s, now: now, effects: &effects, allowAutoStart: true)

    case (.turn(let detents), .idle):
      s.restored = false
      let gap = s.lastDetentAt.map { now - $0 }
      let multiplier = Dial.multiplier(sincePrevious: gap)
      for _ in 0..<abs(detents) {
        s.duration = Dial.step(s.duration, direction: detents.signum(), multiplier: multiplier)
      }
      s.lastDetentAt = now

    case (.turn, _):
      break  // The duration cannot change under a running or paused timer.

    case (.press(.start), .idle), (.longPress(.start), .idle):
      start(&s, remaining: s.duration, now: now, effects: &effects)

    case (.press(.start), .running), (.longPress(.start), .running):
      s.pausedRemaining = s.remaining(at: now)
      enter(&s, .paused, at: now, effects: &effects)

    case (.press(.start), .paused), (.longPress(.start), .paused):
      start(&s, remaining: s.pausedRemaining, now: now, effects: &effects)

    case (.press(.cancel), .running), (.press(.cancel), .paused),
      (.longPress(.cancel), .running), (.longPress(.cancel), .paused):
      let record = SessionRecord(
        mode: s.mode, outcome: .cancelled, planned: s.duration, actual: s.elapsed(at: now), endedAt: now)
      effects.append(.record(record))
      enter(&s, .idle, at: now, effects: &effects)

    case (.press(.cancel), .idle):
      s.restored = false  // Nothing to cancel; harmless.

    case (.longPress(.cancel), .idle):
      // Skip to focus: skips a preselected break; after a long break the cycle starts anew.
      s.restored = false
      if s.mode == .longBreak { s.focusDoneInCycle = 0 }
      select(&s, .focus)

    case (.press(.encoder), .idle):
      s.restored = false
      select(&s, s.mode.next)

    case (.longPress(.encoder), .idle):
      s.restored = false
      s.duration = s.settings.preset(s.mode)

    case (.press(.encoder), _), (.longPress(.encoder), _):
      break  // Presets and modes are ignored while a timer runs.

    case (.press, _), (.longPress, _):
      break
    }
    return (s, effects)
  }

  /// The next instant the shell must wake the engine with `.tick`, or nil when nothing is due.
  /// While running: the instant the shown second changes (or the deadline), so the display
  /// changes exactly when the second does. While ringing: the alarm's timeout.
  public static func nextWake(_ s: EngineState, now: Instant) -> Instant? {
    switch s.phase {
    case .running:
      // Remaining r shows ceil(r) seconds, and one second less once r <= (shown - 1) s.
      let remaining = s.deadline - now
      if remaining <= 0 { return now }
      return s.deadline - (shownSeconds(remaining) - 1) * nanosecondsPerSecond
    case .ringing:
      return s.phaseSince + s.settings.alarmTimeout
    case .idle, .paused:
      return nil
    }
  }

  // MARK: - Transitions

  static func catchUp(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    if s.phase == .running && now >= s.deadline {
      complete(&s, effects: &effects)
    }
    if s.phase == .ringing && now >= s.phaseSince + s.settings.alarmTimeout {
      acknowledge(&s, now: s.phaseSince + s.settings.alarmTimeout, effects: &effects, allowAutoStart: false)
    }
  }

  static func start(_ s: inout EngineState, remaining: Nanoseconds, now: Instant, effects: inout [Effect]) {
    s.restored = false
    if s.mode == .focus && s.focusDoneInCycle >= s.settings.longBreakEvery { s.focusDoneInCycle = 0 }
    s.deadline = now + remaining
    s.lastPersistAt = now
    enter(&s, .running, at: now, effects: &effects)
  }

  /// The deadline passed: ring, counted at the deadline itself, not when the shell noticed.
  static func complete(_ s: inout EngineState, effects: inout [Effect]) {
    let at = s.deadline
    if s.mode == .focus {
      s.focusDoneInCycle += 1
      s.completedToday += 1
    }
    effects.append(
      .record(SessionRecord(mode: s.mode, outcome: .completed, planned: s.duration, actual: s.duration, endedAt: at)))
    enter(&s, .ringing, at: at, effects: &effects)
    effects.append(.alarm(true))
  }

  /// The alarm was acknowledged (or timed out): preselect what comes next.
  static func acknowledge(_ s: inout EngineState, now: Instant, effects: inout [Effect], allowAutoStart: Bool) {
    effects.append(.alarm(false))
    switch s.mode {
    case .focus:
      select(&s, s.focusDoneInCycle >= s.settings.longBreakEvery ? .longBreak : .shortBreak)
    case .shortBreak:
      select(&s, .focus)
    case .longBreak:
      s.focusDoneInCycle = 0
      select(&s, .focus)
    case .soft, .medium, .hard:
      break  // The egg timer stays on its preset, ready for the next batch.
    }
    if allowAutoStart && s.settings.autoStart {
      start(&s, remaining: s.duration, now: now, effects: &effects)
    } else {
      enter(&s, .idle, at: now, effects: &effects)
    }
  }

  static func select(_ s: inout EngineState, _ mode: Mode) {
    s.mode = mode
    s.duration = s.settings.preset(mode)
  }

  static func enter(_ s: inout EngineState, _ phase: Phase, at: Instant, effects: inout [Effect]) {
    if s.phase != phase {
      s.previousPhase = s.phase
      s.phase = phase
    }
    s.phaseSince = at
    s.lastDetentAt = nil
    effects.append(.persist)
  }
}
