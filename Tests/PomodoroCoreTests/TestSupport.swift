import PomodoroCore

/// Drives the engine like the shell does, on a virtual timeline, collecting effects.
struct Harness {
  var state: EngineState
  var now: Instant
  var effects: [(Instant, Effect)] = []

  init(settings: EngineSettings = EngineSettings(), start: Instant = Instant(nanoseconds: 1_000_000_000)) {
    now = start
    state = EngineState(settings: settings, now: start)
  }

  mutating func send(_ event: Event) {
    let (next, fx) = Engine.step(state, event, now: now)
    state = next
    effects += fx.map { (now, $0) }
  }

  /// Advances time to `instant`, waking the engine at every instant it asked for on the way.
  mutating func run(until instant: Instant) {
    while let wake = Engine.nextWake(state, now: now), wake <= instant {
      now = max(now, wake)
      send(.tick)
    }
    now = max(now, instant)
  }

  mutating func advance(_ span: Nanoseconds) { run(until: now + span) }

  var alarmsOn: [Instant] { effects.compactMap { $0.1 == .alarm(true) ? $0.0 : nil } }
  var records: [SessionRecord] {
    effects.compactMap {
      if case .record(let r) = $0.1 { return r }
      return nil
    }
  }
}
