import Foundation
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroControl

/// A device a test plays by hand on a real Unix socket: it accepts the link, reads its request
/// lines and answers when told.
final class HandDevice {
  let path: String
  let listener: Int32
  var fd: Int32 = -1
  var input = LineBuffer(limit: 1 << 16)

  init(path: String) throws {
    self.path = path
    listener = try UnixSocket.listen(path, group: nil).fd
  }

  deinit {
    if fd >= 0 { systemClose(fd) }
    systemClose(listener)
    unlink(path)
  }

  func accept() {
    fd = Glibc.accept(listener, nil, nil)
  }

  /// The request lines sent since the last call.
  func requests() -> [String] {
    UnixSocket.setNonBlocking(fd)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var lines: [String] = []
    while true {
      let n = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
      guard n > 0 else { break }
      for case .line(let l) in input.feed(buffer[0..<n]) { lines.append(l) }
    }
    return lines
  }

  func answer(_ phase: String = "idle") {
    UnixSocket.writeAll(fd, Array((ControlProtocol.okReply([("phase", .string(phase))]) + "\n").utf8))
  }
}

final class DeviceLinkTests: XCTestCase {
  let clock = TestClock()
  var directory = ""
  var lines: [String] = []
  var changes: [Bool] = []

  final class TestClock: MonotonicClock {
    var now = Instant(nanoseconds: 1_000_000_000)
  }

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "pomodoro-link-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// A link connected to `device`, which has answered its watch.
  func connected(_ device: HandDevice) -> DeviceLink {
    let link = DeviceLink(
      socketPath: device.path, clock: clock, log: Log(sink: { self.lines.append($1) }), shownIn: "the test")
    link.answerTimeout = ms(300)
    link.refreshInterval = seconds(3600)
    link.onAvailability = { self.changes.append($0) }
    link.handle(Wake())
    device.accept()
    XCTAssertEqual(device.requests(), [#"{"cmd":"watch"}"#])
    device.answer()
    link.handle(Wake(readable: [link.fd]))
    XCTAssertTrue(link.available)
    return link
  }

  func pass(_ span: Nanoseconds, _ link: DeviceLink) {
    clock.now = clock.now + span
    link.handle(Wake(readable: link.readDescriptors))
  }

  /// A device that is 5 s behind but answering (a burst queued in front of it) goes offline once
  /// when it first falls silent and online once when it speaks again, not once per request.
  func testABusyDeviceChangesAvailabilityOnceEachWay() throws {
    let device = try HandDevice(path: directory + "/c.sock")
    let link = connected(device)
    for i in 0..<10 { XCTAssertEqual(link.send(.toggle, label: "toggle \(i)"), .sent) }
    XCTAssertEqual(device.requests().count, 10)
    pass(ms(300), link)
    XCTAssertEqual(changes, [true, false], "silent for the bound: unavailable")
    // Then it answers one request every 200 ms: each later request has waited longer than the
    // bound, but the device is speaking.
    for _ in 0..<10 {
      device.answer("running")
      pass(ms(200), link)
    }
    XCTAssertEqual(changes, [true, false, true])
    XCTAssertEqual(lines.filter { $0.contains("has not answered") }.count, 1, "\(lines)")
    XCTAssertEqual(lines.filter { $0.contains("answers again") }.count, 1, "\(lines)")
    XCTAssertTrue(lines.contains { $0.contains("has not answered 'toggle 0' for 300ms") }, "\(lines)")
  }

  /// The link's own watch refused (a device with every slot taken) is not a refused command.
  func testTheLinksOwnRequestRefusedIsNotACommandRefusal() throws {
    let device = try HandDevice(path: directory + "/c.sock")
    let link = DeviceLink(
      socketPath: device.path, clock: clock, log: Log(sink: { self.lines.append($1) }), shownIn: "x")
    var refused: [String] = []
    link.onRefusal = { what, _ in refused.append(what) }
    link.handle(Wake())
    device.accept()
    _ = device.requests()
    UnixSocket.writeAll(device.fd, Array((ControlProtocol.errorReply("too many clients") + "\n").utf8))
    link.handle(Wake(readable: [link.fd]))
    XCTAssertEqual(refused, [])
    XCTAssertTrue(lines.contains { $0.contains("refused this link's own 'watch': too many clients") }, "\(lines)")
    // A forwarded command refused is the bridge's to say.
    _ = link.send(.pause, label: "pause")
    UnixSocket.writeAll(device.fd, Array((ControlProtocol.errorReply("nothing to pause") + "\n").utf8))
    link.handle(Wake(readable: [link.fd]))
    XCTAssertEqual(refused, ["pause"])
  }

  /// A device that does not read: the queue stops at `maxQueued` bytes and says so.
  func testTheQueueIsBounded() throws {
    let device = try HandDevice(path: directory + "/c.sock")
    let link = connected(device)
    var sent = 0
    while case .sent = link.send(.toggle, label: "toggle"), sent < 1_000_000 { sent += 1 }
    XCTAssertLessThanOrEqual(link.queued, DeviceLink.maxQueued)
    if case .full(let queued) = link.send(.toggle, label: "toggle") {
      XCTAssertEqual(queued, link.queued)
    } else {
      XCTFail("a full queue refuses")
    }
  }
}
