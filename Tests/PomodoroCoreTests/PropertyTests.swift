import PomodoroCore
import PomodoroMock
import XCTest

/// 100,000 random events and ticks; the invariants hold after every step.
final class PropertyTests: XCTestCase {
  static let allowed: Set<String> = [
    "idle>running", "running>paused", "paused>running", "running>idle", "paused>idle",
    "running>ringing", "ringing>idle", "ringing>running",
  ]

  func testInvariantsUnderRandomEvents() {
    var rng = SplitMix64(seed: 0x5EED)
    let settings = EngineSettings(
      presets: [.focus: seconds(40), .shortBreak: seconds(10), .longBreak: seconds(20)],
      longBreakEvery: 3, autoStart: false, alarmTimeout: seconds(15))
    var state = EngineState(settings: settings, now: .zero)
    var now = Instant.zero
    var alarms = 0
    var completions = 0
    var alarmOn = false
    var started = 0
    var records = 0
    var snoozes = 0
    var extendedRecords = 0
    var flowRecords = 0
    for i in 0..<100_000 {
      let before = state
      let previousNow = now
      now = now + Nanoseconds.random(in: 0..<ms(3_000), using: &rng)
      let event: Event
      switch Int.random(in: 0..<10, using: &rng) {
      case 0...2: event = .tick
      case 3: event = .turn(Int.random(in: -3...3, using: &rng))
      case 4, 5: event = .press(.start)
      case 6: event = .press(.cancel)
      case 7: event = .press(.encoder)
      case 8: event = .longPress(Button.allCases.randomElement(using: &rng)!)
      default: event = .tick
      }
      let (after, effects) = Engine.step(state, event, now: now)
      // A run reaches zero in this step when it was running and its deadline has passed.
      let completes =
        before.phase == .running
        && (before.remaining(at: now).map { $0 == 0 } ?? (before.elapsed(at: now) >= Engine.longestFlow))
      if completes { completions += 1 }
      XCTAssertEqual(
        effects.filter { $0 == .alarm(true) }.count, completes ? 1 : 0, "step \(i): exactly one alarm per completed run"
      )
      if before.phase == .idle && after.phase == .running { started += 1 }
      if before.phase == .ringing && after.phase == .running && event != .tick { snoozes += 1 }
      for effect in effects {
        switch effect {
        case .alarm(true):
          XCTAssertFalse(alarmOn, "step \(i): one alarm at a time")
          alarmOn = true
          alarms += 1
        case .alarm(false):
          alarmOn = false
        case .record(let r) where r.mode == .flow:
          // A flow plans nothing: it completes after its first minute, else it is cancelled.
          records += 1
          flowRecords += 1
          XCTAssertEqual(r.planned, 0, "step \(i)")
          XCTAssertEqual(r.extended, 0, "step \(i)")
          XCTAssertEqual(r.outcome == .completed, r.actual >= EngineSettings.shortestFlow, "step \(i)")
          XCTAssertLessThanOrEqual(r.actual, Engine.longestFlow, "step \(i)")
        case .record(let r):
          records += 1
          if r.outcome == .completed {
            // It counted its plan, and all of its extensions unless cancelled during one.
            XCTAssertGreaterThanOrEqual(r.actual, r.planned, "step \(i)")
            XCTAssertLessThanOrEqual(r.actual, r.planned + r.extended, "step \(i)")
            if before.phase == .ringing || completes {  // Ended by its alarm: all counted.
              XCTAssertEqual(r.actual, r.planned + r.extended, "step \(i)")
            }
          } else {
            XCTAssertLessThan(r.actual, r.planned, "step \(i): a cancelled one did not")
            XCTAssertEqual(r.extended, 0, "step \(i): only a session that reached zero is extended")
          }
          if r.extended > 0 { extendedRecords += 1 }
        default: break
        }
      }
      switch (after.mode.kind.counting, after.count(at: now)) {
      case (.down, .down(let remaining, let duration)):
        XCTAssertEqual(after.duration, duration, "step \(i)")
        XCTAssertGreaterThanOrEqual(remaining, 0, "step \(i)")
        XCTAssertLessThanOrEqual(remaining, duration, "step \(i)")
        XCTAssertGreaterThanOrEqual(duration, Dial.shortest)
        XCTAssertLessThanOrEqual(duration, after.phase == .idle ? Dial.longest : Engine.longestTotal)
        XCTAssertLessThanOrEqual(remaining, Dial.longest, "step \(i): never more than the dial's top left")
        if before.phase == .running && after.phase == .running && before.phaseSince == after.phaseSince {
          XCTAssertLessThanOrEqual(
            remaining, before.remaining(at: previousNow) ?? 0, "step \(i): never increases while running")
        }
      case (.up, .up(let counted)):
        XCTAssertNil(after.duration, "step \(i): a flow has no duration")
        XCTAssertGreaterThanOrEqual(counted, 0, "step \(i)")
        XCTAssertLessThanOrEqual(counted, Engine.longestFlow, "step \(i)")
        if before.phase == .running && after.phase == .running && before.phaseSince == after.phaseSince {
          XCTAssertGreaterThanOrEqual(
            counted, before.elapsed(at: previousNow), "step \(i): never decreases while running")
        }
      case (.down, .up), (.up, .down):
        XCTFail("step \(i): \(after.mode) counts the other way")
      }
      if before.phase != after.phase {
        let edge = "\(before.phase.rawValue)>\(after.phase.rawValue)"
        // A step may pass through ringing (deadline, then the event): check both edges.
        let viaRinging =
          Self.allowed.contains("\(before.phase.rawValue)>ringing")
          && Self.allowed.contains("ringing>\(after.phase.rawValue)")
        XCTAssertTrue(Self.allowed.contains(edge) || viaRinging, "step \(i): \(edge)")
      }
      XCTAssertEqual(alarmOn, after.phase == .ringing, "step \(i): the alarm sounds exactly while ringing")
      // Every session started is recorded exactly once when it ends; one is open unless idle.
      XCTAssertEqual(started, records + (after.phase == .idle ? 0 : 1), "step \(i): exactly one record per session")
      state = after
    }
    XCTAssertEqual(alarms, completions, "exactly one alarm per completed run")
    XCTAssertGreaterThan(completions, 100, "the random walk reached the alarm often")
    XCTAssertGreaterThan(snoozes, 20, "and snoozed")
    XCTAssertGreaterThan(extendedRecords, 10, "and recorded extended sessions")
    XCTAssertGreaterThan(flowRecords, 100, "and ended flows")
  }
}
