import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// Issue 35 item 4: `history --label`, `--days`, `--ics` and `stats --by-label` on a state
/// directory's history.
final class HistoryByLabelTests: XCTestCase {
  var directory = ""
  var conf = ""
  /// Tuesday 2026-12-01, 12:00 UTC (the commands' days are local; noon keeps them whole days off).
  let now = WallTime(epochSeconds: 1_796_126_400, synced: true)
  var path: String { directory + "/history.jsonl" }

  override func setUpWithError() throws {
    directory = try DeviceHarness.temporaryDirectory()
    conf = directory + "/p.conf"
    XCTAssertTrue(FileManager.default.createFile(atPath: conf, contents: Data("state_dir = \(directory)\n".utf8)))
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// A record `daysAgo` days before `now`, at the same time of day.
  func append(
    daysAgo: Int64, _ label: String? = nil, _ mode: Mode = .focus, _ outcome: SessionRecord.Outcome = .completed,
    synced: Bool = true
  ) throws {
    var e = HistoryEntry(
      ended: WallTime(epochSeconds: now.epochSeconds - daysAgo * 86400, synced: synced), mode: mode,
      outcome: outcome, plannedMs: 1_500_000, actualMs: 1_500_000)
    if let label, case .success(let l?) = SessionLabel.parse(label) { e.label = l }
    try HistoryLog(directory: directory).append(e)
  }

  func history(_ words: [String]) -> (code: Int32, out: String, err: String) {
    captureOutput {
      do {
        return try HistoryCommand.run(ArraySlice(words + ["--config", conf]), now: now)
      } catch {
        XCTFail("\(error)")
        return -1
      }
    }
  }

  func testLabelSelectsThoseRecordsExactlyAfterTrimming() throws {
    try append(daysAgo: 2, "Thesis")
    try append(daysAgo: 1, "thesis")
    try append(daysAgo: 1, "Thesis, ch. 2")
    try append(daysAgo: 0)
    try append(daysAgo: 0, "Thesis", .shortBreak)
    let r = history(["--label", "  Thesis "])
    XCTAssertEqual(r.code, 0, r.err)
    let lines = r.out.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, r.out)
    XCTAssertTrue(lines.allSatisfy { $0.hasSuffix(#","label":"Thesis"}"#) }, r.out)
    let csv = history(["--csv", "--label", "Thesis, ch. 2"])
    XCTAssertEqual(csv.out.split(separator: "\n").count, 2, csv.out)
    XCTAssertTrue(csv.out.hasSuffix(",0,0,\"Thesis, ch. 2\",,\n"), csv.out)
    XCTAssertEqual(history(["--label", "Nothing"]).out, "")
  }

  /// --days reads the file's end only, back to the first record of an earlier day, and writes the
  /// span oldest first; a damaged line in it is named from the end.
  func testDaysKeepsTheLastDaysInFileOrder() throws {
    for d in (0..<10).reversed() { try append(daysAgo: Int64(d), "D\(d)") }
    try Files.appendLine(path, #"{"ended":"2026-12-01T1"#)  // torn
    try append(daysAgo: 0, "last")
    let r = history(["--days", "3"])
    XCTAssertEqual(r.code, 0, r.err)
    let labels = r.out.split(separator: "\n").compactMap { HistoryEntry(jsonLine: String($0))?.label?.text }
    XCTAssertEqual(labels, ["D2", "D1", "D0", "last"])
    XCTAssertEqual(
      r.err, "pomodoro: \(path) line 2 from the end is damaged (torn by a power cut, or a time out of range); skipped\n"
    )
    XCTAssertEqual(history(["--days", "1"]).out.split(separator: "\n").count, 2)
    XCTAssertEqual(history(["--days", "100"]).out.split(separator: "\n").count, 11)
    XCTAssertEqual(history([]).out.split(separator: "\n").count, 11)
  }

  /// What the backward pass reads: records past the span are never parsed (a file whose start
  /// is not even JSON is fine), and a history with no record before the span is read whole.
  func testDaysStopsAtTheFirstRecordOfAnEarlierDay() throws {
    try Files.appendLine(path, "not a record at all")
    try append(daysAgo: 5)
    // Made before the clock was set (1971 by its own clock): its date ends nothing, it is kept.
    try append(daysAgo: 20_000, "boot", synced: false)
    try append(daysAgo: 0, "today")
    var read: [String] = []
    try HistoryLog(directory: directory).scan(
      days: 1, today: now.localCivilDay, entry: { read.append($0.label?.text ?? "-") }, damaged: { _ in XCTFail() })
    XCTAssertEqual(read, ["boot", "today"])
    var damaged: [Int] = []
    try HistoryLog(directory: directory).scan(
      days: 30, today: now.localCivilDay, entry: { read.append($0.label?.text ?? "-") },
      damaged: { damaged.append($0) })
    XCTAssertEqual(read, ["boot", "today", "-", "boot", "today"])
    XCTAssertEqual(damaged, [4], "the first line is the fourth from the end")
  }

  func testICSHoldsTheCompletedFocusSessionsOfTheSpan() throws {
    try append(daysAgo: 9, "old")
    try append(daysAgo: 1, "Thesis, ch. 2")
    try append(daysAgo: 1, "Thesis", .shortBreak)
    try append(daysAgo: 0, "Thesis", .focus, .cancelled)
    try append(daysAgo: 0, nil, .flow)
    try append(daysAgo: 0, "boot", synced: false)
    let r = history(["--ics", "--days", "7"])
    XCTAssertEqual(r.code, 0, r.err)
    XCTAssertTrue(r.out.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"), r.out)
    XCTAssertTrue(r.out.hasSuffix("END:VEVENT\r\nEND:VCALENDAR\r\n"), r.out)
    XCTAssertEqual(r.out.components(separatedBy: "BEGIN:VEVENT").count - 1, 2, r.out)
    XCTAssertTrue(r.out.contains("\r\nSUMMARY:Thesis\\, ch. 2\r\n"), r.out)
    XCTAssertTrue(r.out.contains("\r\nSUMMARY:Flow\r\n"), r.out)
    XCTAssertTrue(r.out.contains("\r\nDTEND:20261201T120000Z\r\n"), r.out)
    XCTAssertTrue(r.err.contains("1 focus session(s) recorded before the wall clock was set left out"), r.err)
    XCTAssertEqual(history(["--ics", "--days", "7"]).out, r.out, "the same at every export")
    let one = history(["--ics", "--label", "Thesis, ch. 2"])
    XCTAssertEqual(one.out.components(separatedBy: "BEGIN:VEVENT").count - 1, 1, one.out)
  }

  func testStatsByLabel() throws {
    try append(daysAgo: 90, "Ancient")
    try append(daysAgo: 8, "Thesis")
    try append(daysAgo: 1, "Thesis")
    try append(daysAgo: 0, "Thesis")
    try append(daysAgo: 0, "Mail", .flow)
    try append(daysAgo: 0)
    try append(daysAgo: 0, "Mail", .longBreak)
    let r = captureOutput {
      (try? StatsCommand.run(ArraySlice(["--by-label", "--config", conf]), now: now)) ?? -1
    }
    XCTAssertEqual(r.code, 0, r.err)
    let lines = r.out.split(separator: "\n").map(String.init)
    XCTAssertEqual(
      lines.first,
      "Completed focus sessions and flows by label, today (2026-12-01), this week (since Mon 2026-11-30) and the 12 weeks since 2026-09-09:"
    )
    XCTAssertEqual(
      lines.filter { $0.hasPrefix("Thesis") }, ["Thesis          1     25        2     50        3     75"])
    XCTAssertEqual(lines.filter { $0.hasPrefix("Mail") }, ["Mail            1     25        1     25        1     25"])
    XCTAssertEqual(lines.last, "No label        1     25        1     25        1     25")
    XCTAssertFalse(r.out.contains("Ancient"), "before the 12 weeks")
  }

  func testUsageErrorsNameTheOptionAndTheFix() {
    for (words, message) in [
      (["--csv", "--ics"], "history takes --csv or --ics, not both"),
      (["--label", "   "], "--label needs a label's text, got only spaces"),
      (
        ["--label", String(repeating: "x", count: 41)],
        "--label: a label is at most 40 characters and 160 bytes of UTF-8, got 41 characters and 41 bytes; shorten it"
      ),
      (["--label", "a\tb"], "--label: a label is text without control characters (U+0009 found)"),
      (["--days", "0"], "--days takes a number of days from 1 to 3660 (today is 1), got '0'"),
    ] {
      let r = captureOutput { PomodoroCLI.main(["history"] + words + ["--config", conf]) }
      XCTAssertEqual(r.code, ExitCode.usage, "\(words)")
      XCTAssertTrue(r.err.contains(message), "\(words): \(r.err)")
    }
    for words in [["--by-label", "--days", "7"], ["--by-label", "--png", "x.png"]] {
      let r = captureOutput { PomodoroCLI.main(["stats"] + words + ["--config", conf]) }
      XCTAssertEqual(r.code, ExitCode.usage, "\(words)")
      XCTAssertTrue(r.err.contains("--by-label shows today, this week and 12 weeks; it takes no"), r.err)
    }
  }
}
