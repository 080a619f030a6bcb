import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import XCTest

@testable import PomodoroStats

/// Builds crafted histories for the statistics tests. Days are UTC dates here (`utcDay`), so
/// the tests do not depend on the machine's time zone.
enum StatsFixture {
  static func day(_ text: String) -> CivilDay {
    let p = text.split(separator: "-").map { Int($0)! }
    return CivilDay(year: p[0], month: p[1], day: p[2])
  }

  static func utcDay(_ t: WallTime) -> CivilDay {
    CivilDay(ordinal: Int((t.epochSeconds - (t.epochSeconds % 86400 + 86400) % 86400) / 86400))
  }

  /// A session that ended at `hour`:00 UTC of `date`.
  static func entry(
    _ date: String, hour: Int = 12, _ mode: Mode = .focus, _ outcome: SessionRecord.Outcome = .completed,
    minutes: Int64 = 25, synced: Bool = true
  ) -> HistoryEntry {
    let seconds = Int64(day(date).ordinal) * 86400 + Int64(hour) * 3600
    let ns = minutes * 60_000_000_000
    return HistoryEntry(
      ended: WallTime(epochSeconds: seconds, synced: synced),
      record: SessionRecord(mode: mode, outcome: outcome, planned: ns, actual: ns, endedAt: .zero))
  }

  static func stats(_ entries: [HistoryEntry], today: String, days: Int = 84, damaged: [Int] = []) -> HistoryStats {
    HistoryStats(entries: entries, damagedLines: damaged, today: day(today), days: days, dayOf: utcDay)
  }
}

final class HistoryStatsTests: XCTestCase {
  typealias F = StatsFixture

  func testCivilDayArithmeticWeekdaysAndLeapYears() {
    XCTAssertEqual(CivilDay(year: 1970, month: 1, day: 1).ordinal, 0)
    XCTAssertEqual(CivilDay(year: 1970, month: 1, day: 1).weekday, 3, "a Thursday")
    XCTAssertEqual(F.day("2026-11-30").ordinal, 20787)
    XCTAssertEqual(F.day("2026-11-30").weekday, 0, "a Monday")
    XCTAssertEqual(F.day("2026-12-06").weekday, 6, "a Sunday")
    XCTAssertEqual(F.day("2026-12-06").monday, F.day("2026-11-30"))
    XCTAssertEqual(CivilDay(ordinal: -1).weekday, 2, "1969-12-31, a Wednesday")
    XCTAssertEqual(F.day("2100-02-28").adding(1).description, "2100-03-01", "2100 is not a leap year")
    XCTAssertEqual(F.day("2000-02-28").adding(1).description, "2000-02-29", "2000 is")
    XCTAssertEqual(CivilDay(yyyymmdd: 20_261_231).adding(1).description, "2027-01-01")
    // Every day from 1999 to 2101 names the next one, and its date gives it back.
    var d = F.day("1999-01-01")
    while d < F.day("2101-01-01") {
      let (y, m, day) = d.date
      let (y2, m2, day2) = d.adding(1).date
      let next =
        (y2 == y && m2 == m && day2 == day + 1) || (day2 == 1 && (m2 == m + 1 || (m == 12 && m2 == 1 && y2 == y + 1)))
      if CivilDay(year: y, month: m, day: day) != d || !next {
        XCTFail("\(d) (ordinal \(d.ordinal)) is followed by \(d.adding(1))")
        break
      }
      d = d.adding(1)
    }
  }

  func testFlowMinutesAreFocusMinutesInTheTotalsTheHeatmapAndTheStreakAndCountedApartToo() {
    let s = F.stats(
      [
        F.entry("2026-12-07", .flow, minutes: 40), F.entry("2026-12-08", minutes: 25),
        F.entry("2026-12-08", hour: 14, .flow, minutes: 70), F.entry("2026-12-08", hour: 15, .flow, .cancelled),
      ],
      today: "2026-12-08", days: 7)
    XCTAssertEqual(s.todayTally.focus, HistoryStats.Count(sessions: 2, ms: 95 * 60_000))
    XCTAssertEqual(s.todayTally.flow, HistoryStats.Count(sessions: 1, ms: 70 * 60_000))
    XCTAssertEqual(s.allTally.focus.minutes, 135)
    XCTAssertEqual(s.allTally.cancelled.sessions, 1, "a flow ended within its first minute")
    XCTAssertEqual(Array(s.heatmapFocusMs.suffix(2)), [Int64(40 * 60_000), Int64(95 * 60_000)])
    XCTAssertEqual(s.currentStreak, 2, "a day of flow alone is a day of focus")
    let text = StatsText.render(s)
    XCTAssertTrue(text.contains("Today:      2 focus sessions, 95 min\n"), text)
    XCTAssertTrue(
      text.contains("Flows:      1 today, 2 this week, 2 in all, 110 min (counted as focus, above and below)\n"), text)
    XCTAssertFalse(StatsText.render(F.stats([F.entry("2026-12-08")], today: "2026-12-08")).contains("Flows:"))
  }

  func testStreakRunsAcrossMonthAndYearEnds() {
    let s = F.stats(
      [
        F.entry("2026-11-30"), F.entry("2026-12-30"), F.entry("2026-12-31"), F.entry("2027-01-01"),
        F.entry("2027-01-02"),
      ],
      today: "2027-01-02")
    XCTAssertEqual(s.currentStreak, 4)
    XCTAssertTrue(s.streakIncludesToday)
    XCTAssertEqual(s.longestStreak, 4)
  }

  func testAGapDayEndsAStreakAndTheLongestIsKept() {
    var entries = (1...9).map { F.entry("2026-10-0\($0)") }  // nine days in a row
    entries += ["2026-10-20", "2026-10-21", "2026-10-23", "2026-10-24", "2026-10-25"].map { F.entry($0) }
    let s = F.stats(entries, today: "2026-10-25")
    XCTAssertEqual(s.currentStreak, 3, "the 22nd has none")
    XCTAssertEqual(s.longestStreak, 9)
  }

  func testWithNoneYetTodayTheStreakCountsUpToYesterday() {
    let entries = [
      F.entry("2026-11-28"), F.entry("2026-11-29"), F.entry("2026-11-30"),
      // Today: a break, an egg and a cancelled focus session do not count.
      F.entry("2026-12-01", .shortBreak), F.entry("2026-12-01", .soft), F.entry("2026-12-01", .focus, .cancelled),
    ]
    let s = F.stats(entries, today: "2026-12-01")
    XCTAssertEqual(s.currentStreak, 3)
    XCTAssertFalse(s.streakIncludesToday)
    XCTAssertEqual(F.stats(entries, today: "2026-12-02").currentStreak, 0, "yesterday had none either")
    XCTAssertEqual(F.stats(entries, today: "2026-12-02").longestStreak, 3)
  }

  func testTheWeekStartsOnMonday() {
    let entries = [
      F.entry("2026-11-29", minutes: 20),  // Sunday: last week
      F.entry("2026-11-30", hour: 0, minutes: 30),  // Monday, just after midnight
      F.entry("2026-12-06", hour: 23, minutes: 25),  // Sunday, today
    ]
    let sunday = F.stats(entries, today: "2026-12-06")
    XCTAssertEqual(sunday.weekStart, F.day("2026-11-30"))
    XCTAssertEqual(sunday.weekTally.focus, .init(sessions: 2, ms: 55 * 60_000))
    XCTAssertEqual(sunday.todayTally.focus, .init(sessions: 1, ms: 25 * 60_000))
    let monday = F.stats(entries, today: "2026-11-30")
    XCTAssertEqual(monday.weekTally.focus.sessions, 1, "the Sunday before is last week; the next is the future")
    XCTAssertEqual(monday.todayTally.focus.minutes, 30)
  }

  func testBreaksEggsAndCancelledAreCountedApartAndMinutesAreTheActualTime() {
    let entries = [
      F.entry("2026-12-01", .focus, minutes: 31),  // snoozed: counted as it ran
      F.entry("2026-12-01", .shortBreak, minutes: 5), F.entry("2026-12-01", .longBreak, minutes: 15),
      F.entry("2026-12-01", .medium, minutes: 6), F.entry("2026-12-01", .hard, minutes: 9),
      F.entry("2026-12-01", .focus, .cancelled, minutes: 10),
      F.entry("2026-12-01", .shortBreak, .cancelled, minutes: 1),
    ]
    let s = F.stats(entries, today: "2026-12-01")
    XCTAssertEqual(s.todayTally.focus, .init(sessions: 1, ms: 31 * 60_000))
    XCTAssertEqual(s.todayTally.breaks, .init(sessions: 2, ms: 20 * 60_000))
    XCTAssertEqual(s.todayTally.eggs, .init(sessions: 2, ms: 15 * 60_000))
    XCTAssertEqual(s.todayTally.cancelled, .init(sessions: 2, ms: 11 * 60_000))
    XCTAssertEqual(s.heatmapFocusMs.last, 31 * 60_000, "only completed focus on the heatmap")
    XCTAssertEqual(s.entryCount, 7)
    XCTAssertEqual(HistoryStats.Count(sessions: 1, ms: 89_999).minutes, 1)
    XCTAssertEqual(HistoryStats.Count(sessions: 1, ms: 90_000).minutes, 2)
  }

  func testUnsyncedSessionsAreCountedOnTheNextSyncedSessionsDay() {
    let entries = [
      F.entry("2026-11-29"),
      // The clock was not set after a boot: its date (the epoch, or a stale one) is not trusted.
      F.entry("1970-01-01", synced: false), F.entry("2026-12-24", synced: false),
      F.entry("2026-11-30", .shortBreak),  // the next synced session: both are placed on the 30th
      F.entry("2026-12-01"),
      F.entry("1970-01-01", minutes: 40, synced: false),  // none synced after: on no day
    ]
    let s = F.stats(entries, today: "2026-12-01", days: 7)
    XCTAssertEqual(s.unsyncedPlaced, 2)
    XCTAssertEqual(s.unsyncedUnplaced, 1)
    XCTAssertEqual(s.currentStreak, 3, "the 30th has the two unsynced focus sessions")
    XCTAssertEqual(s.heatmapFocusMs, [0, 0, 0, 0, 25, 50, 25].map { Int64($0) * 60_000 })
    XCTAssertEqual(s.todayTally.focus.sessions, 1, "the unplaced one is not today's")
    XCTAssertEqual(s.allTally.focus, .init(sessions: 5, ms: 140 * 60_000))
    XCTAssertEqual(s.weekTally.breaks.sessions, 1)
  }

  func testTheHeatmapSpansTheLastDaysAndIgnoresTheFuture() {
    let entries = [
      F.entry("2026-11-20", minutes: 25), F.entry("2026-11-24", minutes: 25), F.entry("2026-11-24", minutes: 25),
      F.entry("2026-12-01", minutes: 90), F.entry("2026-12-05", minutes: 25),  // after "today"
    ]
    let s = F.stats(entries, today: "2026-12-01", days: 10, damaged: [3, 9])
    XCTAssertEqual(s.heatmapStart, F.day("2026-11-22"))
    XCTAssertEqual(s.heatmapFocusMs.count, 10)
    XCTAssertEqual(s.heatmapFocusMs[2], 50 * 60_000)
    XCTAssertEqual(s.heatmapFocusMs[9], 90 * 60_000)
    XCTAssertEqual(s.heatmapFocusMs.reduce(0, +), 140 * 60_000, "the 20th is before the span, the 5th after today")
    XCTAssertEqual(s.damagedLines, [3, 9])
    XCTAssertEqual(s.allTally.focus.sessions, 5)
    XCTAssertEqual(s.longestStreak, 1)
    XCTAssertEqual(
      [0, 1, 49, 50, 99, 100, 150, 600].map { FocusShade.level(ms: Int64($0) * 60_000) }, [0, 1, 1, 2, 2, 3, 4, 4])
  }

  /// Damaged lines are counted however many there are; the report names the first 20, so a
  /// history of junk costs no memory for their numbers.
  func testManyDamagedLinesAreCountedAndTheFirstNamed() {
    let s = F.stats([], today: "2026-12-01", damaged: Array(1...25))
    XCTAssertEqual(s.damagedCount, 25)
    XCTAssertEqual(s.damagedLines, Array(1...20))
    XCTAssertTrue(
      StatsText.render(s).contains(
        "25 damaged history lines skipped (torn by a power cut, or a time out of range): line 1, 2,"),
      StatsText.render(s))
    XCTAssertTrue(StatsText.render(s).contains("19, 20 and 5 more."), StatsText.render(s))
  }

  /// The reader keeps every time within a week, but the sums must not trap whatever they are
  /// given: they hold at Int64.max.
  func testSumsHoldAtTheLargestValueInsteadOfOverflowing() {
    var huge = F.entry("2026-12-01")
    huge.actualMs = .max
    var half = F.entry("2026-12-01")
    half.actualMs = 5_000_000_000_000_000_000
    let s = F.stats([huge, half, half, F.entry("2026-12-01")], today: "2026-12-01", days: 7)
    XCTAssertEqual(s.todayTally.focus.sessions, 4)
    XCTAssertEqual(s.todayTally.focus.ms, .max)
    XCTAssertEqual(s.allTally.focus.minutes, Int64.max / 60_000 + 1, "rounded without adding 30 s to Int64.max")
    XCTAssertEqual(s.heatmapFocusMs.last, .max)
    XCTAssertEqual(FocusShade.level(ms: .max), 4)
    XCTAssertEqual(HistoryStats.sum(.max, 1), .max)
    XCTAssertEqual(HistoryStats.sum(.min, -1), .min)
    XCTAssertEqual(HistoryStats.sum(2, 3), 5)
    XCTAssertEqual(HistoryStats.Count(ms: 89_999).minutes, 1)
    XCTAssertEqual(HistoryStats.Count(ms: 90_000).minutes, 2)
  }

  func testAnEmptyHistoryIsAllZeros() {
    let s = F.stats([], today: "2026-12-01")
    XCTAssertTrue(s.isEmpty)
    XCTAssertEqual(s.currentStreak, 0)
    XCTAssertEqual(s.longestStreak, 0)
    XCTAssertEqual(s.heatmapFocusMs, Array(repeating: 0, count: 84))
  }
}

/// The daily goal in the statistics: the days it was met and the runs of such days.
final class GoalStatsTests: XCTestCase {
  typealias F = StatsFixture

  func testDaysTheGoalWasMetAndItsStreaks() {
    // Two focus sessions on 11-28, 11-29, 12-01 and 12-02 (a flow counts as focus); one on
    // 11-30; a break and a cancelled focus on 12-03 (today) count for nothing.
    var entries: [HistoryEntry] = []
    for date in ["2026-11-28", "2026-11-29", "2026-12-01", "2026-12-02"] {
      entries += [F.entry(date, hour: 9), F.entry(date, hour: 10, date == "2026-12-02" ? .flow : .focus)]
    }
    entries += [
      F.entry("2026-11-30"), F.entry("2026-12-03", .shortBreak), F.entry("2026-12-03", hour: 13, .focus, .cancelled),
    ]
    func stats(goal: Int) -> HistoryStats {
      HistoryStats(entries: entries, today: F.day("2026-12-03"), goal: goal, dayOf: F.utcDay)
    }
    let two = stats(goal: 2)
    XCTAssertEqual(two.goalDays, 4)
    XCTAssertEqual(two.goalStreak, 2, "12-01 and 12-02: up to yesterday, today not met yet")
    XCTAssertFalse(two.goalStreakIncludesToday)
    XCTAssertEqual(two.longestGoalStreak, 2)
    XCTAssertTrue(
      StatsText.render(two).contains(
        "Goal:       2 a day (daily_goal): met on 4 days; in a row: 2 days up to yesterday, longest 2 days"),
      StatsText.render(two))
    let one = stats(goal: 1)
    XCTAssertEqual(one.goalDays, 5)
    XCTAssertEqual(one.longestGoalStreak, 5, "11-28 to 12-02")
    let none = stats(goal: 0)
    XCTAssertEqual([none.goalDays, none.goalStreak, none.longestGoalStreak], [0, 0, 0])
    XCTAssertFalse(StatsText.render(none).contains("Goal:"), "no goal, no line")
    // Today met: the streak includes it.
    let met = HistoryStats(
      entries: entries + [F.entry("2026-12-03", hour: 15), F.entry("2026-12-03", hour: 16)], today: F.day("2026-12-03"),
      goal: 2, dayOf: F.utcDay)
    XCTAssertEqual(met.goalStreak, 3)
    XCTAssertTrue(met.goalStreakIncludesToday)
  }
}
