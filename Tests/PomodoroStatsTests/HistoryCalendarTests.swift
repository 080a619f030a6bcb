import PomodoroControl
import PomodoroCore
import PomodoroStats
import PomodoroSystem
import XCTest

/// `pomodoro history --ics`: RFC 5545's lines, folding, escaping, UTC times and stable UIDs.
/// (Tests/history/ics.py has a real iCalendar parser read the command's output in CI.)
final class HistoryCalendarTests: XCTestCase {
  typealias F = StatsFixture

  func entry(
    _ label: String?, _ mode: Mode = .focus, _ outcome: SessionRecord.Outcome = .completed, synced: Bool = true
  )
    -> HistoryEntry
  {
    var e = F.entry("2026-11-30", hour: 15, mode, outcome, minutes: 25, synced: synced)
    e.label = label.map(LabelStatsTests.label)
    return e
  }

  /// The physical lines of a folded content line, each at most 75 octets and whole UTF-8
  /// characters, that unfold (CRLF and the space after it taken out) to the line.
  func assertFolded(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) {
    let folded = HistoryCalendar.fold(line)
    let physical = folded.components(separatedBy: "\r\n")
    for (i, p) in physical.enumerated() {
      XCTAssertLessThanOrEqual(p.utf8.count, 75, "line \(i): \(p)", file: file, line: lineNumber)
      if i > 0 { XCTAssertTrue(p.hasPrefix(" "), file: file, line: lineNumber) }
      XCTAssertFalse(p.isEmpty, file: file, line: lineNumber)
    }
    // Each physical line is valid UTF-8 on its own: no character was cut.
    for p in physical {
      let bytes = Array(p.utf8)
      XCTAssertEqual(String(decoding: bytes, as: UTF8.self).utf8.count, bytes.count, file: file, line: lineNumber)
    }
    let raw = Array(folded.utf8)
    var starts = [0]
    for i in raw.indices where i >= 2 && raw[i - 2] == 0x0D && raw[i - 1] == 0x0A { starts.append(i) }
    for s in starts.dropFirst() {
      XCTAssertEqual(raw[s], 0x20, file: file, line: lineNumber)
      if s + 1 < raw.count {
        XCTAssertNotEqual(raw[s + 1] & 0xC0, 0x80, "a continuation byte after the fold", file: file, line: lineNumber)
      }
    }
    XCTAssertEqual(folded.replacingOccurrences(of: "\r\n ", with: ""), line, file: file, line: lineNumber)
  }

  func testLongLinesFoldAt75OctetsWithoutSplittingACharacter() {
    XCTAssertEqual(HistoryCalendar.fold("SUMMARY:short"), "SUMMARY:short")
    let ascii = "SUMMARY:" + String(repeating: "a", count: 67)  // exactly 75 octets: not folded
    XCTAssertEqual(HistoryCalendar.fold(ascii), ascii)
    assertFolded(ascii + "b")
    // A continuation's leading space counts: 75 octets, then 74 of the line after each space.
    let long = "DESCRIPTION:" + String(repeating: "a", count: 200)
    assertFolded(long)
    XCTAssertEqual(HistoryCalendar.fold(long).components(separatedBy: "\r\n").map(\.utf8.count), [75, 75, 64])
    XCTAssertEqual(HistoryCalendar.fold(ascii + "b"), ascii + "\r\n b")
    // 40 characters of 3 octets (120), of 4 (160), and mixed at every offset.
    assertFolded("SUMMARY:" + String(repeating: "日", count: 40))
    assertFolded("SUMMARY:" + String(repeating: "🍅", count: 40))
    for shift in 0..<4 {
      assertFolded("SUMMARY:" + String(repeating: "x", count: shift) + String(repeating: "é日🍅", count: 14))
      assertFolded(
        "DESCRIPTION:" + String(repeating: "ü", count: shift + 30) + String(repeating: "🍅", count: 30))
    }
    // A whole event with a 40-character label in Japanese.
    let label = String(repeating: "日本語のラベル", count: 6).prefix(40)
    let ics = HistoryCalendar.document([entry(String(label))])
    for line in ics.components(separatedBy: "\r\n") { XCTAssertLessThanOrEqual(line.utf8.count, 75, line) }
    XCTAssertTrue(ics.replacingOccurrences(of: "\r\n ", with: "").contains("SUMMARY:\(label)\r\n"), ics)
  }

  func testTextIsEscaped() {
    XCTAssertEqual(HistoryCalendar.escape(#"a\b;c,d"#), #"a\\b\;c\,d"#)
    XCTAssertEqual(HistoryCalendar.escape("one\ntwo"), #"one\ntwo"#)
    XCTAssertEqual(HistoryCalendar.escape("<img src=x onerror=alert(1)>"), "<img src=x onerror=alert(1)>")
    let event = HistoryCalendar.event(entry(#"Thesis, ch. 2; draft \ notes"#)) ?? []
    XCTAssertTrue(event.contains(#"SUMMARY:Thesis\, ch. 2\; draft \\ notes"#), "\(event)")
  }

  /// DTEND is the record's end and DTSTART that less the time it ran, both UTC; the summary is
  /// the label or the mode's name.
  func testTimesAreUTCAndTheSummaryIsTheLabelOrTheMode() {
    let event = HistoryCalendar.event(entry(nil)) ?? []
    XCTAssertEqual(
      event,
      [
        "BEGIN:VEVENT", "UID:20261130T150000Z-focus-1500000@pomodoro.invalid", "DTSTAMP:20261130T150000Z",
        "DTSTART:20261130T143500Z", "DTEND:20261130T150000Z", "SUMMARY:Focus", #"DESCRIPTION:Focus\, 25:00"#,
        "CATEGORIES:Focus", "TRANSP:OPAQUE", "END:VEVENT",
      ])
    var flow = entry("Mail", .flow)
    flow.actualMs = 90 * 60_000 + 400
    flow.interruptions = Interruptions(internal: 2, external: 1)
    let lines = HistoryCalendar.event(flow) ?? []
    XCTAssertTrue(lines.contains("DTSTART:20261130T133000Z"), "\(lines)")
    XCTAssertTrue(lines.contains("SUMMARY:Mail"), "\(lines)")
    XCTAssertTrue(
      lines.contains(
        #"DESCRIPTION:Flow\, 1:30:00; interruptions: 2 internal\, 1 external"#.replacingOccurrences(
          of: "; ", with: "\\; ")), "\(lines)")
  }

  /// Only completed focus sessions and flows recorded on a set clock become events.
  func testOnlyCompletedFocusOnASetClockIsAnEvent() {
    XCTAssertNotNil(HistoryCalendar.event(entry("A")))
    XCTAssertNotNil(HistoryCalendar.event(entry("A", .flow)))
    XCTAssertNil(HistoryCalendar.event(entry("A", .shortBreak)))
    XCTAssertNil(HistoryCalendar.event(entry("A", .soft)))
    XCTAssertNil(HistoryCalendar.event(entry("A", .focus, .cancelled)))
    XCTAssertNil(HistoryCalendar.event(entry("A", synced: false)))
  }

  /// The same records give the same calendar, UIDs included, at every export; different
  /// records different UIDs.
  func testTheUIDIsStableAcrossExportsAndDiffersBetweenRecords() {
    let records = [entry("A"), entry("B", .flow), F.entry("2026-12-01", hour: 9)]
    let once = HistoryCalendar.document(records)
    XCTAssertEqual(once, HistoryCalendar.document(records))
    XCTAssertTrue(once.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//pomodoro//pomodoro "), once)
    XCTAssertTrue(once.hasSuffix("END:VEVENT\r\nEND:VCALENDAR\r\n"), once)
    XCTAssertFalse(once.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
    let uids = records.map(HistoryCalendar.uid)
    XCTAssertEqual(Set(uids).count, 3, "\(uids)")
    var relabelled = records[0]
    relabelled.label = LabelStatsTests.label("Other")
    XCTAssertEqual(HistoryCalendar.uid(relabelled), uids[0], "made of the record's end, mode and length")
    XCTAssertEqual(once.components(separatedBy: "BEGIN:VEVENT").count - 1, 3)
  }
}
