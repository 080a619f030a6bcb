import Foundation
import PomodoroControl
import PomodoroGraphics
import PomodoroRuntime
import PomodoroSystem
import XCTest

@testable import PomodoroStats

/// The stats as text and as a picture, for a small crafted history.
final class StatsRenderingTests: XCTestCase {
  typealias F = StatsFixture

  /// Wednesday 2026-12-09, a 14-day heatmap: from Thursday 2026-11-26, three week columns.
  static func crafted() -> HistoryStats {
    var entries: [HistoryEntry] = []
    func focus(_ date: String, _ count: Int) { entries += (0..<count).map { F.entry(date, hour: 8 + $0) } }
    focus("2026-11-26", 1)  // 25 min: ░
    focus("2026-11-27", 2)  // 50: ▒
    focus("2026-11-30", 4)  // 100: ▓
    focus("2026-12-01", 6)  // 150: █
    focus("2026-12-02", 1)
    entries.append(F.entry("1970-01-01", synced: false))  // placed on the 7th: 50 min there
    focus("2026-12-07", 1)
    focus("2026-12-08", 1)
    entries.append(F.entry("2026-12-08", .hard, minutes: 9))
    focus("2026-12-09", 1)
    entries.append(F.entry("2026-12-09", .shortBreak, minutes: 5))
    entries.append(F.entry("2026-12-09", .focus, .cancelled, minutes: 3))
    return F.stats(entries, today: "2026-12-09", days: 14, damaged: [4])
  }

  func testTheTextOfASmallHistory() {
    let expected = """
      Today:      1 focus session, 25 min
      This week:  4 focus sessions, 100 min (since Mon 2026-12-07)
      All time:   18 focus sessions, 450 min
      Streak:     3 days; longest 3 days
      Breaks:     1 today, 1 this week, 1 in all
      Egg timers: 0 today, 1 this week, 1 in all
      Cancelled:  1 today, 1 this week, 1 in all (not counted above)

      Focus minutes a day, 2026-11-26 to 2026-12-09 (14 days):
          Nov Dec
      Mon   ▓ ▒
      Tue   █ ░
      Wed   ░ ░
      Thu ░ ·
      Fri ▒ ·
      Sat · ·
      Sun · ·
          · none  ░ 1-49 min  ▒ 50-99  ▓ 100-149  █ 150+

      1 session recorded before the wall clock was set: counted on the day of the next session recorded with the clock set, as its own date cannot be trusted.
      1 damaged history line skipped (torn by a power cut, or a time out of range): line 4.

      """
    XCTAssertEqual(StatsText.render(Self.crafted()), expected)
  }

  func testTheStreakUpToYesterdayAndAnEmptyHistorySaySo() {
    let yesterday = F.stats([F.entry("2026-12-07"), F.entry("2026-12-08")], today: "2026-12-09", days: 7)
    XCTAssertTrue(
      StatsText.render(yesterday).contains("Streak:     2 days up to yesterday (none yet today); longest 2 days\n"))
    let empty = StatsText.render(F.stats([], today: "2026-12-09", days: 7))
    XCTAssertTrue(
      empty.hasPrefix(
        "No sessions yet: completed focus sessions will show here.\nToday:      0 focus sessions, 0 min\n"), empty)
    XCTAssertTrue(empty.contains("Streak:     0 days; longest 0 days\n"))
    XCTAssertFalse(empty.contains("wall clock"))
  }

  func testMonthLabelsDoNotCollide() {
    // A span starting on Sunday 2027-01-31: a column with one January day, then February.
    let s = F.stats([], today: "2027-02-07", days: 8)
    XCTAssertEqual(HeatmapGrid(s).monthLabels(minimumGap: 2).map(\.name), ["Feb"])
    XCTAssertEqual(StatsText.heatmap(s)[0], "      Feb")
    XCTAssertEqual(StatsText.heatmap(s)[1], "Mon   ·")
    XCTAssertEqual(StatsText.heatmap(s)[7], "Sun · ·")
  }

  func testThePictureDrawsASquareADaySizedByFocusMinutes() {
    let s = Self.crafted()
    let fb = StatsPicture.render(s)
    let gridX = StatsPicture.margin + StatsPicture.labelWidth
    let gridY = StatsPicture.margin + 2 * StatsPicture.lineHeight + 2
    func litPixels(column: Int, row: Int) -> Int {
      var n = 0
      for y in 0..<StatsPicture.cell {
        for x in 0..<StatsPicture.cell
        where fb.pixel(gridX + column * StatsPicture.pitch + x, gridY + row * StatsPicture.pitch + y) { n += 1 }
      }
      return n
    }
    XCTAssertEqual(litPixels(column: 1, row: 1), 81, "Tuesday 12-01, 150 min: the whole square")
    XCTAssertEqual(litPixels(column: 1, row: 0), 49, "Monday 11-30, 100 min")
    XCTAssertEqual(litPixels(column: 2, row: 0), 25, "Monday 12-07, 50 min")
    XCTAssertEqual(litPixels(column: 0, row: 3), 9, "Thursday 11-26, 25 min")
    XCTAssertEqual(litPixels(column: 0, row: 5), 1, "Saturday 11-28, none: a dot")
    XCTAssertEqual(litPixels(column: 0, row: 0), 0, "Monday 11-23, before the span: nothing")
    XCTAssertEqual(litPixels(column: 2, row: 3), 0, "Thursday 12-10, the future: nothing")
    let png = StatsPicture.png(s)
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    func be32(_ i: Int) -> Int { png[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
    XCTAssertEqual(be32(16), fb.width * 3, "IHDR width: 3 image pixels a pixel")
    XCTAssertEqual(be32(20), fb.height * 3)
  }

  /// docs/stats-example.png, the README's picture, is this history's rendering. Regenerate with
  ///   POMODORO_UPDATE_GOLDEN=1 swift test --filter StatsRenderingTests
  func testTheREADMEPictureIsCurrent() throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("docs/stats-example.png")
    let png = StatsPicture.png(Self.example())
    if ProcessInfo.processInfo.environment["POMODORO_UPDATE_GOLDEN"] == "1" {
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(png).write(to: file)
    }
    let committed = try Data(contentsOf: file)
    XCTAssertTrue(
      Array(committed) == png,
      "docs/stats-example.png is stale: POMODORO_UPDATE_GOLDEN=1 swift test --filter StatsRenderingTests")
  }

  /// Twelve weeks of a plausible desk: weekdays mostly, more on Tuesdays and Thursdays, a holiday week.
  static func example() -> HistoryStats {
    var entries: [HistoryEntry] = []
    let today = F.day("2026-11-27")  // a Friday
    var seed: UInt32 = 7
    func random(_ n: Int) -> Int {
      seed = seed &* 1_103_515_245 &+ 12345
      return Int((seed >> 16) % UInt32(n))
    }
    for back in stride(from: 90, through: 0, by: -1) {
      let day = today.adding(-back)
      let weekend = day.weekday >= 5
      if (back >= 40 && back < 47) || (weekend && random(3) > 0) { continue }
      var count = weekend ? 1 + random(2) : random(9)
      if day.weekday == 1 || day.weekday == 3 { count += 2 }
      if back == 0 { count = 3 }
      for i in 0..<count {
        entries.append(F.entry("\(day)", hour: 8 + i))
        entries.append(F.entry("\(day)", hour: 8 + i, i % 4 == 3 ? .longBreak : .shortBreak, minutes: 5))
      }
      if random(5) == 0 { entries.append(F.entry("\(day)", hour: 18, .soft, minutes: 6)) }
    }
    return F.stats(entries, today: "\(today)")
  }
}
