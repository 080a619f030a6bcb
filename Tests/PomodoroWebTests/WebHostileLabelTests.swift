import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import PomodoroWeb
import XCTest

/// Issue 46 item 1, the page: each hostile label set from the page, then what the page's script
/// reads (the command's reply, `GET /api/state`, the stream's `state` event) parsed by Python's
/// json module, the label exactly as typed in each.
extension WebDeskTests {
  func testThePagesJSONParsesForEveryHostileLabel() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let cookie = try pairedCookie()
    let events = get("/events")
    var checks: [RealParsers.Check] = []
    for label in labels {
      let body = FlatJSON.encode([("cmd", .string("label")), ("text", .string(label.text))])
      let reply = post("/api/command", body, cookie: cookie)
      XCTAssertEqual(reply.status, 200, reply.body)
      checks.append(.init("json:state.label", reply.body, label.text))
      settle(until: { self.desk.state?.contains("\"label\":") == true && self.fixture.h.device.state.label == label })
      let state = get("/api/state")
      checks.append(.init("json:label", state.body, label.text))
      checks.append(.init("json:recent_labels.0", state.body, label.text))
      let data = events.received.split(separator: "\n").filter { $0.hasPrefix("data: ") }
      let last = try XCTUnwrap(data.last).dropFirst("data: ".count)
      checks.append(.init("json:label", String(last), label.text))
    }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(checks.count)")
  }

  /// The page's week by label (`GET /api/history`), from records with each hostile label: every
  /// row's `label` and `name` parsed as the label recorded.
  func testThePagesHistoryParsesForEveryHostileLabel() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let lines = labels.enumerated().map { i, label in
      String(Self.record(daysAgo: 0, minutes: Int64(100 - i)).dropLast()) + ",\"label\":"
        + FlatJSON.quote(label.text) + "}"
    }
    try storingDesk(history: lines)
    let r = get("/api/history?days=1")
    XCTAssertEqual(r.status, 200, r.body)
    var checks: [RealParsers.Check] = []
    for (i, label) in labels.enumerated() {
      checks.append(.init("json:week_by_label.\(i).label", r.body, label.text))
      checks.append(.init("json:week_by_label.\(i).name", r.body, label.text))
    }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(checks.count)")
  }
}
