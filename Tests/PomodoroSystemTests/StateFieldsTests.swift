import PomodoroCore
import XCTest

@testable import PomodoroControl
@testable import PomodoroSystem

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
    XCTAssertEqual(full.map(\.0), StateFields.names.filter { !["elapsed_ms", "earned_break_ms"].contains($0) })
    XCTAssertEqual(Array(full.prefix(4)).map(\.0), StateFields.core(state, at: now).map(\.0), "core leads")
    XCTAssertEqual(full.first { $0.0 == "remaining" }?.1, .string("23:30"))
    XCTAssertEqual(full.first { $0.0 == "ends_at" }?.1.string?.isEmpty, false)
    XCTAssertNil(
      StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: false)).first {
        $0.0 == "ends_at"
      }, "no end without a synchronised clock")
  }

  func testAFlowCarriesItsCountAndItsEarnedBreakAndNoEnd() {
    let t0 = Instant(nanoseconds: seconds(100))
    var state = Engine.step(EngineState(now: t0), .select(.flow), now: t0).0
    XCTAssertEqual(
      StateFields.logText(StateFields.core(state, at: t0)),
      "phase=idle mode=flow elapsed_ms=0 earned_break_ms=0", "a flow has no time left and no length: it counts up")
    state = Engine.step(state, .press(.start), now: t0).0
    let now = t0 + seconds(12 * 60 + 34) + ms(567)
    let full = StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: true))
    XCTAssertEqual(full.map(\.0), ["phase", "mode", "elapsed_ms", "earned_break_ms", "remaining", "title", "today"])
    XCTAssertEqual(full.first { $0.0 == "title" }?.1, .string(state.title), "the panel's title")
    XCTAssertEqual(full.first { $0.0 == "today" }?.1, .int(0))
    XCTAssertEqual(full.first { $0.0 == "elapsed_ms" }?.1, .int(754_567))
    XCTAssertEqual(full.first { $0.0 == "earned_break_ms" }?.1, .int(180_000), "12:34.567 / 5 is 2:31: 3 min")
    XCTAssertEqual(full.first { $0.0 == "remaining" }?.1, .string("12:34"), "the time counted, as on the panel")
    XCTAssertEqual(
      ControlProtocol.text(Dictionary(full, uniquingKeysWith: { a, _ in a })), "running  flow  12:34, break 3:00 earned"
    )
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
