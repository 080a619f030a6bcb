import PomodoroCore

/// The engine's cost per event: a mix of ticks, turns and presses, as a session has them.
func engineBench() {
  var state = EngineState(now: .zero)
  var now = Instant.zero
  let events: [Event] = [.turn(1), .turn(-1), .press(.start), .tick, .tick, .press(.start), .tick, .press(.cancel)]
  let iterations = 2_000_000
  var sink = 0
  let perEvent = cpuPerIteration(iterations) {
    now = now + ms(37)
    let (next, effects) = Engine.step(state, events[sink & 7], now: now)
    state = next
    sink &+= 1 &+ effects.count
  }
  figure("engine.step_cpu", perEvent, "ns/event")
  (state, _) = Engine.step(EngineState(now: now), .press(.start), now: now)
  var probe = now
  let perWake = cpuPerIteration(iterations) {
    probe = probe + 1_000_003
    sink &+= Int(truncatingIfNeeded: Engine.nextWake(state, now: probe)?.nanoseconds ?? 0)
  }
  figure("engine.next_wake_cpu", perWake, "ns/call")
  if sink == 42 { print("") }  // keeps the work observable to the optimiser
}
