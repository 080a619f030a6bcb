import Foundation
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroRuntime
@testable import PomodoroTestFixtures
@testable import PomodoroWeb

/// Who may act: commands and settings need a paired browser; pairing by the code the desk shows
/// (or the one `pomodoro web pair` printed); six wrong codes lock pairing for a minute.
extension WebDeskTests {
  func post(_ path: String, _ body: String, cookie: String? = nil) -> MemoryHTTP.Exchange {
    ask("POST", path, body: body, cookie: cookie)
  }

  /// The cookie a good code gives, as a browser sends it back.
  func pairedCookie() throws -> String {
    let code = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    let r = post("/api/pair", "{\"code\":\"\(code)\"}")
    XCTAssertEqual(r.status, 200, r.body)
    return try XCTUnwrap(r.cookie)
  }

  func testCommandsNeedAPairedBrowser() throws {
    let refused = post("/api/command", "{\"cmd\":\"toggle\"}")
    XCTAssertEqual(refused.status, 401, refused.body)
    XCTAssertTrue(refused.body.contains("pair this browser first"), refused.body)
    XCTAssertEqual(
      post("/api/command", "{\"cmd\":\"toggle\"}", cookie: "pomodoro_pairing=" + String(repeating: "a", count: 64))
        .status, 401)
    settle()
    XCTAssertEqual(fixture.h.device.state.phase, .idle)

    let code = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    let paired = post("/api/pair", "{\"code\":\"\(code)\"}")
    XCTAssertEqual(paired.status, 200, paired.body)
    let setCookie = paired.response?.setCookie ?? ""
    for part in ["pomodoro_pairing=", "HttpOnly", "SameSite=Strict", "Max-Age=31536000", "Path=/"] {
      XCTAssertTrue(setCookie.contains(part), "\(part) in \(setCookie)")
    }
    XCTAssertEqual(post("/api/pair", "{\"code\":\"\(code)\"}").status, 403, "a printed code pairs one browser")
    let cookie = try XCTUnwrap(paired.cookie)
    let started = post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie)
    XCTAssertEqual(started.status, 200, started.body)
    XCTAssertTrue(started.body.hasPrefix("{\"ok\":true,\"state\":{\"phase\":\"running\""), started.body)
    XCTAssertEqual(fixture.h.device.state.phase, .running)
    // The device's refusal, readable.
    let set = post("/api/command", "{\"cmd\":\"set\",\"mode\":\"soft\"}", cookie: cookie)
    XCTAssertEqual(set.status, 409, set.body)
    XCTAssertTrue(set.body.contains("set works only while idle"), set.body)
    XCTAssertEqual(post("/api/command", "{\"cmd\":\"watch\"}", cookie: cookie).status, 400)
    XCTAssertEqual(post("/api/command", "{\"cmd\":\"launch\"}", cookie: cookie).status, 400)
    // Kept hashed: the token itself is nowhere in the state directory.
    let kept = try String(contentsOfFile: stateDirectory + "/pairings", encoding: .utf8)
    XCTAssertFalse(kept.contains(cookie.split(separator: "=")[1]))
    XCTAssertEqual(kept.split(separator: "\n").filter { $0.hasPrefix("$h1$") }.count, 1)
    // `pomodoro web forget`: the browser must pair again.
    XCTAssertEqual(try Pairings.forget(directory: stateDirectory), 1)
    XCTAssertEqual(post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie).status, 401)
  }

  /// Pair on the page: the desk shows a code (asking again shows the same one) that pairs, and
  /// leaves the screen once used; a press at the desk takes it away too.
  func testTheDeskShowsTheCodeThatPairs() throws {
    XCTAssertEqual(post("/api/pair", "{}").status, 202)
    settle(until: { self.fixture.h.device.pairing.code != nil })
    let shown = try XCTUnwrap(fixture.h.device.pairing.code)
    XCTAssertEqual(shown.count, 6)
    XCTAssertEqual(post("/api/pair", "{}").status, 202)
    settle()
    XCTAssertEqual(fixture.h.device.pairing.code, shown, "asking again keeps the code")
    XCTAssertTrue(lines.contains { $0.hasPrefix("a pairing code is on the desk's screen") }, "\(lines)")
    let r = post("/api/pair", "{\"code\":\"\(shown)\"}")
    XCTAssertEqual(r.status, 200, r.body)
    settle(until: { self.fixture.h.device.pairing.code == nil })
    XCTAssertTrue(lines.contains { $0.hasPrefix("paired a browser at 192.0.2.50") }, "\(lines)")

    XCTAssertEqual(post("/api/pair", "{}").status, 202)
    settle(until: { self.fixture.h.device.pairing.code != nil })
    fixture.h.press(fixture.h.config.buttonCancel)
    fixture.h.run(for: ms(300))
    XCTAssertNil(fixture.h.device.pairing.code, "a press at the desk takes it away")
  }

  /// Six wrong codes within a minute lock pairing for a minute, the right code too; said once,
  /// shown by the session; open again a minute on.
  func testWrongCodesLockPairingForAMinute() throws {
    let good = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    let wrong = good == "000000" ? "000001" : "000000"
    for attempt in 1...5 {
      let r = post("/api/pair", "{\"code\":\"\(wrong)\"}")
      XCTAssertEqual(r.status, 403, "attempt \(attempt): \(r.body)")
    }
    let sixth = post("/api/pair", "{\"code\":\"\(wrong)\"}")
    XCTAssertEqual(sixth.status, 429, sixth.body)
    XCTAssertTrue(sixth.body.contains("pairing is locked; try again in 60 s"), sixth.body)
    let right = post("/api/pair", "{\"code\":\"\(good)\"}")
    XCTAssertEqual(right.status, 429, "even the right code waits out the lock")
    XCTAssertEqual(post("/api/pair", "{}").status, 429, "and no code is shown")
    XCTAssertEqual(lines.filter { $0.contains("pairing locked") }.count, 1, "logged once: \(lines)")
    XCTAssertTrue(get("/api/session").body.contains("\"pairing_locked\":true"))
    clock.advance(by: seconds(60))
    XCTAssertTrue(get("/api/session").body.contains("\"pairing_locked\":false"))
    let code = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    XCTAssertEqual(post("/api/pair", "{\"code\":\"\(code)\"}").status, 200, "open again a minute on")
  }

  func testBodiesOverTheLimitAreRefused() throws {
    let big = "{\"cmd\":\"toggle\",\"pad\":\"" + String(repeating: "x", count: 5000) + "\"}"
    let r = post("/api/pair", big)
    XCTAssertEqual(r.status, 413, r.body)
    XCTAssertTrue(r.body.contains("over 4096 bytes"), r.body)
  }

  func testAPairedViewShowsNothingToOthers() throws {
    desk = makeDesk(view: .paired)
    settle(until: { self.desk.state != nil })
    for path in ["/api/state", "/events", "/api/history", "/api/settings"] {
      let r = get(path)
      XCTAssertEqual(r.status, 401, "\(path): \(r.body)")
      XCTAssertFalse(r.body.contains("phase"), r.body)
      XCTAssertFalse(r.streaming)
    }
    XCTAssertEqual(get("/api/session").status, 200, "who it is may always be asked")
    let cookie = try pairedCookie()
    let r = get("/api/state", cookie: cookie)
    XCTAssertEqual(r.status, 200, r.body)
    XCTAssertTrue(get("/events", cookie: cookie).streaming)
  }
}
