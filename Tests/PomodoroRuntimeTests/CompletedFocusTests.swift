import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroStats
import PomodoroSystem
import XCTest

/// "Completed focus" means one thing everywhere (docs/history.md): a completed session of a
/// kind that is focus, focus and flow (`SessionRecord.isCompletedFocus`).
final class CompletedFocusTests: XCTestCase {
  /// One day of every kind of session, completed and not, through the engine: its count of
  /// today (the panel's tomatoes), the wire's `today` (the socket, the page, MQTT and Home
  /// Assistant), the count the device takes from the history at start and at midnight, the
  /// history's, and the statistics' (`pomodoro stats`, the page's) agree.
  func testTheEngineTheWireTheHistoryAndTheStatisticsCountTheSameSessions() {
    var state = EngineState(now: .zero)
    var now = Instant.zero
    var records: [SessionRecord] = []
    func send(_ event: Event, after: Nanoseconds = 0) {
      now = now + after
      let (next, effects) = Engine.step(state, event, now: now)
      state = next
      for case .record(let record) in effects { records.append(record) }
    }
    // A focus that rings, its short break, a focus cancelled.
    send(.press(.start))
    send(.tick, after: minutes(25))
    send(.press(.start), after: seconds(3))
    send(.press(.start))
    send(.tick, after: minutes(5))
    send(.press(.start), after: seconds(3))
    send(.press(.start))
    send(.press(.cancel), after: minutes(10))
    // A flow ended after 20 minutes, the break it earned, a flow ended within its first minute.
    send(.select(.flow))
    send(.press(.start))
    send(.press(.cancel), after: minutes(20))
    send(.press(.start))
    send(.tick, after: minutes(4))
    send(.press(.start), after: seconds(3))
    send(.press(.start))
    send(.press(.cancel), after: seconds(30))
    // A soft egg, and a flow that runs to its ceiling.
    send(.select(.soft))
    send(.press(.start))
    send(.tick, after: minutes(5))
    send(.press(.start), after: seconds(3))
    send(.select(.flow))
    send(.press(.start))
    send(.tick, after: Engine.longestFlow)
    send(.press(.start), after: seconds(3))

    XCTAssertEqual(
      records.map { "\($0.mode.rawValue) \($0.outcome.rawValue)" },
      [
        "focus completed", "short completed", "focus cancelled", "flow completed", "short completed",
        "flow cancelled", "soft completed", "flow completed",
      ])
    let completed = state.completedToday
    XCTAssertEqual(completed, 3, "the focus and the two flows that completed")

    let wire = Dictionary(uniqueKeysWithValues: StateFields.full(state, at: now, wall: nil))
    XCTAssertEqual(wire["today"], .int(Int64(completed)), "the wire's today")

    // Every session at noon of one local day, on a synchronised clock.
    let noon = WallTime(epochSeconds: 1_796_126_400, synced: true)  // 2026-12-01 12:00 UTC
    let entries = records.enumerated().map { i, record in
      HistoryEntry(ended: WallTime(epochSeconds: noon.epochSeconds + Int64(i), synced: true), record: record)
    }
    XCTAssertEqual(HistoryLog.completedFocus(in: entries, onDayOf: noon), completed, "the history's count")
    var tally = TodayTally(day: noon.localDay)
    for entry in entries.reversed() { XCTAssertTrue(tally.take(entry)) }
    XCTAssertEqual(tally.completed, completed, "the count a restart or midnight gives the engine")
    var fresh = TodayTally(day: noon.localDay)
    for entry in entries { fresh.count(entry) }
    XCTAssertEqual(fresh.completed, completed, "the pending lines' count")
    let stats = HistoryStats(entries: entries, today: noon.localCivilDay)
    XCTAssertEqual(stats.todayTally.focus.sessions, completed, "the statistics' focus sessions today")
    XCTAssertEqual(stats.todayTally.flow.sessions, 2, "of which flows")
    XCTAssertEqual(
      stats.todayTally.focus.ms, wholeMilliseconds(minutes(25) + minutes(20) + Engine.longestFlow),
      "focus minutes: the focus's and the flows' time")
  }
}
