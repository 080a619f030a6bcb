import PomodoroCore
import XCTest

/// The focus/break cycle as a table: a session of `mode` completes with `done` focus sessions
/// already counted in the cycle; then `counted` are counted and `next` is preselected with
/// `carried` counted from then on.
final class CycleTests: XCTestCase {
  struct Row {
    var mode: Mode
    var done: Int
    var counted: Int
    var next: Mode
    var carried: Int
  }

  static let rows: [Row] = [
    Row(mode: .focus, done: 0, counted: 1, next: .shortBreak, carried: 1),
    Row(mode: .focus, done: 1, counted: 2, next: .shortBreak, carried: 2),
    Row(mode: .focus, done: 2, counted: 3, next: .shortBreak, carried: 3),
    Row(mode: .focus, done: 3, counted: 4, next: .longBreak, carried: 4),
    Row(mode: .focus, done: 4, counted: 5, next: .longBreak, carried: 5),  // The long break was skipped before.
    Row(mode: .shortBreak, done: 1, counted: 1, next: .focus, carried: 1),
    Row(mode: .shortBreak, done: 3, counted: 3, next: .focus, carried: 3),
    Row(mode: .longBreak, done: 4, counted: 4, next: .focus, carried: 0),
    Row(mode: .longBreak, done: 2, counted: 2, next: .focus, carried: 0),  // Chosen by hand: a new cycle all the same.
    Row(mode: .soft, done: 2, counted: 2, next: .soft, carried: 2),
    Row(mode: .medium, done: 0, counted: 0, next: .medium, carried: 0),
    Row(mode: .hard, done: 3, counted: 3, next: .hard, carried: 3),
  ]

  func testWhatFollowsEachCompletedSession() {
    let cycle = Cycle(longBreakEvery: 4)
    for row in Self.rows {
      let counted = cycle.focusDone(afterCompleting: row.mode, row.done)
      XCTAssertEqual(counted, row.counted, "\(row)")
      let (next, carried) = cycle.next(after: row.mode, focusDone: counted)
      XCTAssertEqual(next, row.next, "\(row)")
      XCTAssertEqual(carried, row.carried, "\(row)")
    }
  }

  func testAFocusAfterAFullCycleStartsANewOneAndSkippingToFocus() {
    let cycle = Cycle(longBreakEvery: 4)
    let starts: [(Mode, Int, Int)] = [
      (.focus, 0, 0), (.focus, 3, 3), (.focus, 4, 0), (.focus, 6, 0), (.shortBreak, 4, 4), (.longBreak, 4, 4),
      (.soft, 4, 4),
    ]
    for (mode, done, expected) in starts {
      XCTAssertEqual(cycle.focusDone(atStartOf: mode, done), expected, "\(mode) \(done)")
    }
    XCTAssertTrue(cycle.skipToFocus(from: .longBreak, focusDone: 4) == (.focus, 0))
    XCTAssertTrue(cycle.skipToFocus(from: .shortBreak, focusDone: 2) == (.focus, 2))
    XCTAssertTrue(cycle.skipToFocus(from: .hard, focusDone: 1) == (.focus, 1))
  }

  func testAtLeastOneFocusPerCycle() {
    XCTAssertEqual(Cycle(longBreakEvery: 0).longBreakEvery, 1)
    XCTAssertTrue(Cycle(longBreakEvery: 1).next(after: .focus, focusDone: 1) == (.longBreak, 1))
    XCTAssertTrue(Cycle(longBreakEvery: 2).next(after: .focus, focusDone: 1) == (.shortBreak, 1))
  }
}
