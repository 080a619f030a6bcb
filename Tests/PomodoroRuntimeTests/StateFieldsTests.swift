import PomodoroCore
import XCTest

@testable import PomodoroRuntime

/// The state's fields are built once (StateFields) for the transcript, the journal, the control
/// socket and the bridge.
final class StateFieldsTests: XCTestCase {
  func running() -> (EngineState, Instant) {
    let t0 = Instant(nanoseconds: seconds(100))
    let (state, _) = Engine.step(EngineState(now: t0), .press(.start), now: t0)
    return (state, t0 + seconds(90))
  }

  func testFullGivesEveryNamedFieldInOrderWhileRunningWithASyncedClock() {
    let (state, now) = running()
    let full = StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: true))
    XCTAssertEqual(full.map(\.0), StateFields.names)
    XCTAssertEqual(Array(full.prefix(4)).map(\.0), StateFields.core(state, at: now).map(\.0), "core leads")
    XCTAssertEqual(full.first { $0.0 == "remaining" }?.1, .string("23:30"))
    XCTAssertEqual(full.first { $0.0 == "ends_at" }?.1.string?.isEmpty, false)
    XCTAssertNil(
      StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: false)).first {
        $0.0 == "ends_at"
      }, "no end without a synchronised clock")
  }

  func testTheJournalsFormAndTheBridgesOrder() {
    let (state, now) = running()
    XCTAssertEqual(
      StateFields.logText(StateFields.core(state, at: now)),
      "phase=running mode=focus remaining_ms=1410000 total_ms=1500000")
    let full = StateFields.full(state, at: now, wall: nil)
    let shuffled = Dictionary(
      full.reversed().map { ($0.0, $0.1) } + [("other", .int(1))], uniquingKeysWith: { a, _ in a })
    XCTAssertEqual(StateFields.ordered(shuffled).map(\.0), full.map(\.0), "names order, unknown keys dropped")
  }
}
