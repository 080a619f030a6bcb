import Foundation
import PomodoroCommandLine
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// Issue 34, item 5: `config set` (ctl, the page) saves the overlay through the save writer,
/// with the state (`SaveJob.settings`), never on the loop; a burst of sets is one write (the
/// last value wins), and each reply waits for the save that holds its set.
final class SettingsSaveTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// `count` sets of the focus preset, to 20m, 21m, ... from `first`.
  func sets(_ count: Int, first: Int) -> [UInt8] {
    Array(
      (0..<count).map { "{\"cmd\":\"config_set\",\"key\":\"focus\",\"value\":\"\(20 + first + $0)m\"}\n" }.joined().utf8
    )
  }

  /// Turns the loop until `done` (or a generous limit), reading the replies as they come.
  func turn(_ server: ControlServer, reading reader: inout LineReader, until done: ([String]) -> Bool) -> [String] {
    var replies: [String] = []
    let limit = SystemClock().now + seconds(30)
    while !done(replies) && SystemClock().now < limit {
      if let d = server.device.saveDescriptor { _ = readable(d, within: 20) }
      server.turn()
      while let line = reader.next(until: SystemClock().now + ms(1)) {
        if line.hasPrefix("{\"ok\"") { replies.append(line) }
      }
    }
    return replies
  }

  func readable(_ fd: Int32, within milliseconds: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, milliseconds) == 1
  }

  func overlay() -> String? { try? String(contentsOfFile: directory + "/settings.conf", encoding: .utf8) }

  func testASettingsBurstIsWrittenByTheThreadCoalescedAndItsRepliesWaitForTheSave() throws {
    let (fs, h, server, fd) = try servedDeviceOnAGatedDisk(in: directory)
    var reader = LineReader(fd: fd)
    // The disk open: 16 sets, every fsync on the writer's thread, none on the loop's.
    XCTAssertTrue(UnixSocket.writeAll(fd, sets(16, first: 0)))
    XCTAssertEqual(turn(server, reading: &reader) { $0.count >= 16 }.count, 16)
    XCTAssertEqual(fs.syncsOnTheMainThread, 0, "the overlay is written by the save writer, not the loop")
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(35))
    XCTAssertEqual(overlay()?.contains("focus = 35m"), true, overlay() ?? "no overlay")
    guard fs.syncsOnTheMainThread == 0 else { return }  // the loop would wait at the gate below

    // The disk held: 32 sets are answered (applied at once), their replies held until saved.
    let renamesBefore = fs.overlayRenames
    fs.close()
    XCTAssertTrue(UnixSocket.writeAll(fd, sets(32, first: 20)))
    let requests = server.requests
    let limit = SystemClock().now + seconds(30)
    while server.requests < requests + 32 && SystemClock().now < limit { server.turn() }
    XCTAssertEqual(server.requests, requests + 32, "the loop goes on while the disk is held")
    XCTAssertTrue(fs.waitUntilHeld())
    XCTAssertNil(reader.next(until: SystemClock().now + ms(200)), "no reply before its set is saved")
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(71), "applied at once")
    XCTAssertEqual(overlay()?.contains("focus = 35m"), true, "the old overlay, whole, while the new is written")

    fs.open()
    let replies = turn(server, reading: &reader) { $0.count >= 32 }
    XCTAssertEqual(replies.count, 32)
    XCTAssertTrue(replies.allSatisfy { $0.hasPrefix("{\"ok\":true") })
    XCTAssertEqual(overlay()?.contains("focus = 1h11m"), true, "the last set wins: \(overlay() ?? "no overlay")")
    XCTAssertLessThanOrEqual(fs.overlayRenames - renamesBefore, 3, "32 sets, a few writes (coalesced)")
    XCTAssertEqual(fs.syncsOnTheMainThread, 0)
  }

  /// A set whose save fails (a full disk) runs, is logged, and is written once the disk is
  /// back; while it cannot be, the next set is refused and changes nothing.
  func testASetWhoseSaveFailsIsKeptAndTheNextRefusedUntilItCanBeWritten() throws {
    let dir = "/var/lib/pomodoro"
    let fs = FaultyFileSystem()
    try Files.makeDirectories(dir, in: fs)
    let h = try DeviceHarness(directory: dir, fileSystem: fs)
    h.device.start()
    fs.fault = .noSpace
    XCTAssertNoThrow(try h.device.settingsAnswer(.configSet(key: "focus", value: "30m")).get())
    h.device.step()
    XCTAssertTrue(h.logLines.contains { $0.1.hasPrefix("saving \(dir)/settings.conf failed: ") }, "\(h.logLines)")
    let result = h.device.settingsAnswer(.configSet(key: "focus", value: "35m"))
    guard case .failure(let refusal) = result else { return XCTFail("refused") }
    XCTAssertTrue(refusal.message.hasPrefix("saving \(dir)/settings.conf failed: "), refusal.message)
    XCTAssertTrue(refusal.message.hasSuffix("; nothing changed (try again once it can be written)"), refusal.message)
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(30))
    XCTAssertNil(fs.files[dir + "/settings.conf"])
    fs.fault = nil
    h.device.step()
    XCTAssertEqual(
      fs.files[dir + "/settings.conf"].map { String(decoding: $0, as: UTF8.self) }?.contains("focus = 30m"), true)
    XCTAssertNoThrow(try h.device.settingsAnswer(.configSet(key: "focus", value: "35m")).get())
    h.device.step()
    XCTAssertEqual(
      fs.files[dir + "/settings.conf"].map { String(decoding: $0, as: UTF8.self) }?.contains("focus = 35m"), true)
  }
}
