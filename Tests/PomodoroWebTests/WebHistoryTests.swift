import Foundation
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroControl
@testable import PomodoroStats
@testable import PomodoroWeb

/// The page's history and statistics come from the device's own history, through its socket.
extension WebDeskTests {
  /// A desk whose device keeps its history in the fixture's directory, with `lines` in it.
  func storingDesk(history lines: [String], wallSeconds: Int64 = 1_796_040_000) throws {
    fixture = try ControlFixture(storing: true)
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: fixture.directory + "/history.jsonl", atomically: true, encoding: .utf8)
    desk = makeDesk(
      hosts: AllowedHosts(hostName: "desk", addresses: []),
      wall: {
        WallTime(epochSeconds: wallSeconds, synced: true)
      })
    settle(until: { self.desk.state != nil })
  }

  /// A history line ending `daysAgo` days before the fixture's wall clock (2026-11-30 12:00 UTC).
  static func record(daysAgo: Int, mode: String = "focus", outcome: String = "completed", minutes: Int64 = 25)
    -> String
  {
    let ended = WallTime(epochSeconds: 1_796_040_000 - Int64(daysAgo) * 86_400 - 600, synced: true)
    let ms = minutes * 60_000
    return
      "{\"ended\":\"\(ended.iso8601)\",\"clock_synced\":true,\"mode\":\"\(mode)\",\"outcome\":\"\(outcome)\",\"planned_ms\":\(ms),\"actual_ms\":\(ms),\"extended_ms\":0}"
  }

  func testTheHistoryIsTheDevicesByDay() throws {
    try storingDesk(history: [
      Self.record(daysAgo: 10), Self.record(daysAgo: 3), Self.record(daysAgo: 3, mode: "short", minutes: 5),
      "{torn by a power cut", Self.record(daysAgo: 0), Self.record(daysAgo: 0, outcome: "cancelled", minutes: 3),
    ])
    let r = get("/api/history?days=7")
    XCTAssertEqual(r.status, 200, r.body)
    let days = r.body.components(separatedBy: "{\"day\":").dropFirst()
    XCTAssertEqual(days.count, 7, r.body)
    let today = WallTime(epochSeconds: 1_796_040_000, synced: true).localCivilDay
    XCTAssertTrue(days.last?.hasPrefix("\"\(today)\",\"focus\":1,\"focus_ms\":1500000,\"sessions\":[") ?? false, r.body)
    XCTAssertTrue(days.last?.contains("\"outcome\":\"cancelled\"") ?? false, r.body)
    let threeAgo = days[days.startIndex + 3]
    XCTAssertTrue(threeAgo.hasPrefix("\"\(today.adding(-3))\",\"focus\":1,"), threeAgo)
    XCTAssertTrue(threeAgo.contains("\"mode\":\"short\""), threeAgo)
    XCTAssertFalse(r.body.contains(today.adding(-10).description), "older than 7 days: not asked for")
    // The device reads back only as far as the first day asked for; the torn line is left out.
    let fd = try fixture.connect()
    defer { close(fd) }
    let items = fixture.exchange(fd, "{\"cmd\":\"history\",\"days\":7}").filter {
      $0.hasPrefix("{\"item\":\"history\"")
    }
    XCTAssertEqual(items.count, 4, "\(items)")
    for bad in ["0", "367", "week"] {
      XCTAssertEqual(get("/api/history?days=\(bad)").status, 400, bad)
    }
  }

  /// Issue 34 item 9: a history cut at the device's 5,000 records says so, and starts at the
  /// first day it fully covers.
  func testACutHistorySaysSo() throws {
    var lines: [String] = []
    for daysAgo in (0..<10).reversed() { lines += Array(repeating: Self.record(daysAgo: daysAgo), count: 501) }
    try storingDesk(history: lines)
    let r = get("/api/history?days=30")
    XCTAssertEqual(r.status, 200)
    XCTAssertTrue(r.body.contains("],\"truncated\":true,\"week_by_label\":["), String(r.body.suffix(80)))
    let days = r.body.components(separatedBy: "{\"day\":").dropFirst()
    XCTAssertEqual(days.count, 9, "day 9 ago is cut: it is left out")
    XCTAssertTrue(days.first?.contains("\"focus\":501,") ?? false, String(days.first?.prefix(80) ?? ""))
    let small = get("/api/history?days=3")
    XCTAssertTrue(small.body.contains("],\"truncated\":false,\"week_by_label\":["), String(small.body.suffix(80)))
  }

  /// Issue 35: the week by label, summed by the server (`LabelStats`, as `stats --by-label`
  /// sums it): a row a label with its name, sessions and minutes, the most minutes first, the
  /// sessions without a label after them. The records are of Monday 2026-11-30 and the Sunday
  /// before, which is last week's. A label is JSON text, whatever it holds.
  func testTheWeekByLabelIsSummedOnTheServer() throws {
    func labelled(_ line: String, _ label: String) -> String {
      String(line.dropLast()) + ",\"label\":" + FlatJSON.encode([("x", .string(label))]).dropFirst(5)
    }
    let markup = "<img src=x onerror=alert(1)>"
    let lines = [
      labelled(Self.record(daysAgo: 1), "Thesis"),
      labelled(Self.record(daysAgo: 0), "Thesis"),
      labelled(Self.record(daysAgo: 0, minutes: 50), markup),
      labelled(Self.record(daysAgo: 0, mode: "short", minutes: 5), "Thesis"),
      Self.record(daysAgo: 0, minutes: 10),
    ]
    // The device is asked back to Monday at least: Monday 1 day, Wednesday 3, Sunday 7.
    let monday = WallTime(epochSeconds: 1_796_040_000, synced: true).localCivilDay
    XCTAssertEqual(
      [(1, 0), (1, 2), (1, 6), (7, 2), (30, 6)].map { WebDesk.daysAsked($0.0, today: monday.adding($0.1)) },
      [1, 3, 7, 7, 30])
    // On Wednesday, the page asking for one day still gets Monday's sessions in its week.
    try storingDesk(history: lines, wallSeconds: 1_796_040_000 + 2 * 86_400)
    let r = get("/api/history?days=1")
    XCTAssertEqual(r.status, 200, r.body)
    XCTAssertEqual(r.body.components(separatedBy: "{\"day\":").count - 1, 1, "one day listed")
    let week = try XCTUnwrap(r.body.components(separatedBy: "\"week_by_label\":").last)
    XCTAssertEqual(
      week,
      #"[{"name":"<img src=x onerror=alert(1)>","label":"<img src=x onerror=alert(1)>","sessions":1,"minutes":50,"ms":3000000},"#
        + #"{"name":"Thesis","label":"Thesis","sessions":1,"minutes":25,"ms":1500000},"#
        + #"{"name":"No label","sessions":1,"minutes":10,"ms":600000}]}"#)
  }

  /// Issue 34 item 9: unpaired viewers' history reads go to the device one at a time, so that a
  /// paired browser's command waits behind one at most; each is answered.
  func testACommandWaitsBehindOneViewersHistoryAtMost() throws {
    try storingDesk(history: (0..<50).map { Self.record(daysAgo: $0 % 10) })
    let cookie = try pairedCookie()
    deviceHangs = true
    let viewers = (1...6).map { http.arrive(MemoryHTTP.request("GET", "/api/history?days=\($0 * 10)")) }
    turn()
    let command = http.arrive(MemoryHTTP.request("POST", "/api/command", body: "{\"cmd\":\"toggle\"}", cookie: cookie))
    turn()
    deviceHangs = false
    settle(until: { command.response != nil })
    XCTAssertEqual(command.status, 200, command.body)
    XCTAssertLessThanOrEqual(viewers.filter { $0.response != nil }.count, 1, "answered before the command")
    settle(until: { viewers.allSatisfy { $0.response != nil } })
    XCTAssertEqual(viewers.map { $0.status }, Array(repeating: 200, count: 6))
  }

  /// Issue 34 item 9: unpaired viewers asking the same history share one read of the device, and
  /// its answer.
  func testViewersAskingTheSameShareOneRead() throws {
    try storingDesk(history: (0..<50).map { Self.record(daysAgo: $0 % 10) })
    settle()
    let before = desk.link.pending.count
    deviceHangs = true
    let viewers = (0..<6).map { _ in http.arrive(MemoryHTTP.request("GET", "/api/history?days=366")) }
    turn()
    XCTAssertEqual(desk.link.pending.count - before, 1, "one read at the device")
    deviceHangs = false
    settle(until: { viewers[0].response != nil })
    XCTAssertEqual(viewers.filter { $0.response != nil }.count, 6, "all answered by the one read")
    XCTAssertEqual(Set(viewers.map(\.body)).count, 1)
    XCTAssertEqual(viewers[0].status, 200)
  }

  /// The SVG says what `pomodoro stats` says of the same history: its lines, from the same numbers.
  func testTheStatisticsPictureSaysWhatStatsSays() throws {
    let lines = (0..<20).flatMap { d in
      d % 4 == 1 ? [] : [Self.record(daysAgo: d), Self.record(daysAgo: d, minutes: 50)]
    }
    try storingDesk(history: lines)
    let r = get("/api/stats.svg")
    XCTAssertEqual(r.status, 200, r.body)
    XCTAssertEqual(r.response?.contentType, "image/svg+xml")
    var builder = HistoryStats.Builder(
      today: WallTime(epochSeconds: 1_796_040_000, synced: true).localCivilDay, days: WebDesk.statsDays)
    for line in lines { builder.add(try XCTUnwrap(HistoryEntry(jsonLine: line))) }
    let stats = builder.finish()
    XCTAssertEqual(stats.currentStreak, 1)
    XCTAssertEqual(stats.longestStreak, 3)
    for line in StatsPicture.summary(stats) {
      XCTAssertTrue(r.body.contains(StatsSVG.escape(line)), "\(line) in the SVG")
    }
    // A square a day of the heatmap, each with its minutes.
    let grid = HeatmapGrid(stats)
    let squares = (0..<grid.columns).flatMap { c in (0..<7).compactMap { grid.focusMs(column: c, row: $0) } }
    XCTAssertEqual(r.body.components(separatedBy: "<title>").count - 1, squares.count, r.body)
    XCTAssertTrue(r.body.contains(": 75 min</title>"), r.body)
  }
}
