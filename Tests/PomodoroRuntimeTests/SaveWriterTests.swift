import Foundation
import PomodoroCommandLine
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

/// The real file system with fsyncs that wait while the test holds a gate shut (a card that
/// takes its time, as long as the test likes), and that fail while told to; it notes which
/// thread each fsync ran on.
final class GatedFileSystem: FileSystem, @unchecked Sendable {
  let inner = PosixFileSystem.shared
  let condition = NSCondition()
  var shut = false
  var waiting = 0
  var failing: Int32?
  var syncsOnTheMainThread = 0
  var syncs = 0
  /// settings.conf replaced (renamed into place) so far.
  var overlayRenames: Int { condition.withLock { renamedOverlay } }
  var renamedOverlay = 0

  func close() { condition.withLock { shut = true } }
  func open() {
    condition.withLock {
      shut = false
      condition.broadcast()
    }
  }
  /// Waits (up to 5 s) until an fsync is held at the gate.
  func waitUntilHeld() -> Bool {
    let limit = Date().addingTimeInterval(5)
    return condition.withLock {
      while waiting == 0 { if !condition.wait(until: limit) { return false } }
      return true
    }
  }
  func fail(_ errno: Int32?) { condition.withLock { failing = errno } }

  func gate() throws {
    try condition.withLock {
      syncs += 1
      if Thread.isMainThread { syncsOnTheMainThread += 1 }
      waiting += 1
      condition.broadcast()
      while shut { condition.wait() }
      waiting -= 1
      if let failing { throw SystemError("fsync", errno: failing) }
    }
  }

  func createExclusive(_ path: String, permissions: UInt32) throws -> Int32 {
    try inner.createExclusive(path, permissions: permissions)
  }
  func openForAppend(_ path: String, permissions: UInt32) throws -> (fd: Int32, created: Bool) {
    try inner.openForAppend(path, permissions: permissions)
  }
  func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws -> Int { try inner.write(fd, bytes) }
  func size(_ fd: Int32) throws -> Int64 { try inner.size(fd) }
  func byte(_ fd: Int32, at offset: Int64) throws -> UInt8? { try inner.byte(fd, at: offset) }
  func truncate(_ fd: Int32, to size: Int64) throws { try inner.truncate(fd, to: size) }
  func sync(_ fd: Int32) throws {
    try gate()
    try inner.sync(fd)
  }
  func close(_ fd: Int32) { inner.close(fd) }
  func rename(_ from: String, to: String) throws {
    try inner.rename(from, to: to)
    if to.hasSuffix("/settings.conf") { condition.withLock { renamedOverlay += 1 } }
  }
  func remove(_ path: String) throws { try inner.remove(path) }
  func syncDirectory(_ path: String) throws {
    try gate()
    try inner.syncDirectory(path)
  }
  func makeDirectory(_ path: String, permissions: UInt32) throws -> Bool {
    try inner.makeDirectory(path, permissions: permissions)
  }
  func kind(_ path: String) throws -> FileKind? { try inner.kind(path) }
  func read(_ path: String) throws -> [UInt8]? { try inner.read(path) }
  func tail(_ path: String, count: Int) throws -> [UInt8]? { try inner.tail(path, count: count) }
  @discardableResult
  func forEachLine(_ path: String, maxLine: Int, _ body: (Int, String?) throws -> Void) throws -> Bool {
    try inner.forEachLine(path, maxLine: maxLine, body)
  }
}

/// Whether `fd` becomes readable within `timeout`.
func readable(_ fd: Int32?, within timeout: Int32 = 5000) -> Bool {
  guard let fd else { return false }
  var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
  return poll(&p, 1, timeout) > 0
}

/// The save writer's thread (`ThreadSaveWriter`, as `pomodoro run` has it): the loop goes on
/// while a save is written, a save asked meanwhile is the next one, lines are appended in order
/// once each, failures are said on the loop's thread and retried, and a command's reply waits
/// for the save of its state.
extension XCTestCase {
  /// A device in `directory` whose saves a thread writes on a gated disk, its control socket
  /// served, and a client connected; all closed when the test ends.
  func servedDeviceOnAGatedDisk(in directory: String) throws -> (GatedFileSystem, DeviceHarness, ControlServer, Int32) {
    let fs = GatedFileSystem()
    let h = try DeviceHarness(directory: directory, fileSystem: fs, writesInBackground: true)
    let server = try ControlServer(path: directory + "/c.sock", device: h.device, log: h.device.log)
    h.device.start()
    let fd = try UnixSocket.connect(server.path)
    addTeardownBlock {
      systemClose(fd)
      server.close()
      h.device.shutdown()
    }
    server.turn()
    return (fs, h, server, fd)
  }
}

final class SaveWriterTests: XCTestCase {
  var directory = ""
  var messages: [String] = []
  var messagesOffTheMainThread = 0

  override func setUpWithError() throws {
    directory = try DeviceHarness.temporaryDirectory()
    messages = []
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func recorder(_ fs: FileSystem) throws -> SessionRecorder {
    let storage = Storage(directory: directory, fileSystem: fs)
    return SessionRecorder(
      storage: storage,
      log: Log(sink: { [unowned self] _, message in
        if !Thread.isMainThread { messagesOffTheMainThread += 1 }
        messages.append(message)
      }), wallClock: { WallTime(epochSeconds: 1_796_040_000, synced: true) },
      writer: try ThreadSaveWriter(storage: storage))
  }

  func entry(_ n: Int64) -> HistoryEntry {
    HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_040_000 - n, synced: true),
      record: SessionRecord(mode: .focus, outcome: .cancelled, planned: minutes(25), actual: seconds(n), endedAt: .zero)
    )
  }

  func timer(_ phase: Phase) -> SavedTimer {
    SavedTimer(phase: phase, mode: .focus, duration: minutes(25), remaining: minutes(20), focusDoneInCycle: 0)
  }

  func history() throws -> [String] { try HistoryLog(directory: directory).read().entries.map(\.jsonLine) }

  func testOneSaveAtATimeItsLinesAppendedInOrderOnceEach() throws {
    let fs = GatedFileSystem()
    let r = try recorder(fs)
    defer { r.close() }
    let (a, b) = (entry(1).jsonLine, entry(2).jsonLine)
    r.append(entry(1))
    fs.close()
    XCTAssertTrue(r.save(timer(.running)))
    XCTAssertTrue(fs.waitUntilHeld(), "the thread is in the state file's fsync")
    XCTAssertTrue(r.saving)
    r.append(entry(2))
    XCTAssertFalse(r.save(timer(.paused)), "not started while one is being written")
    XCTAssertFalse(r.collect(), "not ended")
    XCTAssertEqual(r.pending, [a, b])
    fs.open()
    XCTAssertTrue(readable(r.writer.descriptor), "its end is said on the descriptor")
    XCTAssertTrue(r.collect())
    XCTAssertFalse(readable(r.writer.descriptor, within: 0), "taken")
    XCTAssertEqual(r.pending, [b], "the line written is no longer pending; the one recorded since is")
    XCTAssertEqual(try history(), [a])
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .running)
    XCTAssertEqual(try StateStore(directory: directory).loadPendingHistory(), [a])
    XCTAssertTrue(r.stateOnDiskEnded, "a record was made while the state was written")
    XCTAssertTrue(r.save(timer(.paused)))
    r.settle()
    XCTAssertEqual(try history(), [a, b])
    XCTAssertEqual(r.pending, [])
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .paused)
    XCTAssertEqual(try StateStore(directory: directory).loadPendingHistory(), [b])
    XCTAssertEqual([r.started, r.ended], [2, 2])
    XCTAssertEqual(fs.syncsOnTheMainThread, 0, "every fsync on the writer's thread")
    XCTAssertEqual(
      fs.syncs, 7, "each save: the state (file and folder), then one a line (and the folder once, for the new history)")
  }

  func testAFailedSaveIsSaidOnceOnTheLoopsThreadAndItsLinesWrittenWhenSpaceReturns() throws {
    let fs = GatedFileSystem()
    let r = try recorder(fs)
    defer { r.close() }
    r.save(timer(.running))
    r.settle()
    r.append(entry(1))
    fs.fail(ENOSPC)
    for _ in 0..<3 {
      XCTAssertTrue(r.save(timer(.idle)))
      r.settle()
    }
    XCTAssertEqual(r.pending, [entry(1).jsonLine], "kept in memory")
    XCTAssertEqual(messages.filter { $0.hasPrefix("saving the timer state failed") }.count, 1, "\(messages)")
    XCTAssertEqual(messages.filter { $0.hasPrefix("appending to the history failed") }.count, 1)
    XCTAssertTrue(messages.contains { $0.contains("no space left on the disk") })
    XCTAssertEqual(messagesOffTheMainThread, 0, "said by the loop, not the writer")
    XCTAssertEqual(try history(), [], "no torn line")
    fs.fail(nil)
    r.save(timer(.idle))
    r.settle()
    XCTAssertEqual(try history(), [entry(1).jsonLine])
    XCTAssertEqual(r.pending, [])
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .idle)
  }

  /// The oldest pending line dropped (`pendingLimit`) while the save holding it is written: the
  /// lines that save wrote leave the pending ones once each.
  func testALineDroppedWhileItIsWrittenIsNotDroppedTwice() throws {
    let fs = GatedFileSystem()
    let r = try recorder(fs)
    defer { r.close() }
    for n in 0..<Int64(SessionRecorder.pendingLimit) { r.append(entry(n + 1)) }
    fs.close()
    r.save(timer(.idle))
    XCTAssertTrue(fs.waitUntilHeld())
    r.append(entry(9999))  // drops the oldest pending: the job has it already
    fs.open()
    r.settle()
    XCTAssertEqual(r.pending, [entry(9999).jsonLine])
    XCTAssertEqual(try history().count, SessionRecorder.pendingLimit)
  }

  /// The loop goes on while the thread's fsync takes as long as the card likes: a press acts, the
  /// save it asks for waits and is the next one (any number of them one), and that one holds the
  /// state as it is when it starts.
  func testTheLoopGoesOnWhileTheThreadWritesAndASaveAskedMeanwhileIsTheNext() throws {
    let fs = GatedFileSystem()
    let h = try DeviceHarness(directory: directory, fileSystem: fs, writesInBackground: true)
    h.device.start()
    defer { h.device.shutdown() }
    let saves = h.device.saves
    fs.close()
    h.device.perform(.press(.start))
    h.device.step()
    XCTAssertTrue(fs.waitUntilHeld())
    XCTAssertEqual(h.device.saves, saves + 1)
    XCTAssertNotNil(h.device.saveDescriptor, "the loop polls the writer's end")
    // The start button, pressed and released, while the fsync hangs; then two commands.
    h.press(h.config.buttonStart)
    h.run(for: ms(200))
    XCTAssertEqual(h.device.state.phase, .paused, "the press acted while the save was being written")
    h.device.perform(.press(.start))
    h.device.perform(.press(.start))
    h.run(for: ms(200))
    XCTAssertEqual(h.device.saves, saves + 1, "no second save while one is being written")
    XCTAssertTrue(h.device.saveDue)
    XCTAssertEqual(h.device.saveTicket, saves + 2)
    fs.open()
    XCTAssertTrue(readable(h.device.saveDescriptor))
    h.device.step()  // takes the end, starts the next
    XCTAssertEqual(h.device.saves, saves + 2, "the saves asked meanwhile are one")
    // The thread may end that one before the step that started it returns (the gate is open):
    // the step then took its end already.
    if h.device.saveDescriptor != nil {
      XCTAssertTrue(readable(h.device.saveDescriptor))
      h.device.step()
    }
    XCTAssertNil(h.device.saveDescriptor)
    XCTAssertEqual(h.device.savesEnded, h.device.saves)
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .paused, "the state as it is now")
    XCTAssertEqual(fs.syncsOnTheMainThread, 0)
  }

  func servedDevice() throws -> (GatedFileSystem, DeviceHarness, ControlServer, Int32) {
    try servedDeviceOnAGatedDisk(in: directory)
  }

  /// A command's reply goes out once the save of the state it made has ended, not before.
  func testAReplyWaitsForTheSaveOfItsState() throws {
    let (fs, h, server, fd) = try servedDevice()
    fs.close()
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("{\"cmd\":\"start\"}\n".utf8)))
    server.turn()
    XCTAssertEqual(server.requests, 1)
    XCTAssertTrue(fs.waitUntilHeld())
    var reader = LineReader(fd: fd)
    server.turn()
    XCTAssertNil(reader.next(until: SystemClock().now + ms(300)), "no reply while its state is being written")
    XCTAssertEqual(server.writeDescriptors, [])
    fs.open()
    XCTAssertTrue(readable(h.device.saveDescriptor))
    server.turn()
    XCTAssertEqual(reader.next(until: SystemClock().now + ms(2000))?.contains("\"phase\":\"running\""), true)
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .running, "saved before the reply")
  }

  /// 800 toggles in one write while a save hangs: answered until a client's held replies reach
  /// `listChunk`, then the loop sleeps (no spinning, nobody dropped); once the disk answers,
  /// every reply goes out, each after the save of its state, and saves stay a few.
  func testAFloodWhileASaveHangsIsHeldBoundedThenAnsweredWhole() throws {
    let (fs, h, server, fd) = try servedDevice()
    let saves = h.device.saves
    fs.close()
    XCTAssertTrue(UnixSocket.writeAll(fd, Array(String(repeating: "{\"cmd\":\"toggle\"}\n", count: 800).utf8)))
    for _ in 0..<200 {
      server.turn()
      h.device.step()
    }
    XCTAssertFalse(server.busy, "the loop sleeps once the held replies reach their bound")
    XCTAssertLessThan(server.requests, 800)
    XCTAssertGreaterThanOrEqual(server.requests, ControlServer.linesPerWake)
    let held = server.clients.values.map(\.heldBytes).max() ?? 0
    XCTAssertLessThan(held, ControlServer.listChunk + 16 * 1024, "bounded")
    XCTAssertEqual(server.dropped, 0)
    XCTAssertEqual(h.device.saves, saves + 1)
    var reader = LineReader(fd: fd)
    XCTAssertNil(reader.next(until: SystemClock().now + ms(100)), "nothing out before its save")
    fs.open()
    var replies = 0
    let limit = SystemClock().now + seconds(30)
    while replies < 800 && SystemClock().now < limit {
      if let d = h.device.saveDescriptor { _ = readable(d, within: 50) }
      server.turn()
      h.device.step()
      while let line = reader.next(until: SystemClock().now + ms(1)) {
        XCTAssertTrue(line.hasPrefix("{\"ok\":true"))
        replies += 1
      }
    }
    XCTAssertEqual(replies, 800)
    XCTAssertEqual(server.dropped, 0)
    XCTAssertEqual(h.device.state.phase, .paused, "started, then 799 toggles")
    h.device.recorder?.settle()
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .paused)
    XCTAssertLessThan(h.device.saves - saves, 60, "a save for many batches, not one a command")
  }

  /// The real loop (poll, the real clock) wakes for the end of a save the thread wrote, and the
  /// reply that waited for it goes out then, though nothing else is due: a paused timer's panel
  /// is still, so without the writer's pipe among the descriptors polled the loop would sleep
  /// on (here, to its 5 s limit).
  func testTheRealLoopWakesWhenASaveEndsAndSendsTheReply() throws {
    final class Took: @unchecked Sendable {
      let lock = NSLock()
      var span: Nanoseconds?
      var value: Nanoseconds? { lock.withLock { span } }
      func set(_ n: Nanoseconds) { lock.withLock { span = n } }
    }
    let clock = SystemClock()
    var config = DeviceConfig()
    config.stateDirectory = directory
    let hardware = try MockHardware(config: config, clock: clock)
    let device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: .standard(height: 64),
      storage: Storage(
        directory: directory, fileSystem: SlowSyncFileSystem(delay: ms(30)), writesInBackground: true),
      log: Log(sink: { _, _ in }))
    let server = try ControlServer(path: directory + "/c.sock", device: device, log: Log(sink: { _, _ in }))
    device.start()
    defer { server.close() }
    let client = try UnixSocket.connect(server.path)
    defer { systemClose(client) }
    let took = Took()
    let user = Thread {
      // Its end closes its side: the loop wakes for it and stops (onWake), not at its 5 s limit.
      defer { shutdown(client, Int32(SHUT_WR)) }
      var reader = LineReader(fd: client)
      /// Sends `lines` and reads `replies` replies: how long they took (nil: not within 2 s).
      func ask(_ lines: String, replies: Int) -> Nanoseconds? {
        let sent = SystemClock().now
        _ = UnixSocket.writeAll(client, Array(lines.utf8))
        for _ in 0..<replies where reader.next(until: sent + seconds(2)) == nil { return nil }
        return SystemClock().now - sent
      }
      // Paused at once: the panel is still, nothing is due; then a save's end is all that comes.
      guard let first = ask("{\"cmd\":\"start\"}\n{\"cmd\":\"pause\"}\n", replies: 2) else { return }
      guard let second = ask("{\"cmd\":\"extend\",\"by\":\"5m\"}\n", replies: 1) else { return }
      took.set(max(first, second))
    }
    user.start()
    let began = clock.now
    _ = try EventLoop.serve(
      device, waiter: try PollWaiter(clock: clock, catchingSignals: false), extraDeadline: { began + seconds(5) },
      sources: [server], onWake: { _ in took.value == nil && clock.now - began < seconds(5) })
    join(user, "the user's thread")
    device.shutdown()
    let span = took.value ?? seconds(99)
    XCTAssertLessThan(
      span, ms(1000), "the reply came at the save's end, not at the next deadline (\(span / 1_000_000) ms; 99 s: none)")
    let saved = try XCTUnwrap(try StateStore(directory: directory).load())
    XCTAssertEqual(saved.phase, .paused)
    XCTAssertGreaterThan(
      try XCTUnwrap(saved.remaining), minutes(30) - seconds(1), "25:00 paused at once, 5 minutes added")
  }
}
