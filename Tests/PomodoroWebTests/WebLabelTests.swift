import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import PomodoroWeb
import XCTest

/// The page's label field and interruption buttons: `POST /api/command` with the label and
/// interrupt commands, paired only, refused with the label's own message, and a flood of fuzzed
/// labels that never touches the running timer.
extension WebDeskTests {
  func labelBody(_ text: String) -> String {
    FlatJSON.encode([("cmd", .string("label")), ("text", .string(text))])
  }

  func stateField(_ body: String, _ name: String) -> JSONValue? {
    guard let start = body.range(of: "\"state\":") else { return nil }
    return FlatJSON.decode(String(body[start.upperBound...].dropLast()))?[name]
  }

  func testALabelIsSetAndClearedFromThePagePairedOnly() throws {
    let refused = post("/api/command", labelBody("Report"))
    XCTAssertEqual(refused.status, 401, refused.body)
    settle()
    XCTAssertNil(fixture.h.device.state.label, "an unpaired browser labels nothing")
    let cookie = try pairedCookie()
    let set = post("/api/command", labelBody("  <img src=x onerror=alert(1)>  "), cookie: cookie)
    XCTAssertEqual(set.status, 200, set.body)
    XCTAssertEqual(stateField(set.body, "label"), .string("<img src=x onerror=alert(1)>"), "as typed, trimmed")
    XCTAssertEqual(fixture.h.device.state.label?.text, "<img src=x onerror=alert(1)>")
    XCTAssertEqual(stateField(set.body, "recent_labels"), .list([.string("<img src=x onerror=alert(1)>")]))
    // The stream says it to every page.
    settle()
    XCTAssertTrue(desk.state?.contains("\"label\":\"<img src=x onerror=alert(1)>\"") ?? false, desk.state ?? "")

    let long = String(repeating: "x", count: SessionLabel.maxCharacters + 1)
    let tooLong = post("/api/command", labelBody(long), cookie: cookie)
    XCTAssertEqual(tooLong.status, 400, tooLong.body)
    XCTAssertTrue(
      tooLong.body.contains(
        "label: a label is at most 40 characters and 160 bytes of UTF-8, got 41 characters and 41 bytes; shorten it"),
      tooLong.body)
    let tab = post("/api/command", labelBody("a\tb"), cookie: cookie)
    XCTAssertEqual(tab.status, 400, tab.body)
    XCTAssertTrue(tab.body.contains("without control characters (U+0009 found)"), tab.body)
    XCTAssertEqual(
      fixture.h.device.state.label?.text, "<img src=x onerror=alert(1)>", "a refused label changes nothing")
    let notText = post("/api/command", "{\"cmd\":\"label\",\"text\":5}", cookie: cookie)
    XCTAssertEqual(notText.status, 400, notText.body)

    let cleared = post("/api/command", "{\"cmd\":\"label\"}", cookie: cookie)
    XCTAssertEqual(cleared.status, 200, cleared.body)
    XCTAssertNil(stateField(cleared.body, "label"))
    XCTAssertNil(fixture.h.device.state.label)
  }

  /// The interruption buttons: refused (409, the device's reason) unless a focus runs, where
  /// `can_interrupt` is true; each kind counted, the timer untouched.
  func testInterruptionsFromThePage() throws {
    let cookie = try pairedCookie()
    XCTAssertEqual(
      stateField(post("/api/command", "{\"cmd\":\"status\"}", cookie: cookie).body, "can_interrupt"), .bool(false))
    let idle = post("/api/command", "{\"cmd\":\"interrupt\",\"kind\":\"internal\"}", cookie: cookie)
    XCTAssertEqual(idle.status, 409, idle.body)
    XCTAssertTrue(idle.body.contains("interruptions are marked while a focus runs; the timer is idle"), idle.body)
    let started = post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie)
    XCTAssertEqual(stateField(started.body, "can_interrupt"), .bool(true), started.body)
    let before = fixture.h.device.state.remaining(at: clock.now)
    for kind in ["internal", "external", "external"] {
      let r = post("/api/command", "{\"cmd\":\"interrupt\",\"kind\":\"\(kind)\"}", cookie: cookie)
      XCTAssertEqual(r.status, 200, r.body)
    }
    let status = post("/api/command", "{\"cmd\":\"status\"}", cookie: cookie)
    XCTAssertEqual(stateField(status.body, "interruptions"), .int(3), status.body)
    XCTAssertEqual(stateField(status.body, "interruptions_internal"), .int(1))
    XCTAssertEqual(stateField(status.body, "interruptions_external"), .int(2))
    XCTAssertEqual(fixture.h.device.state.phase, .running)
    XCTAssertEqual(fixture.h.device.state.remaining(at: clock.now), before, "the timer untouched")
    // One marked elsewhere (`pomodoro ctl interrupt`, the knob) reaches the page's stream.
    settle()
    let ctl = try fixture.connect()
    defer { close(ctl) }
    XCTAssertTrue(fixture.reply(ctl, ControlCommand.interrupt(.internal).requestLine).ok)
    settle(until: { self.desk.state?.contains("\"interruptions\":4,") ?? false })
    XCTAssertEqual(
      post("/api/command", "{\"cmd\":\"interrupt\",\"kind\":\"other\"}", cookie: cookie).status, 400, "no such kind")
  }

  /// A session labelled and interrupted from the page is recorded with both: the history's line
  /// (what `pomodoro history`, the statistics and the page's week read). The interactive
  /// simulator Tests/web drives keeps no history, so this is where the page's label is followed
  /// into it.
  func testThePagesLabelAndInterruptionsAreRecorded() throws {
    fixture = try ControlFixture(storing: true)
    desk = makeDesk()
    settle(until: { self.desk.state != nil })
    let cookie = try pairedCookie()
    XCTAssertEqual(post("/api/command", labelBody("Write the report"), cookie: cookie).status, 200)
    XCTAssertEqual(post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie).status, 200)
    for kind in ["internal", "external", "external"] {
      XCTAssertEqual(post("/api/command", "{\"cmd\":\"interrupt\",\"kind\":\"\(kind)\"}", cookie: cookie).status, 200)
    }
    fixture.h.clock.advance(by: seconds(90))
    XCTAssertEqual(post("/api/command", "{\"cmd\":\"cancel\"}", cookie: cookie).status, 200)
    let items = try fixture.h.device.historyItems(days: 1).get()
    let last = try XCTUnwrap(items.last.flatMap(ControlProtocol.decodeItem)?.fields, "\(items)")
    XCTAssertEqual(last["label"], .string("Write the report"), "\(items)")
    XCTAssertEqual(last["interruptions_internal"], .int(1))
    XCTAssertEqual(last["interruptions_external"], .int(2))
    XCTAssertEqual(last["outcome"], .string("cancelled"))
  }

  /// A goal changed elsewhere (`ctl config set daily_goal`) reaches the page's stream, though
  /// nothing else of the state changed.
  func testAChangedGoalReachesTheStream() throws {
    XCTAssertTrue(desk.state?.contains("\"goal\":0,") ?? false, desk.state ?? "")
    let ctl = try fixture.connect()
    defer { close(ctl) }
    let said = fixture.exchange(ctl, ControlCommand.configSet(key: "daily_goal", value: "3").requestLine)
    XCTAssertTrue(said.last?.hasPrefix("{\"ok\":true") ?? false, "\(said)")
    settle(until: { self.desk.state?.contains("\"today\":0,\"goal\":3,\"goal_met\":false") ?? false })
  }

  /// 10,000 fuzzed labels (markup, quotes, emoji, combining marks, control characters, lengths
  /// around the limit) through the page's route while a focus runs: each answered 200 with the
  /// label the rules make of it, or 400 with the rule's own message; no trap, no other answer,
  /// and the running timer kept.
  func testFuzzedLabelsThroughThePage() throws {
    let cookie = try pairedCookie()
    XCTAssertEqual(post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie).status, 200)
    let running = fixture.h.device.state
    var fuzz = LabelFuzz(seed: 35)
    var expected: SessionLabel? = nil
    var taken = 0
    var refused = 0
    for i in 0..<10_000 {
      let text = fuzz.next()
      let r = post("/api/command", labelBody(text), cookie: cookie)
      switch SessionLabel.parse(text) {
      case .success(let label):
        XCTAssertEqual(r.status, 200, "#\(i) \(text.debugDescription): \(r.body)")
        XCTAssertEqual(stateField(r.body, "label"), label.map { .string($0.text) }, "#\(i) \(text.debugDescription)")
        expected = label
        taken += 1
      case .failure(let refusal):
        XCTAssertEqual(r.status, 400, "#\(i) \(text.debugDescription): \(r.body)")
        XCTAssertEqual(
          FlatJSON.decode(r.body)?["error"], .string("label: " + refusal.message), "#\(i) \(text.debugDescription)")
        refused += 1
      }
      if r.status != 200 && r.status != 400 { break }
    }
    XCTAssertGreaterThan(taken, 2000)
    XCTAssertGreaterThan(refused, 2000)
    let now = fixture.h.device.state
    XCTAssertEqual(now.label, expected, "the last label taken")
    XCTAssertEqual(now.phase, .running)
    XCTAssertEqual(now.remaining(at: clock.now), running.remaining(at: clock.now), "the timer kept")
    XCTAssertEqual(now.duration, running.duration)
  }
}
