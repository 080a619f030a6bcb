import PomodoroControl
import PomodoroCore
import PomodoroStats
import PomodoroSystem
import XCTest

/// `pomodoro stats --by-label` and the page's week by label: each label's completed focus
/// sessions and flows, today, this week and over the span, built from the history's end.
final class LabelStatsTests: XCTestCase {
  typealias F = StatsFixture

  static func label(_ text: String) -> SessionLabel {
    guard case .success(let l?) = SessionLabel.parse(text) else { fatalError(text) }
    return l
  }

  func labelled(
    _ date: String, _ label: String?, hour: Int = 12, _ mode: Mode = .focus,
    _ outcome: SessionRecord.Outcome = .completed, minutes: Int64 = 25, synced: Bool = true
  ) -> HistoryEntry {
    var e = F.entry(date, hour: hour, mode, outcome, minutes: minutes, synced: synced)
    e.label = label.map(Self.label)
    return e
  }

  func stats(_ entries: [HistoryEntry], today: String, weeks: Int = 12) -> LabelStats {
    LabelStats(entries: entries, today: F.day(today), weeks: weeks, dayOf: F.utcDay)
  }

  func row(_ s: LabelStats, _ name: String) -> LabelStats.Row? { s.labels.first { $0.name == name } }

  /// Today is Wednesday 2026-12-02: Monday 2026-11-30 starts the week, Sunday 2026-11-29 is last
  /// week's, and the 12 weeks begin on 2026-09-10 (84 days ending today).
  func testTheSumsFollowTheDayAndTheWeekBoundaries() {
    XCTAssertEqual(F.day("2026-12-02").monday, F.day("2026-11-30"))
    let s = stats(
      [
        labelled("2026-09-09", "Thesis", hour: 23),  // the day before the span: out
        labelled("2026-09-10", "Thesis", hour: 0),  // the span's first day: in
        labelled("2026-11-29", "Thesis", hour: 23),  // Sunday: last week
        labelled("2026-11-30", "Thesis", hour: 0),  // Monday: this week
        labelled("2026-12-01", "Thesis", hour: 23, minutes: 50),
        labelled("2026-12-02", "Thesis", hour: 0),  // today
        labelled("2026-12-02", "Mail", hour: 9, .flow, minutes: 40),  // a flow is focus
      ], today: "2026-12-02")
    XCTAssertEqual(s.first, F.day("2026-09-10"))
    let thesis = row(s, "Thesis")
    XCTAssertEqual(thesis?.today, HistoryStats.Count(sessions: 1, ms: 1_500_000))
    XCTAssertEqual(thesis?.week, HistoryStats.Count(sessions: 3, ms: 6_000_000))
    XCTAssertEqual(thesis?.span, HistoryStats.Count(sessions: 5, ms: 9_000_000))
    XCTAssertEqual(row(s, "Mail")?.today, HistoryStats.Count(sessions: 1, ms: 2_400_000))
    XCTAssertEqual(s.rows(by: \.today).map(\.name), ["Mail", "Thesis"], "the most minutes first")
    XCTAssertEqual(s.rows(by: \.span).map(\.name), ["Thesis", "Mail"])
  }

  /// Only completed focus sessions and flows count: a break or an egg carrying the label, or a
  /// cancelled focus, does not.
  func testOnlyCompletedFocusAndFlowCount() {
    let s = stats(
      [
        labelled("2026-12-02", "Thesis"), labelled("2026-12-02", "Thesis", .shortBreak, minutes: 5),
        labelled("2026-12-02", "Thesis", .soft), labelled("2026-12-02", "Thesis", .focus, .cancelled),
        labelled("2026-12-02", "Thesis", .flow, .cancelled),
      ], today: "2026-12-02")
    XCTAssertEqual(s.labels.count, 1)
    XCTAssertEqual(row(s, "Thesis")?.today, HistoryStats.Count(sessions: 1, ms: 1_500_000))
  }

  /// Records written by 0.2.0 have no label: they read as before and sum on a row of their own,
  /// after the labels.
  func testRecordsWithoutALabelAreARowOfTheirOwn() throws {
    let old = try XCTUnwrap(
      HistoryEntry(
        jsonLine:
          #"{"ended":"2026-12-02T10:00:00Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1500000,"actual_ms":1500000,"extended_ms":0}"#
      ))
    let older = try XCTUnwrap(
      HistoryEntry(
        jsonLine:
          #"{"ended":"2026-12-01T10:00:00Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1500000,"actual_ms":60000}"#
      ))
    XCTAssertNil(old.label)
    let s = stats([older, old, labelled("2026-12-02", "Thesis", minutes: 1)], today: "2026-12-02")
    XCTAssertEqual(s.rows(by: \.week).map(\.name), ["Thesis", LabelStats.noLabel], "no label after the labels")
    XCTAssertEqual(row(s, LabelStats.noLabel)?.week, HistoryStats.Count(sessions: 2, ms: 1_560_000))
    XCTAssertNil(s.rows(by: \.week).last?.label)
  }

  /// Fed from the end, the builder stops at the first record of a day before the span made on a
  /// set clock; records made before the clock was set go on the next set record's day, or on
  /// none when no such record follows them.
  func testTheBuilderStopsAtTheSpanAndPlacesUnsyncedRecords() {
    var builder = LabelStats.Builder(today: F.day("2026-12-02"), weeks: 1, dayOf: F.utcDay)
    let newestFirst = [
      labelled("1970-01-01", "Late", synced: false),  // after the last set record: on no day
      labelled("2026-12-02", "A"),
      labelled("1970-01-01", "Boot", synced: false),  // before it: counted on 2026-12-02
      labelled("2026-11-26", "A"),  // the span's first day (weeks: 1 is 7 days)
      labelled("1970-01-01", "Boot", synced: false),  // placed on 2026-11-26
    ]
    for e in newestFirst { XCTAssertTrue(builder.add(e), "\(e)") }
    XCTAssertFalse(builder.add(labelled("2026-11-25", "A")), "a day before the span ends the reading")
    let s = builder.finish()
    XCTAssertEqual(s.unsyncedPlaced, 2)
    XCTAssertEqual(s.unsyncedUnplaced, 1)
    XCTAssertNil(row(s, "Late"))
    XCTAssertEqual(row(s, "Boot")?.today.sessions, 1)
    XCTAssertEqual(row(s, "Boot")?.span.sessions, 2)
    XCTAssertEqual(row(s, "Boot")?.week.sessions, 1, "2026-11-26 is last week's")
    XCTAssertEqual(row(s, "A")?.span.sessions, 2)
  }

  /// Past `labelLimit` labels, the rest are summed in one row: memory stays bounded.
  func testLabelsPastTheLimitAreSummedInOthers() {
    let entries = (0..<(LabelStats.labelLimit + 5)).map { labelled("2026-12-02", "L\($0)", minutes: 1) }
    let s = stats(entries, today: "2026-12-02")
    XCTAssertEqual(s.labels.count, LabelStats.labelLimit)
    XCTAssertEqual(s.others?.today.sessions, 5)
    XCTAssertEqual(s.rows(by: \.today).last?.name, LabelStats.otherLabels)
    XCTAssertNotNil(row(s, "L\(LabelStats.labelLimit + 4)"), "the newest labels are the ones kept")
  }

  func testTheTableNamesEachLabelAndItsFigures() {
    let s = stats(
      [labelled("2026-12-02", "Thesis, ch. 2"), labelled("2026-12-02", nil), labelled("2026-12-01", "日本語")],
      today: "2026-12-02")
    let text = LabelStatsText.render(s)
    XCTAssertTrue(text.contains("this week (since Mon 2026-11-30) and the 12 weeks since 2026-09-10:"), text)
    let lines = text.split(separator: "\n").map(String.init)
    XCTAssertEqual(
      lines.filter { $0.hasPrefix("Thesis, ch. 2") }, ["Thesis, ch. 2        1     25        1     25        1     25"],
      text)
    // Three wide characters take six columns: the figures line up with the others'.
    XCTAssertTrue(lines.contains("日本語               0      0        1     25        1     25"), text)
    XCTAssertTrue(lines.last?.hasPrefix(LabelStats.noLabel) ?? false, text)
    XCTAssertTrue(LabelStatsText.render(stats([], today: "2026-12-02")).contains("No sessions in these 12 weeks."))
  }
}
