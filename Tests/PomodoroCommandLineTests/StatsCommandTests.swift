import Foundation
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// `pomodoro stats`: what it prints from a state directory's history, and its errors.
final class StatsCommandTests: XCTestCase {
  var directory = ""
  var conf = ""
  /// Tuesday 2026-12-01, 12:00 UTC (the tests' days are local; noon keeps them whole days off).
  let now = WallTime(epochSeconds: 1_796_126_400, synced: true)

  override func setUpWithError() throws {
    directory = try DeviceHarness.temporaryDirectory()
    conf = directory + "/p.conf"
    XCTAssertTrue(FileManager.default.createFile(atPath: conf, contents: Data("state_dir = \(directory)\n".utf8)))
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func stats(_ words: [String], now: WallTime? = nil) -> (code: Int32, out: String, err: String) {
    captureOutput {
      do {
        return try StatsCommand.run(ArraySlice(words + ["--config", conf]), now: now ?? self.now)
      } catch {
        XCTFail("\(error)")
        return -1
      }
    }
  }

  func append(daysAgo: Int64, _ mode: String = "focus", synced: Bool = true) throws {
    let t = WallTime(epochSeconds: now.epochSeconds - daysAgo * 86400, synced: synced)
    let line =
      #"{"ended":"\#(t.iso8601)","clock_synced":\#(synced),"mode":"\#(mode)","outcome":"completed","planned_ms":1500000,"actual_ms":1500000}"#
    try Files.appendLine(directory + "/history.jsonl", line)
  }

  func testItPrintsTheCountsStreaksAndHeatmapAndReportsDamagedLines() throws {
    try append(daysAgo: 2)
    try append(daysAgo: 1, synced: false)
    try append(daysAgo: 1)
    try Files.appendLine(directory + "/history.jsonl", #"{"ended":"2026-12-01T1"#)  // torn
    try append(daysAgo: 0)
    try append(daysAgo: 0, "short")
    try append(daysAgo: 0, "medium")
    let (code, out, err) = stats(["--days", "14"])
    XCTAssertEqual(code, 0)
    XCTAssertTrue(out.contains("Today:      1 focus session, 25 min\n"), out)
    XCTAssertTrue(out.contains("This week:  3 focus sessions, 75 min (since Mon 2026-11-30)\n"), out)
    XCTAssertTrue(out.contains("Streak:     3 days; longest 3 days\n"), out)
    XCTAssertTrue(out.contains("Breaks:     1 today, 1 this week, 1 in all\n"), out)
    XCTAssertTrue(out.contains("Egg timers: 1 today, 1 this week, 1 in all\n"), out)
    XCTAssertTrue(out.contains("Focus minutes a day, 2026-11-18 to 2026-12-01 (14 days):\n"), out)
    XCTAssertTrue(out.contains("Mon   · ▒\nTue   · ░\n"), out)
    XCTAssertTrue(out.contains("1 session recorded before the wall clock was set: counted on the day of the next"), out)
    XCTAssertTrue(
      out.contains("1 damaged history line skipped (torn by a power cut, or a time out of range): line 4."), out)
    XCTAssertFalse(out.contains("No sessions yet"))
    XCTAssertEqual(
      err,
      "pomodoro: \(directory)/history.jsonl line 4 is damaged (torn by a power cut, or a time out of range); skipped\n")
  }

  /// A line with a time no session can have (beyond a week, or negative) is damaged for both
  /// commands alike, and the huge ones once trapped `stats` with an arithmetic overflow.
  func testHugeAndNegativeTimesAreDamagedLinesForStatsAndHistoryAlike() throws {
    let path = directory + "/history.jsonl"
    func line(planned: String = "1500000", actual: String, extended: String = "0") -> String {
      #"{"ended":"2026-12-01T10:00:00Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":\#(planned),"actual_ms":\#(actual),"extended_ms":\#(extended)}"#
    }
    try append(daysAgo: 0)
    try Files.appendLine(path, line(actual: "9223372036854775807"))
    try Files.appendLine(path, line(actual: "5000000000000000000"))
    try Files.appendLine(path, line(actual: "5000000000000000000"))
    try Files.appendLine(path, line(actual: "-5"))
    try Files.appendLine(path, line(planned: "-1", actual: "1500000"))
    try Files.appendLine(path, line(actual: "1500000", extended: "604800001"))
    try Files.appendLine(path, line(actual: "604800000", extended: "604800000"))  // a week: the most a line may say
    let (code, out, err) = stats(["--days", "7"])
    XCTAssertEqual(code, 0)
    XCTAssertTrue(out.contains("Today:      2 focus sessions, 10105 min\n"), out)
    XCTAssertTrue(
      out.contains(
        "6 damaged history lines skipped (torn by a power cut, or a time out of range): line 2, 3, 4, 5, 6, 7."), out)
    let damaged = (2...7).map {
      "pomodoro: \(path) line \($0) is damaged (torn by a power cut, or a time out of range); skipped\n"
    }
    XCTAssertEqual(err, damaged.joined())
    let history = captureOutput { PomodoroCLI.main(["history", "--config", conf]) }
    XCTAssertEqual(history.code, 0)
    XCTAssertEqual(history.out.split(separator: "\n").count, 2, history.out)
    XCTAssertEqual(history.err, damaged.joined(), "history skips the same lines")
  }

  func testAMissingHistorySaysNoSessionsYetWithZeros() {
    let (code, out, err) = stats([], now: WallTime(epochSeconds: now.epochSeconds, synced: false))
    XCTAssertEqual(code, 0)
    XCTAssertTrue(out.hasPrefix("No sessions yet: completed focus sessions will show here.\n"), out)
    XCTAssertTrue(out.contains("Today:      0 focus sessions, 0 min\n"))
    XCTAssertTrue(out.contains("(84 days)"), "the default span is 12 weeks")
    XCTAssertTrue(out.contains("The wall clock is not set yet"), "today is not trusted either")
    XCTAssertEqual(err, "")
  }

  func testPNGIsWritten() throws {
    try append(daysAgo: 0)
    let file = directory + "/stats.png"
    let (code, out, _) = stats(["--png", file])
    XCTAssertEqual(code, 0)
    XCTAssertTrue(out.hasSuffix("wrote \(file)\n"), out)
    let png = try XCTUnwrap(Files.read(file))
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    XCTAssertGreaterThan(png.count, 1000)
  }

  func testUsageAndConfigErrors() {
    var r = captureOutput { PomodoroCLI.main(["stats", "--days", "0", "--config", conf]) }
    XCTAssertEqual(r.code, ExitCode.usage)
    XCTAssertTrue(r.err.contains("--days takes a number of days from 1 to 3660 (84 is 12 weeks), got '0'"), r.err)
    r = captureOutput { PomodoroCLI.main(["stats", "week"]) }
    XCTAssertEqual(r.code, ExitCode.usage)
    XCTAssertTrue(r.err.contains("stats takes no arguments, got 'week'"), r.err)
    r = captureOutput { PomodoroCLI.main(["stats", "--config", directory + "/none.conf"]) }
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(r.err.contains("none.conf: no such file"), r.err)
    let bad = directory + "/bad.conf"
    XCTAssertTrue(FileManager.default.createFile(atPath: bad, contents: Data("contrast = 999\n".utf8)))
    r = captureOutput { PomodoroCLI.main(["stats", "--config", bad]) }
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(r.err.contains("bad.conf:1"), r.err)
    r = captureOutput { PomodoroCLI.main(["help", "stats"]) }
    XCTAssertEqual(r.code, 0)
    XCTAssertTrue(
      r.out.contains("--days N sets the\nheatmap's span, the N days ending today (default 84, 12 weeks)"), r.out)
    XCTAssertTrue(captureOutput { PomodoroCLI.main(["--help"]) }.out.contains("  stats      Focus sessions"))
  }
}
