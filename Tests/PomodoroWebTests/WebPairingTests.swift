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
  func post(_ path: String, _ body: String, cookie: String? = nil) throws -> String {
    let head =
      "POST \(path) HTTP/1.1\r\nHost: desk.local\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)"
      + (cookie.map { "\r\nCookie: \($0)" } ?? "")
    return try request(head, body: body)
  }

  func body(_ response: String) -> String {
    response.range(of: "\r\n\r\n").map { String(response[$0.upperBound...]) } ?? ""
  }

  /// The cookie a good code gives, as a browser sends it back.
  func pairedCookie() throws -> String {
    let code = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    let r = try post("/api/pair", "{\"code\":\"\(code)\"}")
    XCTAssertEqual(status(r), 200, r)
    let header = r.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
    return String(header.dropFirst("set-cookie:".count).split(separator: ";")[0]).trimmingCharacters(in: .whitespaces)
  }

  func testCommandsNeedAPairedBrowser() throws {
    let refused = try post("/api/command", "{\"cmd\":\"toggle\"}")
    XCTAssertEqual(status(refused), 401, refused)
    XCTAssertTrue(body(refused).contains("pair this browser first"), refused)
    XCTAssertEqual(
      status(
        try post(
          "/api/command", "{\"cmd\":\"toggle\"}", cookie: "pomodoro_pairing=" + String(repeating: "a", count: 64))), 401
    )
    serve { false }
    XCTAssertEqual(fixture.h.device.state.phase, .idle)

    let code = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    let paired = try post("/api/pair", "{\"code\":\"\(code)\"}")
    XCTAssertEqual(status(paired), 200, paired)
    let setCookie = paired.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
    for part in ["pomodoro_pairing=", "HttpOnly", "SameSite=Strict", "Max-Age=31536000", "Path=/"] {
      XCTAssertTrue(setCookie.contains(part), "\(part) in \(setCookie)")
    }
    XCTAssertEqual(status(try post("/api/pair", "{\"code\":\"\(code)\"}")), 403, "a printed code pairs one browser")
    let cookie = String(setCookie.dropFirst("set-cookie:".count).split(separator: ";")[0]).trimmingCharacters(
      in: .whitespaces)
    let started = try post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie)
    XCTAssertEqual(status(started), 200, started)
    XCTAssertTrue(body(started).hasPrefix("{\"ok\":true,\"state\":{\"phase\":\"running\""), started)
    XCTAssertEqual(fixture.h.device.state.phase, .running)
    // The device's refusal, readable.
    let set = try post("/api/command", "{\"cmd\":\"set\",\"mode\":\"soft\"}", cookie: cookie)
    XCTAssertEqual(status(set), 409, set)
    XCTAssertTrue(body(set).contains("set works only while idle"), set)
    XCTAssertEqual(status(try post("/api/command", "{\"cmd\":\"watch\"}", cookie: cookie)), 400)
    XCTAssertEqual(status(try post("/api/command", "{\"cmd\":\"launch\"}", cookie: cookie)), 400)
    // Kept hashed: the token itself is nowhere in the state directory.
    let kept = try String(contentsOfFile: stateDirectory + "/pairings", encoding: .utf8)
    XCTAssertFalse(kept.contains(cookie.split(separator: "=")[1]))
    XCTAssertEqual(kept.split(separator: "\n").filter { $0.hasPrefix("$5$") }.count, 1)
    // `pomodoro web forget`: the browser must pair again.
    XCTAssertEqual(try Pairings.forget(directory: stateDirectory), 1)
    XCTAssertEqual(status(try post("/api/command", "{\"cmd\":\"toggle\"}", cookie: cookie)), 401)
  }

  /// Pair on the page: the desk shows a code (asking again shows the same one) that pairs, and
  /// leaves the screen once used; a press at the desk takes it away too.
  func testTheDeskShowsTheCodeThatPairs() throws {
    XCTAssertEqual(status(try post("/api/pair", "{}")), 202)
    serve { self.fixture.h.device.pairing.code != nil }
    let shown = try XCTUnwrap(fixture.h.device.pairing.code)
    XCTAssertEqual(shown.count, 6)
    XCTAssertEqual(status(try post("/api/pair", "{}")), 202)
    serve { false }
    XCTAssertEqual(fixture.h.device.pairing.code, shown, "asking again keeps the code")
    let r = try post("/api/pair", "{\"code\":\"\(shown)\"}")
    XCTAssertEqual(status(r), 200, r)
    serve { self.fixture.h.device.pairing.code == nil }
    XCTAssertNil(fixture.h.device.pairing.code, "the code leaves the screen")

    XCTAssertEqual(status(try post("/api/pair", "{}")), 202)
    serve { self.fixture.h.device.pairing.code != nil }
    fixture.h.press(fixture.h.config.buttonCancel)
    fixture.h.run(for: ms(300))
    XCTAssertNil(fixture.h.device.pairing.code, "a press at the desk takes it away")
  }

  func testWrongCodesLockPairingForAMinute() throws {
    let good = try Pairings.leaveCode(directory: stateDirectory, now: clock.now)
    let wrong = good == "000000" ? "000001" : "000000"
    for attempt in 1...5 {
      let r = try post("/api/pair", "{\"code\":\"\(wrong)\"}")
      XCTAssertEqual(status(r), 403, "attempt \(attempt): \(r)")
    }
    let sixth = try post("/api/pair", "{\"code\":\"\(wrong)\"}")
    XCTAssertEqual(status(sixth), 429, sixth)
    XCTAssertTrue(body(sixth).contains("pairing is locked"), sixth)
    let right = try post("/api/pair", "{\"code\":\"\(good)\"}")
    XCTAssertEqual(status(right), 429, "even the right code waits out the lock")
    XCTAssertEqual(lines.filter { $0.contains("pairing locked") }.count, 1, "logged once: \(lines)")
    let session = try request("GET /api/session HTTP/1.1\r\nHost: desk")
    XCTAssertTrue(body(session).contains("\"pairing_locked\":true"), session)
  }

  func testBodiesOverTheLimitAreRefused() throws {
    let big = "{\"cmd\":\"toggle\",\"pad\":\"" + String(repeating: "x", count: 5000) + "\"}"
    let r = try post("/api/pair", big)
    XCTAssertEqual(status(r), 413, r)
  }

  func testAPairedViewShowsNothingToOthers() throws {
    let link = DeviceLink(socketPath: fixture.path, clock: clock, log: Log(sink: { _, _ in }), shownIn: "the page")
    desk = try makeDesk(link: link, limits: HTTPServer.Limits(), view: .paired)
    serve(until: { self.desk.state != nil })
    for path in ["/api/state", "/events"] {
      let r = try request("GET \(path) HTTP/1.1\r\nHost: desk")
      XCTAssertEqual(status(r), 401, "\(path): \(r)")
      XCTAssertFalse(r.contains("phase"), r)
    }
    let cookie = try pairedCookie()
    let r = try request("GET /api/state HTTP/1.1\r\nHost: desk\r\nCookie: \(cookie)")
    XCTAssertEqual(status(r), 200, r)
  }
}
