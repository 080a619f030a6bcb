import Foundation
import PomodoroCommandLine
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

final class ControlSocketTests: XCTestCase {
  /// A fixture with the device in `phase`: a focus started from the socket and run for a
  /// minute, paused there, or run to its alarm.
  func fixture(in phase: Phase, focus: Nanoseconds = minutes(25)) throws -> (ControlFixture, Int32) {
    var config = DeviceConfig()
    config.engine.presets[.focus] = focus
    let f = try ControlFixture(config: config)
    let fd = try f.connect()
    switch phase {
    case .idle: break
    case .running:
      XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
      f.h.run(for: minutes(1))
    case .paused:
      XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
      f.h.run(for: minutes(1))
      XCTAssertTrue(f.reply(fd, #"{"cmd":"pause"}"#).ok)
    case .ringing:
      XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
      f.h.run(for: focus)
    }
    XCTAssertEqual(f.h.device.state.phase, phase)
    return (f, fd)
  }

  /// The server answers and the loop steps: a batch handled by the server alone (no step) is
  /// answered and held, its state not saved; the loop's next turn steps the device, which saves
  /// it, and the reply goes out.
  func testTheServerNeverStepsTheDeviceTheLoopsStepSavesAndReleasesTheReply() throws {
    let f = try ControlFixture(storing: true)
    let fd = try f.connect()
    let saves = f.h.device.saves
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("{\"cmd\":\"start\"}\n".utf8)))
    var readable: [Int32] = []
    let limit = SystemClock().now + seconds(10)
    while f.server.requests == 0 && SystemClock().now < limit {
      readable = f.server.readDescriptors
      f.server.handle(Wake(readable: readable, writable: []))
    }
    XCTAssertEqual(f.server.requests, 1)
    XCTAssertEqual(f.h.device.state.phase, .running)
    XCTAssertEqual(f.h.device.saves, saves, "the server did not step the device (its step would have saved)")
    var reader = LineReader(fd: fd)
    XCTAssertNil(reader.next(until: SystemClock().now + ms(100)), "held until the loop's step has saved it")
    f.server.turn()
    XCTAssertEqual(f.h.device.saves, saves + 1)
    XCTAssertEqual(reader.next(until: SystemClock().now + seconds(10))?.contains("\"phase\":\"running\""), true)
  }

  func testEveryCommandInEveryPhase() throws {
    // (request, phase) -> the phase it leaves, or the refusal's words.
    enum Want {
      case ok(Phase)
      case refused(String)
    }
    let extend = #"{"cmd":"extend","by":"5m"}"#
    let set = #"{"cmd":"set","mode":"soft"}"#
    let table: [Phase: [(String, Want)]] = [
      .idle: [
        ("status", .ok(.idle)), ("start", .ok(.running)), ("pause", .refused("nothing to pause: the timer is idle")),
        ("resume", .refused("nothing to resume")), ("toggle", .ok(.running)),
        ("cancel", .refused("nothing to cancel: the timer is idle")), ("ack", .refused("nothing to acknowledge")),
        ("skip", .ok(.idle)), (extend, .refused("nothing to extend")), (set, .ok(.idle)), ("watch", .ok(.idle)),
      ],
      .running: [
        ("status", .ok(.running)), ("start", .refused("already running")), ("pause", .ok(.paused)),
        ("resume", .refused("already running")), ("toggle", .ok(.paused)), ("cancel", .ok(.idle)),
        ("ack", .refused("nothing to acknowledge")), ("skip", .ok(.idle)), (extend, .ok(.running)),
        (set, .refused("set works only while idle")), ("watch", .ok(.running)),
      ],
      .paused: [
        ("status", .ok(.paused)), ("start", .refused("resume it")), ("pause", .refused("already paused")),
        ("resume", .ok(.running)), ("toggle", .ok(.running)), ("cancel", .ok(.idle)),
        ("ack", .refused("nothing to acknowledge")), ("skip", .ok(.idle)), (extend, .ok(.paused)),
        (set, .refused("set works only while idle")), ("watch", .ok(.paused)),
      ],
      .ringing: [
        ("status", .ok(.ringing)), ("start", .refused("ringing")), ("pause", .refused("ringing")),
        ("resume", .refused("ringing")), ("toggle", .ok(.idle)), ("cancel", .ok(.idle)), ("ack", .ok(.idle)),
        ("skip", .ok(.idle)), (extend, .ok(.running)), (set, .refused("set works only while idle")),
        ("watch", .ok(.ringing)),
      ],
    ]
    for phase in Phase.allCases {
      for (request, want) in table[phase]! {
        let (f, fd) = try fixture(in: phase, focus: minutes(2))
        let line = request.hasPrefix("{") ? request : "{\"cmd\":\"\(request)\"}"
        let got = f.reply(fd, line)
        switch want {
        case .ok(let after):
          XCTAssertTrue(got.ok, "\(request) in \(phase): \(got.error ?? "")")
          XCTAssertEqual(got.fields["phase"]?.string, after.rawValue, "\(request) in \(phase)")
          XCTAssertEqual(f.h.device.state.phase, after, "\(request) in \(phase)")
        case .refused(let words):
          XCTAssertFalse(got.ok, "\(request) in \(phase)")
          XCTAssertTrue(got.error?.contains(words) ?? false, "\(request) in \(phase): \(got.error ?? "")")
          XCTAssertEqual(f.h.device.state.phase, phase, "a refused \(request) changes nothing")
        }
        close(fd)
      }
    }
  }

  /// A flow over the socket: `set flow`, `start`, the count and the earned break in the reply,
  /// `extend` refused, `cancel` ending it on the break it earned.
  func testAFlowFromTheSocket() throws {
    let f = try ControlFixture()
    let fd = try f.connect()
    XCTAssertTrue(f.reply(fd, #"{"cmd":"set","mode":"flow"}"#).ok)
    XCTAssertEqual(f.reply(fd, #"{"cmd":"set","duration":"10m"}"#).error?.hasPrefix("a flow counts up"), true)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
    f.h.run(for: seconds(12 * 60 + 34))
    let status = f.reply(fd, #"{"cmd":"status"}"#)
    XCTAssertEqual(status.fields["elapsed_ms"]?.int.map { $0 / 1000 }, 754)
    XCTAssertEqual(status.fields["earned_break_ms"], .int(180_000))
    XCTAssertNil(status.fields["ends_at"], "a flow has no end")
    XCTAssertTrue(
      ControlProtocol.text(status.fields).hasPrefix("running  flow  12:3"), ControlProtocol.text(status.fields))
    XCTAssertTrue(ControlProtocol.text(status.fields).hasSuffix(", break 3:00 earned"))
    let extend = f.reply(fd, #"{"cmd":"extend","by":"5m"}"#)
    XCTAssertEqual(extend.error, "a flow counts up and has no end to extend: end it with cancel")
    let ended = f.reply(fd, #"{"cmd":"cancel"}"#)
    XCTAssertEqual(ended.fields["mode"]?.string, "short")
    XCTAssertEqual(ended.fields["total_ms"], .int(180_000))
    close(fd)
  }

  /// `cancel` while ringing is the cancel button's press: it silences the alarm and counts the
  /// focus as done, exactly as the button (and `ack`) does; Home Assistant's Cancel sends it.
  func testCancelWhileRingingAcknowledgesAsTheCancelButtonDoes() throws {
    XCTAssertEqual(ControlProtocol.events(for: .cancel, in: .ringing), .success([.press(.cancel)]))
    // A flow counts up: nothing to extend, no duration to set; set flow is fine.
    XCTAssertEqual(
      ControlProtocol.events(for: .extend(minutes(5)), in: .running, mode: .flow),
      .failure(.init("a flow counts up and has no end to extend: end it with cancel")))
    for (mode, current) in [(Mode?.none, Mode.flow), (.flow, .focus)] {
      guard
        case .failure(let refusal) = ControlProtocol.events(
          for: .set(mode: mode, duration: minutes(9)), in: .idle, mode: current)
      else { return XCTFail("set \(mode?.rawValue ?? "") 9m in \(current)") }
      XCTAssertTrue(refusal.message.hasPrefix("a flow counts up and takes no duration"), refusal.message)
    }
    XCTAssertEqual(ControlProtocol.events(for: .set(mode: .flow, duration: nil), in: .idle), .success([.select(.flow)]))
    XCTAssertEqual(
      ControlProtocol.events(for: .set(mode: .focus, duration: minutes(9)), in: .idle, mode: .flow),
      .success([.select(.focus), .setDuration(minutes(9))]))
    XCTAssertEqual(ControlProtocol.events(for: .cancel, in: .ringing), ControlProtocol.events(for: .ack, in: .ringing))
    let (button, _) = try fixture(in: .ringing, focus: minutes(2))
    button.h.press(button.h.config.buttonCancel)
    button.h.run(for: seconds(1))
    let (socket, fd) = try fixture(in: .ringing, focus: minutes(2))
    let reply = socket.reply(fd, #"{"cmd":"cancel"}"#)
    XCTAssertTrue(reply.ok, reply.error ?? "")
    socket.h.run(for: seconds(1))
    for f in [button, socket] {
      XCTAssertEqual(f.h.device.state.phase, .idle)
      XCTAssertEqual(f.h.device.state.mode, .shortBreak, "the focus is done: a short break is next")
      XCTAssertEqual(f.h.device.state.focusDoneInCycle, 1, "acknowledged, not cancelled")
    }
    XCTAssertEqual(reply.fields["mode"]?.string, "short")
    close(fd)
  }

  func testRepliesCarryTheStateWithRemainingAndTheWallClockEnd() throws {
    let (f, fd) = try fixture(in: .running)
    let got = f.reply(fd, #"{"cmd":"extend","by":"5m"}"#)
    XCTAssertEqual(got.fields["total_ms"]?.int, 1_800_000)
    XCTAssertEqual(got.fields["remaining_ms"]?.int, 1_740_000)
    XCTAssertEqual(got.fields["remaining"]?.string, "29:00")
    XCTAssertEqual(got.fields["cycle"]?.string, "1/4")
    XCTAssertEqual(
      got.fields["ends_at"]?.string, WallTime(epochSeconds: 1_796_040_000 + 1740, synced: true).iso8601)
    // 1739.6 s left: the end is rounded to the nearest second, not truncated.
    f.h.run(for: ms(400))
    XCTAssertEqual(
      f.reply(fd, #"{"cmd":"status"}"#).fields["ends_at"]?.string,
      WallTime(epochSeconds: 1_796_040_000 + 1740, synced: true).iso8601)
    let set = try fixture(in: .idle)
    let idle = set.0.reply(set.1, #"{"cmd":"set","mode":"long","duration":"20m"}"#)
    XCTAssertEqual(idle.fields["mode"]?.string, "long")
    XCTAssertEqual(idle.fields["total_ms"]?.int, 1_200_000)
    XCTAssertNil(idle.fields["ends_at"], "no end while idle")
  }

  func testBadJSONUnknownCommandsAndOversizedLinesKeepTheConnectionUsable() throws {
    let f = try ControlFixture()
    let fd = try f.connect()
    XCTAssertEqual(f.reply(fd, "status please").error?.hasPrefix("bad request"), true)
    XCTAssertEqual(f.reply(fd, #"{"cmd":"dance"}"#).error?.hasPrefix("unknown command 'dance'"), true)
    XCTAssertEqual(f.reply(fd, #"{"verb":"status"}"#).error?.hasPrefix("missing \"cmd\""), true)
    XCTAssertEqual(f.reply(fd, #"{"cmd":"extend","by":"soon"}"#).error?.hasPrefix("extend takes one duration"), true)
    let long = "{\"cmd\":\"status\",\"pad\":\"" + String(repeating: "x", count: ControlProtocol.maxLine) + "\"}"
    XCTAssertEqual(f.reply(fd, long).error, "request line longer than \(ControlProtocol.maxLine) bytes; ignored")
    // A request split over two writes is one request.
    XCTAssertTrue(UnixSocket.writeAll(fd, Array(#"{"cmd":"st"#.utf8)))
    f.server.turn()
    XCTAssertEqual(f.reply(fd, #"art"}"#).fields["phase"]?.string, "running")
    XCTAssertEqual(f.server.requests, 5, "the oversized line is refused without counting as a request")
    close(fd)
  }

  func testTheSeventeenthClientIsRefusedAndTheSixteenServed() throws {
    let f = try ControlFixture()
    var fds: [Int32] = []
    for _ in 0..<ControlServer.maxClients { fds.append(try f.connect()) }
    let extra = try f.connect()
    var reader = LineReader(fd: extra)
    XCTAssertEqual(
      reader.next(until: SystemClock().now + ms(2000)),
      ControlProtocol.errorReply("too many clients (16 at most); try again later"))
    XCTAssertNil(reader.next(until: SystemClock().now + ms(2000)), "then closed")
    for fd in fds { XCTAssertTrue(f.reply(fd, #"{"cmd":"status"}"#).ok) }
    close(fds.removeLast())
    f.server.turn()
    let again = try f.connect()
    XCTAssertTrue(f.reply(again, #"{"cmd":"status"}"#).ok, "a freed place is taken again")
    XCTAssertEqual(f.h.logLines.filter { $0.1.contains("a client was refused") }.count, 1)
    for fd in fds + [extra, again] { close(fd) }
  }

  func testAWatcherGetsEveryStateChange() throws {
    let f = try ControlFixture()
    let watcher = try f.connect()
    XCTAssertEqual(f.reply(watcher, #"{"cmd":"watch"}"#).fields["phase"]?.string, "idle")
    let fd = try f.connect()
    _ = f.reply(fd, #"{"cmd":"start"}"#)
    f.h.run(for: seconds(10))
    _ = f.reply(fd, #"{"cmd":"pause"}"#)
    f.h.press(f.h.config.buttonStart)  // The button: a watcher sees it too.
    f.h.run(for: seconds(1))
    f.server.turn()
    var reader = LineReader(fd: watcher)
    var phases: [String] = []
    while let line = reader.next(until: SystemClock().now + ms(200)), let o = FlatJSON.decode(line) {
      XCTAssertEqual(o["event"]?.string, "state")
      let changes = o["changes"]?.list?.compactMap(\.string).joined(separator: ",") ?? "none"
      phases.append("\(o["phase"]!.string!) \(o["remaining_ms"]!.int!) \(changes)")
    }
    // Each line says what the step that made it did (`changes`: StateChange's names).
    XCTAssertEqual(phases, ["running 1500000 started", "paused 1490000 paused", "running 1490000 resumed"])
    XCTAssertEqual(f.server.watchers, 1)
  }

  func testAWatcherThatNeverReadsIsDroppedOnceAndTheOthersCarryOn() throws {
    let f = try ControlFixture()
    let lazy = try f.connect()
    XCTAssertTrue(UnixSocket.writeAll(lazy, Array("{\"cmd\":\"watch\"}\n".utf8)))
    f.server.turn()
    let fd = try f.connect()
    // Each set is a state change: a line for the watcher, who never reads.
    var n = 0
    while f.server.dropped == 0 && n < 20_000 {
      XCTAssertTrue(f.reply(fd, "{\"cmd\":\"set\",\"duration\":\"\(n % 2 == 0 ? 10 : 11)m\"}").ok)
      n += 1
    }
    XCTAssertEqual(f.server.dropped, 1)
    XCTAssertEqual(f.server.watchers, 0)
    for _ in 0..<100 { _ = f.reply(fd, "{\"cmd\":\"set\",\"duration\":\"12m\"}") }
    XCTAssertEqual(f.h.logLines.filter { $0.1.contains("dropped a watcher that does not read") }.count, 1)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok, "the device and the other clients carry on")
    close(lazy)
    close(fd)
  }

  /// The real loop on the real clock: a watcher that never reads, a client that floods requests
  /// without reading, and more clients than allowed, over a whole (5-second) focus: the countdown
  /// changes each second on time and the alarm sounds at the deadline.
  func testNonReadingClientsNeverDelayTheCountdownOrTheAlarm() throws {
    var config = DeviceConfig()
    config.engine.presets[.focus] = seconds(5)
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = SystemClock()
    let hardware = try MockHardware(config: config, clock: clock)
    let logLines = LockedLines()
    let device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: .standard(height: 64), storage: nil,
      log: Log(sink: { _, m in logLines.append(m) }))
    let seen = SeenEvents()
    device.observer = seen
    let server = try ControlServer(
      path: directory + "/c.sock", device: device, log: Log(sink: { _, m in logLines.append(m) }))
    defer { server.close() }
    let watcher = try UnixSocket.connect(server.path)
    _ = UnixSocket.writeAll(watcher, Array("{\"cmd\":\"watch\"}\n".utf8))
    let starter = try UnixSocket.connect(server.path)
    _ = UnixSocket.writeAll(starter, Array("{\"cmd\":\"start\"}\n".utf8))
    let flood = try UnixSocket.connect(server.path)
    let floodThread = Thread {
      let line = Array(String(repeating: "{\"cmd\":\"status\"}\n", count: 100).utf8)
      while UnixSocket.writeAll(flood, line) {}
    }
    floodThread.start()
    var extras: [Int32] = []
    for _ in 0..<20 { extras.append(try UnixSocket.connect(server.path)) }
    let everyClient = [watcher, starter, flood] + extras
    // If the server ever blocked on a client, this unblocks it after 10 s (and the alarm is late);
    // only while the test runs: after it, these descriptor numbers are other code's (a later
    // test's Process watches its child through a socketpair that a shutdown would wreck).
    let done = StopBox()
    let rescue = Thread {
      if done.wait(upTo: 10) { return }
      for fd in everyClient { shutdown(fd, Int32(SHUT_RDWR)) }
    }
    rescue.start()
    defer {
      done.stop()
      shutdown(flood, Int32(SHUT_RDWR))
      // Both threads gone before their descriptors are closed and their numbers reused.
      join(rescue, "the rescue thread")
      join(floodThread, "the flooding thread")
      for fd in everyClient { close(fd) }
    }
    let waiter = try PollWaiter(clock: clock)
    device.start()
    let began = clock.now
    _ = try EventLoop.serve(
      device, waiter: waiter, extraDeadline: { seen.buzzerOn != nil ? clock.now : began + seconds(15) },
      sources: [server], onWake: { _ in seen.buzzerOn == nil && clock.now - began <= seconds(15) })
    let running = try XCTUnwrap(seen.runningAt)
    let rang = try XCTUnwrap(seen.buzzerOn, "the alarm sounded")
    XCTAssertEqual(device.state.phaseSince, running + seconds(5), "the engine rang at the deadline exactly")
    XCTAssertGreaterThanOrEqual(rang - running, seconds(5))
    XCTAssertLessThan(rang - running, seconds(5) + ms(150), "the buzzer came on at the deadline, not late")
    for (second, text) in [(1, "00:04"), (2, "00:03"), (3, "00:02"), (4, "00:01")] {
      let at = try XCTUnwrap(seen.frames.first { $0.1 == text }?.0, "\(text) shown")
      XCTAssertLessThan(abs(at - (running + seconds(Int64(second)))), ms(150), "\(text) on time")
    }
    XCTAssertGreaterThanOrEqual(server.dropped, 1, "the flooding client was dropped")
    XCTAssertGreaterThanOrEqual(server.refused, 4, "the clients beyond 16 were refused")
  }
}

final class LockedLines: @unchecked Sendable {
  let lock = NSLock()
  var lines: [String] = []
  func append(_ s: String) { lock.withLock { lines.append(s) } }
}

final class SeenEvents: DeviceObserver {
  var runningAt: Instant?
  var buzzerOn: Instant?
  var frames: [(Instant, String)] = []
  func stateChanged(_ state: EngineState, at: Instant) {
    if state.phase == .running && runningAt == nil { runningAt = at }
  }
  func frameFlushed(bytes: Int, shown: String, at: Instant) { frames.append((at, shown)) }
  func buzzerChanged(_ on: Bool, at: Instant) { if on && buzzerOn == nil { buzzerOn = at } }
  func recorded(_ entry: HistoryEntry, at: Instant) {}
}

extension ControlSocketTests {
  /// Sixteen idle connections cannot lock ctl and the bridge out: a client that is not watching
  /// and sends no request for a minute is closed (told why); watchers and clients that keep
  /// asking stay.
  func testIdleClientsAreClosedAfterAMinuteAndWatchersStay() throws {
    let f = try ControlFixture()
    let start = f.h.clock.now
    let watcher = try f.connect()
    XCTAssertTrue(f.reply(watcher, #"{"cmd":"watch"}"#).ok)
    var idle: [Int32] = []
    for _ in 0..<(ControlServer.maxClients - 1) { idle.append(try f.connect()) }
    XCTAssertEqual(f.server.deadline, start + seconds(60), "the first idle client's minute")
    let extra = try f.connect()
    var reader = LineReader(fd: extra)
    XCTAssertEqual(reader.next(until: SystemClock().now + ms(2000))?.contains("too many clients"), true, "full")
    close(extra)

    f.h.run(for: seconds(30))
    let asker = idle.removeLast()
    XCTAssertTrue(f.reply(asker, #"{"cmd":"status"}"#).ok)  // Its minute starts again.
    f.h.run(for: seconds(30) - 1)
    f.server.turn()
    XCTAssertEqual(f.server.idleClosed, 0, "not before the minute")
    f.h.run(for: 1)
    f.server.turn()
    XCTAssertEqual(f.server.idleClosed, idle.count)
    for fd in idle {
      var r = LineReader(fd: fd)
      XCTAssertEqual(
        r.next(until: SystemClock().now + ms(2000)),
        ControlProtocol.errorReply("closed: no request for 1m; send one sooner, or watch to stay connected"))
      XCTAssertNil(r.next(until: SystemClock().now + ms(2000)), "then closed")
    }
    XCTAssertEqual(f.server.deadline, start + seconds(90), "the asker's minute")
    XCTAssertEqual(f.server.watchers, 1)
    let ctl = try f.connect()
    XCTAssertTrue(f.reply(ctl, #"{"cmd":"status"}"#).ok, "room again")
    f.h.run(for: seconds(30))
    f.server.turn()
    XCTAssertEqual(f.server.idleClosed, idle.count + 1, "the asker, a minute after its request")
    f.h.run(for: seconds(60))
    f.server.turn()
    XCTAssertEqual(f.server.watchers, 1, "a watcher stays however long it is quiet")
    XCTAssertEqual(f.server.idleClosed, idle.count + 2)
    XCTAssertEqual(f.h.logLines.filter { $0.1.contains("closed a client that sent no request for 1m") }.count, 1)
    XCTAssertTrue(f.server.summary.hasSuffix("idle closed"), f.server.summary)
    for fd in idle + [watcher, asker, ctl] { close(fd) }
  }

  /// The device's loop wakes for an idle client's deadline even when the device has none soon.
  func testTheLoopWakesToCloseAnIdleClient() throws {
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = SystemClock()
    let config = DeviceConfig()
    let hardware = try MockHardware(config: config, clock: clock)
    let device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: .standard(height: 64), storage: nil,
      log: Log(sink: { _, _ in }))
    let server = try ControlServer(path: directory + "/c.sock", device: device, log: Log(sink: { _, _ in }))
    defer { server.close() }
    server.idleTimeout = ms(200)
    let idle = try UnixSocket.connect(server.path)
    defer { close(idle) }
    let waiter = try PollWaiter(clock: clock)
    device.start()
    let began = clock.now
    _ = try EventLoop.serve(
      device, waiter: waiter, extraDeadline: { began + seconds(5) }, sources: [server],
      onWake: { _ in server.idleClosed == 0 && clock.now - began < seconds(5) })
    XCTAssertEqual(server.idleClosed, 1)
    XCTAssertLessThan(clock.now - began, seconds(1), "woken at the client's deadline, not the device's")
  }
}

final class PollWaiterTests: XCTestCase {
  /// The timer's expiry wakes the loop without posing as a descriptor that became writable.
  func testATimerExpiryIsNoWritableDescriptor() throws {
    let clock = SystemClock()
    let waiter = try PollWaiter(clock: clock)
    var ends: [Int32] = [-1, -1]
    XCTAssertEqual(pipe(&ends), 0)
    defer { for fd in ends { close(fd) } }
    // A pipe's read end never takes bytes: only the deadline can end this wait.
    let began = clock.now
    let wake = try waiter.wait(until: began + ms(20), watching: [], writable: [ends[0]])
    XCTAssertGreaterThanOrEqual(clock.now - began, ms(20), "woken by the deadline")
    XCTAssertEqual(wake.writable, [], "the timer is not a writable descriptor")
    XCTAssertEqual(wake.readable, [])
    let ready = try waiter.wait(until: clock.now + seconds(5), watching: [], writable: [ends[1]])
    XCTAssertEqual(ready.writable, [ends[1]], "a descriptor that can take bytes is")
  }
}

/// Watchers cannot lock others out (issue 29, item 6): at most 8 of them, the others' places
/// kept for requests, and the watcher quiet longest makes way for a newcomer; a bridge, which
/// asks every 10 s, is never the one.
final class ControlWatcherTests: XCTestCase {
  func watch(_ f: ControlFixture) throws -> (fd: Int32, ok: Bool, error: String?) {
    let fd = try f.connect()
    let reply = f.reply(fd, #"{"cmd":"watch"}"#)
    return (fd, reply.ok, reply.error)
  }

  func testSixteenWatchersLeaveRoomForRequestsAndTheBridge() throws {
    let f = try ControlFixture()
    var watchers: [Int32] = []
    var refused = 0
    for _ in 0..<16 {
      let w = try watch(f)
      if w.ok {
        watchers.append(w.fd)
      } else {
        XCTAssertEqual(w.error, "too many watchers (8 at most, each asking within 30s); try again later")
        refused += 1
        close(w.fd)  // as `ctl watch` does when refused
      }
    }
    XCTAssertEqual(watchers.count, ControlServer.maxWatchers)
    XCTAssertEqual(refused, 8, "fresh watchers are not made to go")
    var others: [Int32] = []
    for _ in 0..<(ControlServer.maxClients - ControlServer.maxWatchers) {
      let fd = try f.connect()
      XCTAssertTrue(f.reply(fd, #"{"cmd":"status"}"#).ok, "requests are served whatever the watchers hold")
      others.append(fd)
    }
    // All 16 places taken; 30 s later the watchers are quiet, and a request's client takes the
    // place of the one quiet longest, which is told why.
    f.h.run(for: seconds(30))
    for fd in others { XCTAssertTrue(f.reply(fd, #"{"cmd":"status"}"#).ok) }
    let ctl = try f.connect()
    XCTAssertTrue(f.reply(ctl, #"{"cmd":"status"}"#).ok, "ctl status gets its place")
    var first = LineReader(fd: watchers[0])
    XCTAssertEqual(
      first.next(until: SystemClock().now + ms(2000)),
      ControlProtocol.errorReply(
        "closed: this watcher made way for a new client (it sent nothing for 30s; 16 clients and 8 watchers at "
          + "most); watch again to come back"))
    XCTAssertNil(first.next(until: SystemClock().now + ms(2000)), "then closed")
    close(watchers.removeFirst())
    close(ctl)
    f.server.turn()
    // A bridge: its watch takes a quiet watcher's place, and its status every 10 s keeps it
    // there while new watchers come and go.
    let bridge = try watch(f)
    XCTAssertTrue(bridge.ok, "the bridge gets in: \(bridge.error ?? "")")
    for round in 0..<20 {
      f.h.run(for: seconds(10))
      XCTAssertTrue(f.reply(bridge.fd, #"{"cmd":"status"}"#).ok, "the bridge still served (round \(round))")
      for fd in others { _ = f.reply(fd, #"{"cmd":"status"}"#) }
      let newcomer = try watch(f)
      if !newcomer.ok { close(newcomer.fd) }
      f.server.turn()
      XCTAssertLessThanOrEqual(f.server.watchers, ControlServer.maxWatchers)
    }
    XCTAssertEqual(f.server.watchers, ControlServer.maxWatchers)
    XCTAssertGreaterThanOrEqual(f.server.watchersClosed, 8, "the status bars' watchers made way")
    XCTAssertEqual(
      f.h.logLines.filter { $0.1.contains("closed the watcher quiet longest") }.count, 1, "said once")
    XCTAssertTrue(f.server.summary.contains("watchers made way"), f.server.summary)
    for fd in watchers + others + [bridge.fd] { close(fd) }
  }
}

/// A burst of commands (issue 29, item 1): a client's lines are answered 16 a wake, in turns
/// with the other clients, so the loop goes back to the buttons, the display, the alarm and the
/// watchdog between; the state is saved once a batch, before the replies go out.
final class ControlBurstTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// A device with its storage (state.json saved for real) and its control socket.
  func storedDevice() throws -> (DeviceHarness, ControlServer) {
    let h = try DeviceHarness(directory: directory)
    let server = try ControlServer(
      path: directory + "/c.sock", device: h.device, log: h.device.log,
      wallClock: { WallTime(epochSeconds: 1_796_040_000, synced: true) })
    h.device.start()
    return (h, server)
  }

  /// Reads every whole line `fd` has now.
  func drain(_ fd: Int32, into reader: inout LineReader) -> [String] {
    var lines: [String] = []
    while let line = reader.next(until: SystemClock().now + ms(20)) { lines.append(line) }
    return lines
  }

  func testEightHundredTogglesInOneWriteAreAnsweredSixteenAWakeInTurnsWithOthers() throws {
    let (h, server) = try storedDevice()
    defer { server.close() }
    let flood = try UnixSocket.connect(server.path)
    let other = try UnixSocket.connect(server.path)
    defer { for fd in [flood, other] { close(fd) } }
    server.turn()
    let savesBefore = h.device.saves
    XCTAssertTrue(
      UnixSocket.writeAll(flood, Array(String(repeating: "{\"cmd\":\"toggle\"}\n", count: 800).utf8)))
    XCTAssertTrue(UnixSocket.writeAll(other, Array("{\"cmd\":\"status\"}\n".utf8)))
    server.turn()
    XCTAssertEqual(server.requests, ControlServer.linesPerWake + 1, "16 of the flood's and the other's one")
    XCTAssertEqual(h.device.saves - savesBefore, 1, "one save for the batch")
    XCTAssertNotNil(server.deadline.map { $0 <= h.clock.now }, "the loop comes back at once for the rest")
    var otherReader = LineReader(fd: other)
    XCTAssertEqual(drain(other, into: &otherReader).count, 1, "the other client answered in the first wake")
    var floodReader = LineReader(fd: flood)
    var replies = drain(flood, into: &floodReader)
    XCTAssertEqual(replies.count, ControlServer.linesPerWake)
    var wakes = 1
    while server.requests < 801 && wakes < 1000 {
      // Between wakes the device steps: a button would be read here.
      h.device.step()
      server.turn()
      wakes += 1
      replies += drain(flood, into: &floodReader)
    }
    replies += drain(flood, into: &floodReader)
    // 16 a wake; a few more where a 4 KiB read ends between lines.
    XCTAssertTrue((50...56).contains(wakes), "800 lines in \(wakes) wakes")
    XCTAssertEqual(replies.count, 800)
    XCTAssertTrue(replies.allSatisfy { $0.hasPrefix("{\"ok\":true") })
    XCTAssertEqual(h.device.state.phase, .paused, "started, then 799 toggles")
    XCTAssertLessThanOrEqual(h.device.saves - savesBefore, 50 + 50, "a save a batch (and a step), not 800")
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .paused, "the last state saved")
  }

  /// Two floods and a status: each wake answers them in turns, and the status in the first.
  func testTurnsGoRoundAmongFloodingClients() throws {
    let (h, server) = try storedDevice()
    defer { withExtendedLifetime(h) { server.close() } }
    let a = try UnixSocket.connect(server.path)
    let b = try UnixSocket.connect(server.path)
    defer { for fd in [a, b] { close(fd) } }
    server.turn()
    for fd in [a, b] {
      XCTAssertTrue(UnixSocket.writeAll(fd, Array(String(repeating: "{\"cmd\":\"status\"}\n", count: 100).utf8)))
    }
    var readers = [LineReader(fd: a), LineReader(fd: b)]
    var counts = [0, 0]
    for wake in 1...3 {
      server.turn()
      for i in 0..<2 { counts[i] += drain([a, b][i], into: &readers[i]).count }
      XCTAssertEqual(counts, [16 * wake, 16 * wake], "wake \(wake): both served alike")
    }
  }

  /// The reply to a command follows the save of the state it made.
  func testAReplyFollowsTheSaveOfItsState() throws {
    let (h, server) = try storedDevice()
    defer { withExtendedLifetime(h) { server.close() } }
    let fd = try UnixSocket.connect(server.path)
    defer { close(fd) }
    server.turn()
    XCTAssertTrue(UnixSocket.writeAll(fd, Array("{\"cmd\":\"start\"}\n".utf8)))
    server.turn()
    var reader = LineReader(fd: fd)
    XCTAssertEqual(reader.next(until: SystemClock().now + ms(2000))?.contains("\"phase\":\"running\""), true)
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .running, "saved before the reply")
  }
}

extension ControlBurstTests {
  /// A save due while a button settles waits for the step that acts on the press (50 ms at
  /// most), so that the press is not held up behind the save's fsyncs; that step saves both.
  func testASaveWaitsForAButtonSettlingThenSavesWithIt() throws {
    let h = try DeviceHarness(directory: directory)
    h.device.start()
    let start = h.clock.now
    h.press(h.config.buttonStart, at: ms(10))
    h.clock.advance(to: start + ms(15))
    h.device.step()  // the edge is read; the press settles at 30 ms
    let saves = h.device.saves
    h.device.perform(.press(.start))  // a command: running, a save due
    h.device.saveIfDue()
    XCTAssertEqual(h.device.saves, saves, "held back: the button settles within 50 ms")
    XCTAssertTrue(h.device.saveDue)
    h.run(for: ms(20))
    XCTAssertEqual(h.device.state.phase, .paused, "the press acted at once")
    XCTAssertEqual(h.device.saves, saves + 1, "one save for both")
    XCTAssertEqual(try StateStore(directory: directory).load()?.phase, .paused)
  }
}
