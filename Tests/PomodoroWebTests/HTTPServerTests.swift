import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import PomodoroWeb
import XCTest

/// libmicrohttpd's transport on 127.0.0.1, a port of its own: what it hands the handler of a
/// real request and what the client gets of the answer, a deferred answer, a stream, and the
/// desk served through it as `pomodoro web` serves it. Everything above the transport is
/// `WebDeskTests`' (in memory). Driven from this thread as the one loop would drive it, waking
/// on the client's and the server's descriptors (never sleeping).
final class HTTPServerTests: XCTestCase {
  var server: HTTPServer!
  let clock = SystemClock()
  var seen: [HTTPRequest] = []
  /// What the handler answers.
  var answer: (HTTPRequest) -> HTTPResponse = { _ in .json("{}") }
  /// Other loop sources served beside the server (a desk's link, its device's socket).
  var beside: [LoopSource] = []
  var extraTurn: () -> Void = {}

  override func setUpWithError() throws {
    guard HTTPServer.available else { throw XCTSkip("built without libmicrohttpd: sudo apt install libmicrohttpd-dev") }
    if let why = HTTPServer.loadError { throw XCTSkip(why) }
    var limits = HTTPLimits()
    limits.streams = 2
    server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits, queryNames: ["days"], clock: clock)
    server.handler = { [unowned self] request in
      seen.append(request)
      return answer(request)
    }
  }

  override func tearDown() {
    beside = []
    server = nil
  }

  /// A connection to the server, from `source` (another loopback address: another client).
  func connect(from source: String = "127.0.0.1") -> Int32 {
    let fd = socket(AF_INET, streamSocketType, 0)
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    local.sin_addr.s_addr = inet_addr(source)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    XCTAssertEqual(bound, 0, "bind to \(source)")
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(server.port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    XCTAssertEqual(connected, 0)
    UnixSocket.setNonBlocking(fd)
    return fd
  }

  /// Serves until `done` with what `fd` received (or 5 s pass: a failure, not a wait): each turn
  /// waits in poll for the client's socket, the server's or a source's descriptor, or the
  /// server's own deadline.
  @discardableResult
  func serve(
    _ fd: Int32, into got: inout [UInt8], within limit: Nanoseconds = seconds(5), until done: (String) -> Bool
  ) -> String {
    let end = clock.now + limit
    var buffer = [UInt8](repeating: 0, count: 65536)
    let sources: [LoopSource] = [server] + beside
    while !done(String(decoding: got, as: UTF8.self)) && clock.now < end {
      var fds = ([fd] + sources.flatMap(\.readDescriptors)).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let timeout = server.deadline.map { max(0, min(100, ($0 - clock.now) / ms(1))) } ?? 100
      _ = poll(&fds, nfds_t(fds.count), Int32(timeout))
      extraTurn()
      for source in sources { source.handle(Wake(readable: source.readDescriptors, writable: source.writeDescriptors)) }
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 { got += buffer[0..<n] }
    }
    return String(decoding: got, as: UTF8.self)
  }

  /// A raw HTTP/1.1 request on a connection of its own, and the whole answer.
  func exchange(_ head: String, body: String = "") -> String {
    let fd = connect()
    defer { close(fd) }
    XCTAssertTrue(UnixSocket.writeAll(fd, Array((head + "\r\n\r\n" + body).utf8)))
    var got: [UInt8] = []
    return serve(fd, into: &got, until: complete)
  }

  func complete(_ text: String) -> Bool {
    guard let split = text.range(of: "\r\n\r\n"),
      let length = text[..<split.lowerBound].split(separator: "\r\n").first(where: {
        $0.lowercased().hasPrefix("content-length:")
      }).flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
    else { return false }
    return text.utf8.count - text[..<split.upperBound].utf8.count >= length
  }

  func status(_ response: String) -> Int? {
    response.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
  }

  /// A server of a few places for the tests of its connections: `limits` changed by `change`.
  func restart(_ change: (inout HTTPLimits) -> Void) throws {
    var limits = HTTPLimits()
    change(&limits)
    server = nil
    server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits, clock: clock)
    server.handler = { [unowned self] request in
      seen.append(request)
      return answer(request)
    }
  }

  /// Serves a few turns (the server accepts and reads what its clients sent).
  func turns(_ n: Int) {
    for _ in 0..<n {
      var fds = server.readDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      _ = poll(&fds, nfds_t(fds.count), 20)
      server.handle(Wake(readable: server.readDescriptors))
    }
  }

  /// Clients that send their headers slowly (a line now and then, never the blank line that ends
  /// them) take every place from one address; a newcomer from another is answered all the same:
  /// the oldest of them gives up its place (their deadline, 10 minutes here, is not what frees it).
  func testANewcomerIsAnsweredWhileSlowClientsHoldEveryPlace() throws {
    try restart {
      $0.connections = 4
      $0.requestSeconds = 600
    }
    var slow: [Int32] = []
    for _ in 0..<4 {
      let fd = connect(from: "127.0.0.2")
      XCTAssertTrue(UnixSocket.writeAll(fd, Array("GET / HTTP/1.1\r\nHost: desk\r\n".utf8)))
      slow.append(fd)
      turns(5)
    }
    defer { for fd in slow { close(fd) } }
    extraTurn = { for fd in slow { _ = send(fd, "X-Slow: 1\r\n", 11, Int32(MSG_NOSIGNAL)) } }
    let newcomer = connect(from: "127.0.0.3")
    defer { close(newcomer) }
    XCTAssertTrue(UnixSocket.writeAll(newcomer, Array("GET /api/state HTTP/1.1\r\nHost: desk\r\n\r\n".utf8)))
    var got: [UInt8] = []
    // A generous limit: without room made, it is never answered.
    let r = serve(newcomer, into: &got, within: seconds(20), until: complete)
    XCTAssertEqual(status(r), 200, r)
    XCTAssertEqual(seen.map(\.client), ["127.0.0.3"], "no slow client's request came whole")
    XCTAssertGreaterThanOrEqual(server.closed.forRoom, 1)
  }

  /// A request whose headers trickle in (a line every 50 ms: libmicrohttpd's own timeout, 30 s
  /// of silence, never comes) is closed once `requestSeconds` (1 here) pass without it whole.
  func testARequestThatTricklesIsClosedAtItsDeadline() throws {
    try restart { $0.requestSeconds = 1 }
    let fd = connect(from: "127.0.0.2")
    defer { close(fd) }
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("GET / HTTP/1.1\r\nHost: desk\r\n".utf8)))
    let end = clock.now + seconds(20)
    var closed = false
    var got = ""
    var nextLine = clock.now
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !closed && clock.now < end {
      var fds = ([fd] + server.readDescriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let timeout = server.deadline.map { max(0, min(50, ($0 - clock.now) / ms(1))) } ?? 50
      _ = poll(&fds, nfds_t(fds.count), Int32(timeout))
      server.handle(Wake(readable: server.readDescriptors))
      if clock.now >= nextLine {
        nextLine = clock.now + ms(50)
        _ = send(fd, "X-Slow: 1\r\n", 11, Int32(MSG_NOSIGNAL))
      }
      let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
      if n > 0 { got += String(decoding: buffer[0..<n], as: UTF8.self) }
      closed = n == 0 || (n < 0 && errno != EAGAIN)
    }
    XCTAssertTrue(closed, "the trickling request was never closed")
    XCTAssertEqual(got, "", "closed without an answer")
    XCTAssertTrue(seen.isEmpty)
    XCTAssertEqual(server.closed.late, 1)
  }

  /// The request whole: method, path without its query, the query names asked for, the headers
  /// the desk judges, the client, the body; the answer with its status, type, cookie, headers.
  func testARequestAndItsAnswer() throws {
    answer = { _ in
      HTTPResponse(
        status: 201, contentType: "text/plain", body: Array("made".utf8), setCookie: "a=b; HttpOnly",
        headers: [("ETag", "\"x\"")])
    }
    let r = exchange(
      "POST /api/history?days=7&other=1 HTTP/1.1\r\nHost: desk.local:8080\r\nOrigin: http://desk.local:8080\r\n"
        + "Cookie: pomodoro_pairing=abc\r\nIf-None-Match: \"y\"\r\nContent-Length: 5",
      body: "{\"a\"}")
    XCTAssertEqual(status(r), 201, r)
    let lower = r.lowercased()
    for header in ["content-type: text/plain", "set-cookie: a=b; httponly", "etag: \"x\"", "cache-control: no-store"] {
      XCTAssertTrue(lower.contains(header), "\(header) in \(r)")
    }
    XCTAssertFalse(lower.contains("access-control-allow"), "no CORS header")
    XCTAssertTrue(r.hasSuffix("\r\n\r\nmade"), r)
    let request = try XCTUnwrap(seen.last)
    XCTAssertEqual(request.method, "POST")
    XCTAssertEqual(request.path, "/api/history")
    XCTAssertEqual(request.query, ["days": "7"], "only the names asked for")
    XCTAssertEqual(request.host, "desk.local:8080")
    XCTAssertEqual(request.origin, "http://desk.local:8080")
    XCTAssertEqual(request.cookie, "pomodoro_pairing=abc")
    XCTAssertEqual(request.ifNoneMatch, "\"y\"")
    XCTAssertEqual(request.client, "127.0.0.1")
    XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "{\"a\"}")
    XCTAssertFalse(request.bodyTooLarge)

    let missing = exchange("GET /api/state HTTP/1.0")
    XCTAssertEqual(status(missing), 201, missing)
    XCTAssertNil(seen.last?.host, "no Host header")
  }

  /// Issue 34 item 8: the shim counts the Host headers (libmicrohttpd's lookup gives the first).
  func testTwoHostHeadersAreCounted() throws {
    _ = exchange("GET /api/state HTTP/1.1\r\nHost: desk\r\nConnection: close")
    XCTAssertEqual(seen.last?.hostHeaders, 1)
    _ = exchange("GET /api/state HTTP/1.1\r\nHost: desk\r\nhost: evil.example\r\nConnection: close")
    XCTAssertEqual(seen.last?.hostHeaders, 2)
    XCTAssertEqual(seen.last?.host, "desk")
  }

  /// Issue 34 item 8: a query too long is answered 414, not by a connection closed: by the shim
  /// past 8 KiB (the connection's pool, 64 KiB, has room for the answer), by libmicrohttpd past the
  /// pool. (Within a few hundred bytes under the pool's size libmicrohttpd 0.9.75 still closes the
  /// connection with no answer: no room is left for one.)
  func testAQueryTooLongIs414() throws {
    for size in [8200, 20_000, 32_300, 32_650, 50_000, 64_000, 100_000] {
      let query = String(repeating: "a", count: size)
      let r = exchange("GET /api/history?days=7&x=\(query) HTTP/1.1\r\nHost: desk\r\nConnection: close")
      XCTAssertEqual(status(r), 414, "\(size): \(r.prefix(200))")
    }
    XCTAssertEqual(
      status(
        exchange(
          "GET /api/history?days=7&x=\(String(repeating: "a", count: 8000)) HTTP/1.1\r\nHost: desk\r\nConnection: close"
        )), 200, "8 KiB passes")
  }

  /// The page's files on the wire: the shim's headers on every answer (nosniff, no framing, no
  /// referrer), the file's Cache-Control instead of the shim's, its length; a 304 with no body.
  func testThePageOnTheWire() throws {
    answer = { PageAssets.response(for: $0) ?? .error(404, "none") }
    let r = exchange("GET / HTTP/1.1\r\nHost: desk\r\nConnection: close")
    XCTAssertEqual(status(r), 200, r)
    let head = r.lowercased().components(separatedBy: "\r\n\r\n")[0]
    for header in [
      "x-content-type-options: nosniff", "x-frame-options: deny", "referrer-policy: no-referrer",
      "cache-control: no-cache", "content-length: \(PageAssets.files["/"]!.body.count)",
    ] {
      XCTAssertTrue(head.contains(header), "\(header) in \(head)")
    }
    XCTAssertEqual(head.components(separatedBy: "\r\ncache-control:").count, 2, "one Cache-Control")
    let etag = try XCTUnwrap(PageAssets.files["/app.js"]?.etag)
    let same = exchange("GET /app.js HTTP/1.1\r\nHost: desk\r\nIf-None-Match: \(etag)\r\nConnection: close")
    XCTAssertEqual(status(same), 304, same)
    XCTAssertEqual(same.components(separatedBy: "\r\n\r\n").last, "", "no body")
  }

  /// A body over the limit is cut there and said too large.
  func testABodyOverTheLimitIsCut() throws {
    _ = exchange(
      "POST /api/pair HTTP/1.1\r\nHost: desk\r\nContent-Length: 5000", body: String(repeating: "x", count: 5000))
    let request = try XCTUnwrap(seen.last)
    XCTAssertTrue(request.bodyTooLarge)
    XCTAssertEqual(request.body.count, 4096)
  }

  /// `.later`: the connection waits until `answer`, which is then false for that id.
  func testADeferredAnswer() throws {
    answer = { _ in .later }
    let fd = connect()
    defer { close(fd) }
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("GET /api/settings HTTP/1.1\r\nHost: desk\r\n\r\n".utf8)))
    var got: [UInt8] = []
    serve(fd, into: &got, until: { _ in !self.seen.isEmpty })
    XCTAssertTrue(got.isEmpty, "nothing until answered")
    let id = try XCTUnwrap(seen.last?.id)
    XCTAssertTrue(server.answer(id, .json("{\"late\":true}")))
    let r = serve(fd, into: &got, until: complete)
    XCTAssertEqual(status(r), 200, r)
    XCTAssertTrue(r.hasSuffix("{\"late\":true}"), r)
    XCTAssertFalse(server.answer(id, .json("{}")), "answered once")
  }

  /// A stream: its first bytes, then each send, until it is ended; at most the limit and one
  /// more (the newest's place while the oldest ends).
  func testAStream() throws {
    var opened: [Int32] = []
    answer = { _ in
      HTTPResponse(status: 200, contentType: "text/event-stream", body: Array(": hello\n\n".utf8), stream: true)
    }
    server.onStream = { id, _ in opened.append(id) }
    let fd = connect()
    defer { close(fd) }
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("GET /events HTTP/1.1\r\nHost: desk\r\n\r\n".utf8)))
    var got: [UInt8] = []
    var text = serve(fd, into: &got, until: { $0.contains(": hello") })
    XCTAssertTrue(text.lowercased().contains("content-type: text/event-stream"), text)
    let id = try XCTUnwrap(opened.first)
    XCTAssertEqual(server.streams.count, 1)
    XCTAssertEqual(server.streams.oldest, id)
    XCTAssertTrue(server.send(id, "event: state\ndata: {}\n\n"))
    text = serve(fd, into: &got, until: { $0.contains("event: state") })
    XCTAssertTrue(text.contains("event: state\ndata: {}\n\n"), text)
    server.end(id)
    XCTAssertEqual(server.streams.count, 0)
    XCTAssertFalse(server.send(id, ": gone\n\n"), "an ended stream takes nothing")
  }

  /// `pomodoro web` as WebService wires it: the desk served over this transport, its device
  /// through the control socket.
  func testTheDeskOverTheRealServer() throws {
    let fixture = try ControlFixture()
    let link = DeviceLink(socketPath: fixture.path, clock: clock, log: Log(sink: { _, _ in }), shownIn: "the page")
    let desk = WebDesk(
      link: link, server: server, hosts: AllowedHosts(hostName: "desk", addresses: []),
      pairings: Pairings(directory: fixture.directory), clock: clock, log: Log(sink: { _, _ in }))
    beside = [link, desk]
    extraTurn = { fixture.server.turn() }
    let fd = connect()
    defer { close(fd) }
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("GET /events HTTP/1.1\r\nHost: desk\r\n\r\n".utf8)))
    var got: [UInt8] = []
    let stream = serve(fd, into: &got, until: { $0.contains("event: state") })
    XCTAssertTrue(stream.contains("event: state\ndata: {\"phase\":\"idle\""), stream)
    let r = exchange("GET /api/state HTTP/1.1\r\nHost: desk")
    XCTAssertEqual(status(r), 200, r)
    XCTAssertTrue(r.contains("{\"phase\":\"idle\",\"mode\":\"focus\""), r)
    XCTAssertEqual(status(exchange("GET /api/state HTTP/1.1\r\nHost: evil.example")), 421)
  }
}
