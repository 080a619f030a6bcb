import Foundation
import PomodoroCore
import PomodoroSystem
import XCTest

/// The page's time formatting and rounding, pinned to the panel's (issue 45): one table,
/// Tests/web/clock-table.json, made here from the Swift functions the panel and ctl use
/// (`formatClock`, `formatShortClock`, `DurationText.format`, `shownSeconds`, `wholeSeconds`), and
/// read by Tests/web/page.py, which asks app.js's functions of the same names for each row in
/// Chromium. A change to either side fails one of the two. Regenerate after a change to the Swift
/// side with
///   POMODORO_UPDATE_GOLDEN=1 swift test --filter PageClockTableTests
final class PageClockTableTests: XCTestCase {
  /// Every second of the first ten minutes, and both sides of each boundary the text changes
  /// shape at: ten minutes, an hour, ten hours, a day, a hundred hours, the longest length.
  static let seconds: [Int64] =
    Array(0...600)
    + [3_599, 3_600, 3_601, 3_660, 3_661, 35_999, 36_000, 36_001, 86_399, 86_400, 86_401, 359_999, 360_000]
    + [DurationText.longest / nanosecondsPerSecond - 1, DurationText.longest / nanosecondsPerSecond]

  /// Milliseconds on the wire around whole seconds (a time left rounds up, a time counted down).
  static let milliseconds: [Int64] =
    [0, 1, 499, 500, 501, 999, 1_000, 1_001, 1_999, 2_000, 59_001, 59_999, 60_000]
    + [1_499_999, 1_500_000, 1_500_001, 3_599_999, 3_600_000, 3_600_001, -1, -1_000]

  static func table() -> [String: [[String]]] {
    func rows(_ values: [Int64], _ text: (Int64) -> String) -> [[String]] { values.map { [String($0), text($0)] } }
    return [
      "clock": rows(seconds) { formatClock($0) },
      "shortClock": rows(seconds) { formatShortClock($0) },
      "durationText": rows(seconds) { DurationText.format(PomodoroCore.seconds($0)) },
      "shownSeconds": rows(milliseconds) { String(PomodoroCore.shownSeconds(ms($0))) },
      "wholeSeconds": rows(milliseconds.filter { $0 >= 0 }) { String(PomodoroCore.wholeSeconds(ms($0))) },
    ]
  }

  func testTheTableIsTheSwiftFunctions() throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("web/clock-table.json")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var json = try encoder.encode(Self.table())
    json.append(0x0A)
    if ProcessInfo.processInfo.environment["POMODORO_UPDATE_GOLDEN"] == "1" { try json.write(to: file) }
    let committed = try Data(contentsOf: file)
    XCTAssertTrue(
      committed == json,
      "Tests/web/clock-table.json is not what the Swift functions say: if they changed on purpose, "
        + "POMODORO_UPDATE_GOLDEN=1 swift test --filter PageClockTableTests (and app.js must follow: Tests/web/page.py)"
    )
    // Spot checks that the table says what the panel shows.
    let table = Self.table()
    XCTAssertTrue(table["clock"]!.contains(["3600", "1:00:00"]))
    XCTAssertTrue(table["shortClock"]!.contains(["120", "2:00"]))
    XCTAssertTrue(table["durationText"]!.contains(["90", "1m30s"]))
    XCTAssertTrue(table["shownSeconds"]!.contains(["1001", "2"]))
    XCTAssertTrue(table["wholeSeconds"]!.contains(["1999", "1"]))
  }
}
