import PomodoroCore
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
      for effect in effects {
        switch effect {
        case .alarm(true):
          XCTAssertFalse(alarmOn, "step \(i): one alarm at a time")
          alarmOn = true
          alarms += 1
        case .alarm(false):
          alarmOn = false
        case .record(let r) where r.outcome == .completed:
          completions += 1
        default: break
        }
      }
      let remaining = after.remaining(at: now)
      XCTAssertGreaterThanOrEqual(remaining, 0, "step \(i)")
      XCTAssertLessThanOrEqual(remaining, after.duration, "step \(i)")
      XCTAssertGreaterThanOrEqual(after.duration, Dial.shortest)
      XCTAssertLessThanOrEqual(after.duration, Dial.longest)
      if before.phase == .running && after.phase == .running && before.phaseSince == after.phaseSince {
        XCTAssertLessThanOrEqual(
          remaining, before.remaining(at: previousNow), "step \(i): never increases while running")
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
      state = after
    }
    XCTAssertEqual(alarms, completions, "exactly one alarm per completed run")
    XCTAssertGreaterThan(completions, 100, "the random walk reached the alarm often")
  }
}
