import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroWeb

/// The web page's server against a device on the mocks, through its control socket, over the
/// in-memory transport (`MemoryHTTP`): any machine, no libmicrohttpd, no HTTP socket. The loop's
/// turns are taken by hand, in the loop's order, and time is the test's (a virtual clock): what
/// a test waits for is an event, never a while.
final class WebDeskTests: XCTestCase {
  var fixture: ControlFixture!
  var desk: WebDesk!
  var http: MemoryHTTP!
  let clock = VirtualClock(start: Instant(nanoseconds: 1_000_000_000))
  var lines: [String] = []
  var stateDirectory = ""
  /// Device sockets served beside the fixture's (a device back after a restart).
  var otherServers: [ControlServer] = []
  /// The device's socket is not served: a device that hangs.
  var deviceHangs = false

  override func setUpWithError() throws {
    fixture = try ControlFixture()
    stateDirectory = NSTemporaryDirectory() + "web-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    desk = makeDesk(streams: 2, streamsPerAddress: 2)
    settle(until: { self.desk.state != nil })
  }

  /// A desk for the fixture's device over a new in-memory transport.
  func makeDesk(
    streams: Int = 16, streamsPerAddress: Int = 4, view: WebView = .open,
    hosts: AllowedHosts = AllowedHosts(hostName: "desk", addresses: ["192.0.2.7"]),
    rereadHosts: (() -> AllowedHosts)? = nil, wall: @escaping () -> WallTime = WallTime.now
  ) -> WebDesk {
    let link = DeviceLink(socketPath: fixture.path, clock: clock, log: Log(sink: { _, _ in }), shownIn: "the page")
    var limits = HTTPLimits()
    limits.streams = streams
    limits.streamsPerAddress = streamsPerAddress
    http = MemoryHTTP(limits: limits)
    return WebDesk(
      link: link, server: http, hosts: hosts, rereadHosts: rereadHosts, view: view,
      pairings: Pairings(directory: stateDirectory), clock: clock, wall: wall, log: Log(sink: { self.lines.append($1) })
    )
  }

  override func tearDown() {
    desk = nil
    fixture = nil
    try? FileManager.default.removeItem(atPath: stateDirectory)
  }

  /// One turn of the loops: the device's socket (its own loop), then `pomodoro web`'s sources in
  /// the order its loop hands them a wake (the link, the transport, the desk). Nothing blocks:
  /// the device's socket is local, so what one side sends is there for the other's next turn.
  func turn() {
    if !deviceHangs {
      fixture.server.turn()
      for server in otherServers { server.turn() }
    }
    for source in [desk.link, http, desk] as [LoopSource] {
      source.handle(Wake(readable: source.readDescriptors, writable: source.writeDescriptors))
    }
  }

  /// Turns until `done`; a few always do (fails after 200).
  func settle(until done: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
    for _ in 0..<200 {
      if done() { return }
      turn()
    }
    XCTFail("never came", file: file, line: line)
  }

  /// Turns enough for anything under way to end (a reply, a watch line).
  func settle() { for _ in 0..<20 { turn() } }

  /// A request answered: it arrives, is handed over at the transport's turn, and its answer
  /// comes (at once, or from the device).
  @discardableResult
  func ask(
    _ method: String, _ path: String, body: String = "", host: String? = "desk.local", origin: String? = nil,
    cookie: String? = nil, client: String = "192.0.2.50", file: StaticString = #filePath, line: UInt = #line
  ) -> MemoryHTTP.Exchange {
    let exchange = http.arrive(
      MemoryHTTP.request(method, path, body: body, host: host, origin: origin, cookie: cookie, client: client))
    settle(until: { exchange.response != nil }, file: file, line: line)
    return exchange
  }

  func get(_ path: String, host: String? = "desk.local", origin: String? = nil, cookie: String? = nil)
    -> MemoryHTTP.Exchange
  {
    ask("GET", path, host: host, origin: origin, cookie: cookie)
  }

  func testTheStateIsServedToTheDesksOwnNames() throws {
    for host in ["desk", "desk.local:8080", "192.0.2.7", "localhost:8080", "127.0.0.1", "[::1]:8080"] {
      let r = get("/api/state", host: host)
      XCTAssertEqual(r.status, 200, "\(host): \(r.body)")
      XCTAssertTrue(r.body.hasPrefix("{\"phase\":\"idle\",\"mode\":\"focus\",\"remaining_ms\":1500000"), r.body)
      XCTAssertFalse(
        r.response?.headers.contains { $0.0.lowercased().hasPrefix("access-control-allow") } ?? true, "no CORS header")
    }
  }

  /// DNS rebinding: a page rebound to the desk carries its own name as Host (and as Origin, so
  /// an Origin check alone would pass it): 421. Another site's page: 403.
  func testOtherHostsAndOtherSitesAreRefused() throws {
    let rebound = get("/api/state", host: "attacker.example", origin: "http://attacker.example")
    XCTAssertEqual(rebound.status, 421, rebound.body)
    XCTAssertTrue(rebound.body.contains("this desk answers to its own name and addresses only"), rebound.body)
    XCTAssertFalse(rebound.body.contains("phase"))
    let missing = get("/api/state", host: nil)
    XCTAssertEqual(missing.status, 421, missing.body)
    let foreign = get("/api/state", host: "desk.local", origin: "https://evil.example")
    XCTAssertEqual(foreign.status, 403, foreign.body)
    XCTAssertEqual(get("/api/state", host: "desk.local", origin: "http://desk.local:8080").status, 200, "its own page")
    // Another port of the same host is another site (SameSite cookies ignore ports).
    for other in ["http://desk.local", "http://127.0.0.1:9", "https://desk.local:8080"] {
      XCTAssertEqual(get("/api/state", host: "desk.local", origin: other).status, 403, other)
    }
    XCTAssertEqual(lines.filter { $0.contains("(421)") }.count, 2, "\(lines)")
  }

  /// An address the machine got after the server started (DHCP) is read again on the first
  /// request that names it, at most every 10 s.
  /// Issue 34 item 8: two Host headers are a 400 (RFC 9112), whatever the first says.
  func testTwoHostHeadersAre400() throws {
    var request = MemoryHTTP.request("GET", "/api/state")
    request.hostHeaders = 2
    let r = http.arrive(request)
    settle(until: { r.response != nil })
    XCTAssertEqual(r.status, 400, r.body)
    XCTAssertEqual(get("/api/state").status, 200)
  }

  func testANewAddressIsReadAgain() throws {
    var addresses = ["192.0.2.7"]
    var reads = 0
    desk = makeDesk(
      hosts: AllowedHosts(hostName: "desk", addresses: addresses),
      rereadHosts: {
        reads += 1
        return AllowedHosts(hostName: "desk", addresses: addresses)
      })
    settle(until: { self.desk.state != nil })
    addresses.append("198.51.100.9")
    XCTAssertEqual(get("/api/state", host: "198.51.100.9:8080").status, 421, "read at most every 10 s")
    XCTAssertEqual(reads, 0)
    clock.advance(by: seconds(10))
    XCTAssertEqual(get("/api/state", host: "198.51.100.9:8080").status, 200)
    XCTAssertEqual(reads, 1)
    XCTAssertEqual(get("/api/state", host: "203.0.113.1").status, 421, "still not any address")
    XCTAssertEqual(reads, 1, "not again within 10 s")
  }

  /// Nothing here acts: another method is 405, and the device's state is what it was.
  func testNoRequestActs() throws {
    let post = ask("POST", "/api/state", body: "{\"cmd\":\"start\"}\n")
    XCTAssertEqual(post.status, 405, post.body)
    for path in ["/api/command?cmd=start", "/api/pair?code=123456"] {
      XCTAssertEqual(get(path).status, 405, path)
    }
    XCTAssertEqual(ask("DELETE", "/app.js").status, 405)
    XCTAssertEqual(get("/nothing-here").status, 404)
    settle()
    XCTAssertEqual(fixture.h.device.state.phase, .idle)
  }

  /// The stream: the whole state at once, then each change as it happens (the device's own
  /// button); a third stream from the same address, over its limit of two, ends its oldest.
  func testEventsCarryTheStateAndEveryChange() throws {
    let first = get("/events")
    XCTAssertEqual(first.response?.contentType, "text/event-stream")
    XCTAssertTrue(first.received.hasPrefix("event: state\ndata: {\"phase\":\"idle\""), first.received)
    fixture.h.press(fixture.h.config.buttonStart)
    fixture.h.run(for: ms(300))
    settle(until: { first.received.contains("data: {\"phase\":\"running\"") })
    XCTAssertEqual(first.events, ["state", "state"])

    let second = get("/events")
    XCTAssertEqual(http.streams.count, 2)
    let third = get("/events")
    XCTAssertTrue(third.streaming)
    XCTAssertTrue(first.ended, "the oldest ended for the newest")
    XCTAssertFalse(second.ended)
    XCTAssertEqual(http.streams.count, 2)
    XCTAssertEqual(http.streams.oldest, second.id)
    XCTAssertEqual(desk.streams, [second.id, third.id])
  }

  /// A stream from `client`, answered.
  func stream(from client: String, _ method: String = "GET", file: StaticString = #filePath, line: UInt = #line)
    -> MemoryHTTP.Exchange
  {
    let exchange = http.arrive(MemoryHTTP.request(method, "/events", client: client))
    settle(until: { exchange.response != nil }, file: file, line: line)
    return exchange
  }

  /// No address ends another's stream: one churning streams ends only its own oldest (its limit
  /// is two here); at the limit of all (four), a newcomer takes the oldest stream of the address
  /// holding the most only when that one holds two more than it, else it is refused (503); the
  /// owner's lone stream lives through it all.
  func testNoAddressEndsAnothersStream() throws {
    desk = makeDesk(streams: 4, streamsPerAddress: 2)
    settle(until: { self.desk.state != nil })
    let owner = stream(from: "192.0.2.10")
    XCTAssertTrue(owner.streaming)
    var churned: [MemoryHTTP.Exchange] = []
    for _ in 0..<10 { churned.append(stream(from: "192.0.2.66")) }
    XCTAssertTrue(churned.allSatisfy(\.streaming))
    XCTAssertEqual(churned.filter { !$0.ended }.map(\.id), churned.suffix(2).map(\.id), "its own oldest ended")
    XCTAssertFalse(owner.ended)
    let b = stream(from: "192.0.2.67")
    XCTAssertTrue(b.streaming)
    XCTAssertEqual(http.streams.count, 4, "every place taken")
    let b2 = stream(from: "192.0.2.67")
    XCTAssertEqual(b2.status, 503, "two would not leave .66 more than .67")
    XCTAssertFalse(b2.streaming)
    let c = stream(from: "192.0.2.68")
    XCTAssertTrue(c.streaming, "the address holding the most gives up its oldest")
    XCTAssertEqual(churned.filter { !$0.ended }.map(\.id), churned.suffix(1).map(\.id))
    for other in ["192.0.2.69", "192.0.2.70"] { XCTAssertEqual(stream(from: other).status, 503, other) }
    XCTAssertFalse(owner.ended, "the owner's stream lived through it all")
    XCTAssertFalse(b.ended)
    XCTAssertEqual(desk.streams.count, 4)
    fixture.h.press(fixture.h.config.buttonStart)
    fixture.h.run(for: ms(300))
    settle(until: { owner.received.contains("data: {\"phase\":\"running\"") })
  }

  /// At the limit, a stream whose client left (found out by a comment written to each) is no
  /// reason to refuse a newcomer: its place is taken, and no live stream is ended.
  func testAStreamWhoseClientLeftMakesRoom() throws {
    desk = makeDesk(streams: 2, streamsPerAddress: 1)
    settle(until: { self.desk.state != nil })
    let owner = stream(from: "192.0.2.10")
    let gone = stream(from: "192.0.2.11")
    http.leave(gone)
    let newcomer = stream(from: "192.0.2.12")
    XCTAssertTrue(newcomer.streaming, "\(newcomer.status ?? 0)")
    XCTAssertFalse(owner.ended)
    XCTAssertEqual(desk.streams, [owner.id, newcomer.id])
  }

  /// `HEAD /events` answers a stream's headers and opens none: it ends no stream, even at the
  /// limit.
  func testHeadOpensNoStream() throws {
    let first = stream(from: "192.0.2.10")
    let second = stream(from: "192.0.2.10")
    for _ in 0..<3 {
      let head = stream(from: "192.0.2.10", "HEAD")
      XCTAssertEqual(head.status, 200)
      XCTAssertEqual(head.response?.contentType, "text/event-stream")
      XCTAssertFalse(head.streaming)
    }
    XCTAssertFalse(first.ended)
    XCTAssertFalse(second.ended)
    XCTAssertEqual(desk.streams, [first.id, second.id])
  }

  /// A comment every 15 s keeps each stream; a stream whose client left is found out by it and
  /// dropped.
  func testKeepAliveCommentsFindAClientGone() throws {
    let staying = get("/events")
    let leaving = get("/events")
    http.leave(leaving)
    clock.advance(by: WebDesk.keepAlive - 1)
    settle()
    XCTAssertFalse(staying.received.contains(": keep-alive"), "not before 15 s")
    XCTAssertEqual(desk.streams.count, 2)
    clock.advance(by: 1)
    settle(until: { staying.received.hasSuffix(": keep-alive\n\n") })
    XCTAssertEqual(desk.streams, [staying.id], "the client gone is dropped")
    clock.advance(by: WebDesk.keepAlive)
    settle(until: { staying.received.components(separatedBy: ": keep-alive").count == 3 })
  }

  /// The device gone, then back (a restart): the stream says offline, then the state again,
  /// though it is the state it said before; meanwhile `/api/state` is 503.
  func testTheStreamSaysTheStateAgainWhenTheDeskComesBack() throws {
    let stream = get("/events")
    fixture.server.close()
    settle(until: { stream.events.last == "offline" })
    XCTAssertTrue(stream.received.hasSuffix("event: offline\ndata: {}\n\n"), stream.received)
    XCTAssertEqual(get("/api/state").status, 503)
    let late = get("/events")
    XCTAssertEqual(late.events, ["offline"], "a stream opened while the desk is away starts offline")
    let again = try ControlServer(path: fixture.path, device: fixture.h.device, log: Log(sink: { _, _ in }))
    otherServers = [again]
    defer { again.close() }
    // The link tries again after its back-off.
    clock.advance(by: seconds(1))
    settle(until: { stream.events.last == "state" })
    let after = stream.received.components(separatedBy: "event: offline\ndata: {}\n\n").last ?? ""
    XCTAssertTrue(after.hasPrefix("event: state\ndata: {\"phase\":\"idle\""), stream.received)
    XCTAssertEqual(stream.events, ["state", "offline", "state"])
    XCTAssertEqual(late.events, ["offline", "state"])
    XCTAssertEqual(get("/api/state").status, 200)
  }

  /// A stream asked for while the desk goes away, in each order the loop may take them: the
  /// request handed over before the link finds the device gone (state, then offline), or after
  /// (offline at once). Either way its last word is offline.
  func testAStreamOpenedWhileTheDeskGoesAway() throws {
    for linkFirst in [false, true] {
      // A desk and device of their own for each order.
      tearDown()
      try setUpWithError()
      let stream = http.arrive(MemoryHTTP.request("GET", "/events"))
      fixture.server.close()
      // The device has closed its socket; nothing has been handed over yet.
      XCTAssertFalse(stream.handled)
      if linkFirst {
        desk.link.handle(Wake(readable: desk.link.readDescriptors))
        XCTAssertFalse(desk.link.available)
        http.handle(Wake())
        XCTAssertEqual(stream.events, ["offline"])
      } else {
        http.handle(Wake())
        XCTAssertEqual(stream.events, ["state"], "handed over while the link still has the device")
        desk.link.handle(Wake(readable: desk.link.readDescriptors))
        XCTAssertEqual(stream.events, ["state", "offline"])
      }
      XCTAssertEqual(desk.streams, [stream.id])
    }
  }

  /// A device that hangs: a request waits for it, then is answered 504 after the link's answer
  /// timeout, and the streams say offline.
  func testADeviceThatDoesNotAnswerIs504() throws {
    let stream = get("/events")
    deviceHangs = true
    let settings = http.arrive(MemoryHTTP.request("GET", "/api/settings"))
    settle()
    XCTAssertTrue(settings.handled)
    XCTAssertNil(settings.response, "it waits for the device")
    clock.advance(by: desk.link.answerTimeout)
    settle(until: { settings.response != nil })
    XCTAssertEqual(settings.status, 504, settings.body)
    XCTAssertTrue(settings.body.contains("the desk did not answer within 5s"), settings.body)
    XCTAssertEqual(stream.events.last, "offline")
    XCTAssertEqual(get("/api/settings").status, 503, "unavailable: not asked")
  }

  /// The settings: read with where each comes from, changed and reset by a paired browser.
  func testSettingsAreReadChangedAndReset() throws {
    let list = get("/api/settings")
    XCTAssertEqual(list.status, 200, list.body)
    XCTAssertTrue(list.body.hasPrefix("{\"settings\":[{\"key\":"), list.body)
    XCTAssertTrue(list.body.contains("{\"key\":\"focus\",\"value\":\"25m\",\"from\":\"default\""), list.body)
    XCTAssertEqual(ask("POST", "/api/settings", body: "{\"key\":\"focus\",\"value\":\"30m\"}").status, 401)
    let cookie = try pairedCookie()
    let set = ask("POST", "/api/settings", body: "{\"key\":\"focus\",\"value\":\"30m\"}", cookie: cookie)
    XCTAssertEqual(set.status, 200, set.body)
    XCTAssertTrue(set.body.hasPrefix("{\"setting\":{\"key\":\"focus\",\"value\":\"30m\",\"from\":"), set.body)
    settle(until: { self.fixture.h.device.state.duration == minutes(30) })
    let bad = ask("POST", "/api/settings", body: "{\"key\":\"focus\",\"value\":\"soon\"}", cookie: cookie)
    XCTAssertEqual(bad.status, 400, bad.body)
    XCTAssertEqual(ask("POST", "/api/settings", body: "{\"key\":\"focus\"}", cookie: cookie).status, 400)
    let reset = ask("POST", "/api/settings", body: "{\"key\":\"focus\",\"reset\":true}", cookie: cookie)
    XCTAssertEqual(reset.status, 200, reset.body)
    XCTAssertTrue(reset.body.contains("\"value\":\"25m\""), reset.body)
    settle(until: { self.fixture.h.device.state.duration == minutes(25) })
  }

  /// The sound's settings (docs/sound.md) are the page's too: listed to anyone, changed by a
  /// paired browser, a bad tune refused with where it stops being one.
  func testTheSoundSettingsAreThePages() throws {
    let list = get("/api/settings")
    for row in [
      "{\"key\":\"volume\",\"value\":\"6\"", "{\"key\":\"tick\",\"value\":\"off\"",
      "{\"key\":\"alarm_tune\",\"value\":\"chime\"",
    ] {
      XCTAssertTrue(list.body.contains(row), "\(row) in \(list.body)")
    }
    XCTAssertEqual(ask("POST", "/api/settings", body: "{\"key\":\"volume\",\"value\":\"3\"}").status, 401)
    let cookie = try pairedCookie()
    let set = ask("POST", "/api/settings", body: "{\"key\":\"volume\",\"value\":\"3\"}", cookie: cookie)
    XCTAssertEqual(set.status, 200, set.body)
    settle(until: { self.fixture.h.device.config.volume == 3 })
    let tick = ask("POST", "/api/settings", body: "{\"key\":\"tick\",\"value\":\"fade\"}", cookie: cookie)
    XCTAssertEqual(tick.status, 200, tick.body)
    settle(until: { self.fixture.h.device.config.tick == .fade })
    let bad = ask(
      "POST", "/api/settings", body: "{\"key\":\"alarm_tune\",\"value\":\"x:d=4:c,e#\"}", cookie: cookie)
    XCTAssertEqual(bad.status, 400, bad.body)
    XCTAssertTrue(bad.body.contains("at character 10: expected a sharp only on c, d, f, g or a"), bad.body)
  }
}
