import Foundation
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroRuntime
@testable import PomodoroTestFixtures
@testable import PomodoroWeb

/// The web page's server against a device on the mocks, through its control socket: libmicrohttpd
/// on 127.0.0.1, a port of its own, driven from this thread as the one loop would drive it.
final class WebDeskTests: XCTestCase {
  var fixture: ControlFixture!
  var desk: WebDesk!
  let clock = SystemClock()
  var lines: [String] = []
  var stateDirectory = ""
  /// Device sockets served beside the fixture's (a device back after a restart).
  var otherServers: [ControlServer] = []

  override func setUpWithError() throws {
    guard HTTPServer.available else { throw XCTSkip("built without libmicrohttpd: sudo apt install libmicrohttpd-dev") }
    if let why = HTTPServer.loadError { throw XCTSkip(why) }
    fixture = try ControlFixture()
    let link = DeviceLink(socketPath: fixture.path, clock: clock, log: Log(sink: { _, _ in }), shownIn: "the page")
    var limits = HTTPServer.Limits()
    limits.streams = 2
    stateDirectory = NSTemporaryDirectory() + "web-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    desk = try makeDesk(link: link, limits: limits)
    serve(until: { self.desk.state != nil })
  }

  func makeDesk(link: DeviceLink, limits: HTTPServer.Limits, view: WebView = .open) throws -> WebDesk {
    try WebDesk(
      link: link, address: "127.0.0.1", port: 0, hosts: AllowedHosts(hostName: "desk", addresses: ["192.0.2.7"]),
      view: view, pairings: Pairings(directory: stateDirectory), limits: limits, clock: clock,
      log: Log(sink: { self.lines.append($1) }))
  }

  override func tearDown() {
    desk = nil
    fixture = nil
    try? FileManager.default.removeItem(atPath: stateDirectory)
  }

  /// Runs the loop's sources (the device's socket, the server, the link, the desk) for up to
  /// 3 s until `done`.
  func serve(until done: () -> Bool) {
    let end = clock.now + seconds(3)
    while !done() && clock.now < end {
      fixture.server.serviceNow()
      for server in otherServers { server.serviceNow() }
      for source in [desk.server, desk.link, desk] as [LoopSource] {
        source.handle(Wake(readable: source.readDescriptors))
      }
      usleep(1000)
    }
  }

  /// A raw HTTP/1.1 exchange on a socket of its own: what arrived within the loop's turns.
  func request(_ head: String, body: String = "", until done: (String) -> Bool = { $0.contains("\r\n\r\n") }) throws
    -> String
  {
    let fd = socket(AF_INET, streamSocketType, 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(desk.server.port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    XCTAssertEqual(connected, 0)
    UnixSocket.setNonBlocking(fd)
    XCTAssertTrue(UnixSocket.writeAll(fd, Array((head + "\r\n\r\n" + body).utf8)))
    var got: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    serve {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 { got += buffer[0..<n] }
      let text = String(decoding: got, as: UTF8.self)
      return done(text) && (text.contains("text/event-stream") || n == 0 || complete(text))
    }
    return String(decoding: got, as: UTF8.self)
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

  func testTheStateIsServedToTheDesksOwnNames() throws {
    for host in ["desk", "desk.local:8080", "192.0.2.7", "localhost:8080", "127.0.0.1", "[::1]:8080"] {
      let r = try request("GET /api/state HTTP/1.1\r\nHost: \(host)")
      XCTAssertEqual(status(r), 200, "\(host): \(r)")
      XCTAssertTrue(r.contains("{\"phase\":\"idle\",\"mode\":\"focus\",\"remaining_ms\":1500000"), r)
      XCTAssertFalse(r.lowercased().contains("access-control-allow"), "no CORS header")
    }
  }

  /// DNS rebinding: a page rebound to the desk carries its own name as Host (and as Origin, so
  /// an Origin check alone would pass it): 421. Another site's page: 403.
  func testOtherHostsAndOtherSitesAreRefused() throws {
    let rebound = try request("GET /api/state HTTP/1.1\r\nHost: attacker.example\r\nOrigin: http://attacker.example")
    XCTAssertEqual(status(rebound), 421, rebound)
    XCTAssertTrue(rebound.contains("this desk answers to its own name and addresses only"), rebound)
    XCTAssertFalse(rebound.contains("phase"))
    let missing = try request("GET /api/state HTTP/1.0")
    XCTAssertEqual(status(missing), 421, missing)
    let foreign = try request("GET /api/state HTTP/1.1\r\nHost: desk.local\r\nOrigin: https://evil.example")
    XCTAssertEqual(status(foreign), 403, foreign)
    XCTAssertEqual(lines.filter { $0.contains("(421)") }.count, 2, "\(lines)")
  }

  /// An address the machine got after the server started (DHCP) is read again on the first
  /// request that names it, at most every 10 s.
  func testANewAddressIsReadAgain() throws {
    var addresses = ["192.0.2.7"]
    let link = DeviceLink(socketPath: fixture.path, clock: clock, log: Log(sink: { _, _ in }), shownIn: "the page")
    desk = try WebDesk(
      link: link, address: "127.0.0.1", port: 0, hosts: AllowedHosts(hostName: "desk", addresses: addresses),
      rereadHosts: { AllowedHosts(hostName: "desk", addresses: addresses) },
      pairings: Pairings(directory: stateDirectory),
      clock: clock, log: Log(sink: { _, _ in }))
    desk.hostsReadAt = clock.now - seconds(11)
    serve(until: { self.desk.state != nil })
    addresses.append("198.51.100.9")
    XCTAssertEqual(status(try request("GET /api/state HTTP/1.1\r\nHost: 198.51.100.9:8080")), 200)
    XCTAssertEqual(status(try request("GET /api/state HTTP/1.1\r\nHost: 203.0.113.1")), 421, "still not any address")
  }

  /// Nothing here acts: another method is 405, and the device's state is what it was.
  func testNoRequestActs() throws {
    let post = try request(
      "POST /api/state HTTP/1.1\r\nHost: desk\r\nContent-Type: application/json\r\nContent-Length: 16",
      body: "{\"cmd\":\"start\"}\n")
    XCTAssertEqual(status(post), 405, post)
    for path in ["/api/command?cmd=start", "/api/pair?code=123456"] {
      XCTAssertEqual(status(try request("GET \(path) HTTP/1.1\r\nHost: desk")), 405, path)
    }
    serve { false }
    XCTAssertEqual(fixture.h.device.state.phase, .idle)
  }

  /// The stream: the whole state at once, then each change as it happens (the device's own
  /// button); a third stream over the limit of two ends the oldest.
  func testEventsCarryTheStateAndEveryChange() throws {
    let fd = try openStream()
    defer { close(fd) }
    var seen = read(fd, until: { $0.contains("event: state") })
    XCTAssertTrue(seen.contains("content-type: text/event-stream"), seen)
    XCTAssertTrue(seen.contains("\"phase\":\"idle\""), seen)
    fixture.h.press(fixture.h.config.buttonStart)
    fixture.h.run(for: ms(300))
    seen += read(fd, until: { $0.contains("\"phase\":\"running\"") })
    XCTAssertTrue(seen.contains("data: {\"phase\":\"running\""), seen)

    let second = try openStream()
    defer { close(second) }
    _ = read(second, until: { $0.contains("event: state") })
    XCTAssertEqual(desk.server.streams.count, 2)
    let third = try openStream()
    defer { close(third) }
    _ = read(third, until: { $0.contains("event: state") })
    serve { self.desk.server.streams.count == 2 }
    XCTAssertEqual(desk.server.streams.count, 2, "the oldest ended for the newest")
  }

  /// The device gone, then back (a restart): the stream says offline, then the state again,
  /// though it is the state it said before.
  func testTheStreamSaysTheStateAgainWhenTheDeskComesBack() throws {
    let fd = try openStream()
    defer { close(fd) }
    _ = read(fd, until: { $0.contains("event: state") })
    fixture.server.close()
    let offline = read(fd, until: { $0.contains("event: offline") })
    XCTAssertTrue(offline.contains("event: offline"), offline)
    let again = try ControlServer(path: fixture.path, device: fixture.h.device, log: Log(sink: { _, _ in }))
    otherServers = [again]
    defer { again.close() }
    let seen = read(fd, until: { $0.contains("event: state") })
    XCTAssertTrue(seen.contains("event: state\ndata: {\"phase\":\"idle\""), seen)
  }

  func openStream() throws -> Int32 {
    let fd = socket(AF_INET, streamSocketType, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(desk.server.port).bigEndian)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    UnixSocket.setNonBlocking(fd)
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("GET /events HTTP/1.1\r\nHost: desk.local\r\n\r\n".utf8)))
    return fd
  }

  func read(_ fd: Int32, until done: (String) -> Bool, ended: Bool = false) -> String {
    var got: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    serve {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 { got += buffer[0..<n] }
      return done(String(decoding: got, as: UTF8.self).lowercased()) || (ended && n == 0)
    }
    return String(decoding: got, as: UTF8.self).lowercased()
  }
}
