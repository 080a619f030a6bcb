import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// Serves a fixture's control socket from a thread while the test runs `pomodoro ctl` (which
/// blocks on its reply). The device is touched only by that thread meanwhile.
final class SocketPump: @unchecked Sendable {
  let fixture: ControlFixture
  var box = StopBox()
  var thread: Thread?

  init(_ fixture: ControlFixture) { self.fixture = fixture }

  /// Serves until stopped; `also` runs once, on the pump's thread, when `watchers` clients
  /// watch (ctl's `watch` among them, answered: what it does to the device is ctl's to see).
  func start(watchers: Int = 1, also: (@Sendable (ControlFixture) -> Void)? = nil) {
    let box = StopBox()
    self.box = box
    let t = Thread { [self] in
      var also = also
      while !box.stopped {
        fixture.server.turn(waitingUpTo: 2)
        if let run = also, fixture.server.watchers >= watchers {
          also = nil
          run(fixture)
        }
      }
    }
    thread = t
    t.start()
  }

  func stop() {
    box.stop()
    join(thread, "the socket pump")
  }

  func ctl(_ words: [String]) -> (code: Int32, out: String, err: String) {
    start()
    defer { stop() }
    return captureOutput { PomodoroCLI.main(["ctl"] + words + ["--socket", fixture.path]) }
  }
}

/// A stand-in for the device, for ctl's failure paths: takes one connection, reads its request
/// line, then replies `reply` and closes, or closes without a word, or stays silent until stopped,
/// or trickles: a byte (never a whole line) every 50 ms until stopped (60 s at most), then closes.
final class FakeDevice: @unchecked Sendable {
  enum Behaviour: Sendable {
    case reply(String)
    case close
    case silent
    case trickle
  }

  let path: String
  let listener: Int32
  let box = StopBox()
  var thread: Thread?

  init(directory: String, _ behaviour: Behaviour) throws {
    path = directory + "/fake.sock"
    listener = try UnixSocket.listen(path, group: nil).fd
    let listener = listener
    let box = box
    let t = Thread {
      // Waits for ctl's connection, or for the test to be over.
      var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      while !box.stopped && poll(&p, 1, 100) == 0 {}
      guard !box.stopped, p.revents & Int16(POLLIN) != 0 else { return }
      let fd = accept(listener, nil, nil)
      guard fd >= 0 else { return }
      defer { close(fd) }
      var reader = LineReader(fd: fd)
      _ = reader.next(until: SystemClock().now + seconds(Int64(Waiting.limit)))
      switch behaviour {
      case .reply(let line): UnixSocket.writeAll(fd, Array((line + "\n").utf8))
      case .close: break
      case .silent: box.wait(upTo: Waiting.limit)
      case .trickle:
        // The peer's pace is what the test is about (a byte well within the reply timeout,
        // never a line): a fixed pause, cut short when the test is over.
        for _ in 0..<1200 where !box.wait(upTo: 0.05) {
          if !UnixSocket.writeAll(fd, Array("{".utf8)) { break }  // ctl has gone
        }
      }
    }
    thread = t
    t.start()
  }

  func stop() {
    box.stop()
    join(thread, "the fake device")
    close(listener)
    unlink(path)
  }
}

final class CtlCommandTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// `pomodoro ctl WORDS --socket PATH` with a reply timeout of `timeout`.
  func ctl(_ words: [String], at path: String, timeout: Nanoseconds = CtlCommand.replyTimeout) -> (
    code: Int32, out: String, err: String, seconds: Double
  ) {
    let began = Date()
    let r = captureOutput {
      (try? CtlCommand.run(ArraySlice(words + ["--socket", path]), replyTimeout: timeout)) ?? -1
    }
    return (r.code, r.out, r.err, Date().timeIntervalSince(began))
  }

  /// A device that refused the client wrote why and closed before the request went out: the
  /// write fails (EPIPE), and ctl still reads the refusal and reports it (exit 1).
  func testARefusalIsReadWhenTheRequestCannotBeWritten() throws {
    var pair: [Int32] = [-1, -1]
    XCTAssertEqual(socketpair(AF_UNIX, streamSocketType, 0, &pair), 0)
    let refusal = ControlProtocol.errorReply("too many clients (16 at most); try again later")
    XCTAssertTrue(UnixSocket.writeAll(pair[1], Array((refusal + "\n").utf8)))
    close(pair[1])
    XCTAssertFalse(UnixSocket.writeAll(pair[0], Array("x\n".utf8)), "the request cannot be written")
    let r = captureOutput {
      CtlCommand.exchange(
        pair[0], path: "/run/pomodoro/control.sock", command: .status, json: false, replyTimeout: seconds(5))
    }
    close(pair[0])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertEqual(r.err, "pomodoro: too many clients (16 at most); try again later\n")
  }

  /// With 16 clients connected, ctl says "too many clients" (exit 1) every time, whether its
  /// request went out before the refusal or failed after it.
  func testWithSixteenClientsCtlSaysTooManyClients() throws {
    let f = try ControlFixture()
    var fds: [Int32] = []
    for _ in 0..<ControlServer.maxClients { fds.append(try f.connect()) }
    defer { for fd in fds { close(fd) } }
    // Served as the device's loop serves it: woken by poll the moment ctl connects, so the
    // refusal and the close usually come before ctl's request (which then fails).
    let box = StopBox()
    nonisolated(unsafe) let server = f.server
    let thread = Thread {
      while !box.stopped {
        var fds = server.readDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        if poll(&fds, nfds_t(fds.count), 20) > 0 { server.turn() }
      }
    }
    thread.start()
    defer {
      box.stop()
      join(thread, "the server's thread")
    }
    for attempt in 0..<20 {
      let r = ctl(["status"], at: f.path)
      XCTAssertEqual(r.code, ExitCode.failure, "attempt \(attempt): \(r.err)")
      XCTAssertEqual(r.err, "pomodoro: too many clients (16 at most); try again later\n", "attempt \(attempt)")
    }
  }

  func testADeviceThatClosesWithoutAReplySaysSoAtOnce() throws {
    let fake = try FakeDevice(directory: directory, .close)
    defer { fake.stop() }
    let r = ctl(["status"], at: fake.path, timeout: seconds(60))
    XCTAssertEqual(r.code, ExitCode.unavailable)
    XCTAssertEqual(
      r.err,
      "pomodoro: the device at \(fake.path) closed the connection without a reply: stopping or restarting? systemctl status pomodoro\n"
    )
    XCTAssertLessThan(r.seconds, 30, "at once, not after the reply timeout (60 s)")
  }

  func testNoReplyInTimeExits75() throws {
    let fake = try FakeDevice(directory: directory, .silent)
    defer { fake.stop() }
    let r = ctl(["pause"], at: fake.path, timeout: ms(200))
    XCTAssertEqual(r.code, ExitCode.noAnswer)
    XCTAssertEqual(r.code, 75)
    XCTAssertEqual(
      r.err, "pomodoro: no reply from \(fake.path) within 200ms: is the device stuck? systemctl status pomodoro\n")
    XCTAssertGreaterThanOrEqual(r.seconds, 0.2)
    XCTAssertEqual(r.out, "")
  }

  /// The reply timeout is for the whole reply, not for each read: a peer that sends a byte every
  /// 50 ms (each well within 200 ms) still gets exit 75 after 200 ms, not after its 60 s.
  func testAPeerThatTricklesBytesCannotHoldCtlPastTheTimeout() throws {
    let fake = try FakeDevice(directory: directory, .trickle)
    defer { fake.stop() }
    let r = ctl(["status"], at: fake.path, timeout: ms(200))
    XCTAssertEqual(r.code, ExitCode.noAnswer)
    XCTAssertEqual(
      r.err, "pomodoro: no reply from \(fake.path) within 200ms: is the device stuck? systemctl status pomodoro\n")
    XCTAssertLessThan(r.seconds, 30, "the 200 ms limit, not the peer's 60 s of trickling")
  }

  /// What the device (or whatever answers on the socket) says reaches the terminal with its
  /// control characters escaped: no escape sequence, no second line.
  func testTheDevicesTextReachesTheTerminalEscaped() throws {
    let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J"
    let bad = try FakeDevice(directory: directory, .reply("junk\(hostile)\nsecond"))
    let r1 = ctl(["status"], at: bad.path)
    bad.stop()
    XCTAssertEqual(r1.code, ExitCode.protocolError)
    XCTAssertEqual(
      r1.err, "pomodoro: unexpected reply from \(bad.path): junk\\u{1B}]0;owned\\u{7}\\u{1B}[2J\n")
    let refusal = try FakeDevice(directory: directory, .reply(#"{"ok":false,"error":"no\u001b[31m red"}"#))
    let r2 = ctl(["start"], at: refusal.path)
    refusal.stop()
    XCTAssertEqual(r2.code, ExitCode.failure)
    XCTAssertEqual(r2.err, "pomodoro: no\\u{1B}[31m red\n")
    let json = try FakeDevice(directory: directory, .reply("{\"ok\":false,\"error\":\"x\u{1B}[2J\"}"))
    let r3 = ctl(["start", "--json"], at: json.path)
    json.stop()
    XCTAssertEqual(r3.out, "{\"ok\":false,\"error\":\"x\\u001b[2J\"}\n", "JSON's escape: the line still parses")
  }

  /// ctl believes a reply only from a socket served by the user, root or the service's user:
  /// another local user who bound the name first gets exit 69, not a made-up state.
  func testCtlBelievesOnlyADeviceServedByTheUserRootOrTheService() throws {
    let state = #"{"ok":true,"phase":"idle","mode":"focus","remaining_ms":1500000,"total_ms":1500000}"#
    let squatter = try FakeDevice(directory: directory, .reply(state))
    let began = Date()
    let refused = captureOutput {
      (try? CtlCommand.run(["status", "--socket", squatter.path], replyTimeout: seconds(60), trusts: { $0 == 12345 }))
        ?? -1
    }
    squatter.stop()
    XCTAssertEqual(refused.code, ExitCode.unavailable)
    XCTAssertEqual(
      refused.err,
      "pomodoro: \(squatter.path) is served by uid \(getuid()), not by you, root or pomodoro: not believing it; "
        + "remove the socket and start the device or the simulator again\n")
    XCTAssertEqual(refused.out, "", "no state printed")
    XCTAssertLessThan(Date().timeIntervalSince(began), 30, "at once, not after the reply timeout (60 s)")

    XCTAssertTrue(ControlPaths.trusts(peer: 1000, me: 1000, service: 999), "the user itself")
    XCTAssertTrue(ControlPaths.trusts(peer: 0, me: 1000, service: 999), "root")
    XCTAssertTrue(ControlPaths.trusts(peer: 999, me: 1000, service: 999), "the service's user")
    XCTAssertFalse(ControlPaths.trusts(peer: 1001, me: 1000, service: 999), "another user")
    XCTAssertFalse(ControlPaths.trusts(peer: 1001, me: 1000, service: nil), "another user, no service user")
  }

  /// Without XDG_RUNTIME_DIR the simulator's socket lives in the user's own 0700 folder, which is
  /// made without following a link and refused when it is not the user's own.
  func testTheSimulatorsFallbackSocketIsInAPrivateFolder() throws {
    let saved = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
    defer { if let saved { setenv("XDG_RUNTIME_DIR", saved, 1) } else { unsetenv("XDG_RUNTIME_DIR") } }
    unsetenv("XDG_RUNTIME_DIR")
    XCTAssertEqual(ControlPaths.simulator, "/tmp/pomodoro-\(getuid())/simulator.sock")
    setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1)
    XCTAssertEqual(ControlPaths.simulator, "/run/user/1000/pomodoro-simulator.sock")

    let fresh = directory + "/fresh"
    try ControlPaths.makePrivate(fresh)
    var info = stat()
    XCTAssertEqual(lstat(fresh, &info), 0)
    XCTAssertEqual(info.st_mode & 0o777, 0o700)
    XCTAssertNoThrow(try ControlPaths.makePrivate(fresh), "its own folder again")

    let open = directory + "/open"
    mkdir(open, 0o700)
    chmod(open, 0o755)
    XCTAssertThrowsError(try ControlPaths.makePrivate(open)) {
      XCTAssertEqual("\($0)", "\(open) lets other users in (mode 755): chmod 700 \(open)")
    }
    let link = directory + "/link"
    symlink(fresh, link)
    XCTAssertThrowsError(try ControlPaths.makePrivate(link)) {
      XCTAssertEqual("\($0)", "\(link) is not a folder (a link or a file): remove it, then start again")
    }
    if getuid() == 0 {
      let theirs = directory + "/theirs"
      mkdir(theirs, 0o700)
      chown(theirs, 65534, 65534)
      XCTAssertThrowsError(try ControlPaths.makePrivate(theirs)) {
        XCTAssertTrue("\($0)".hasPrefix("\(theirs) belongs to uid 65534, not to you (uid 0)"), "\($0)")
      }
    }
  }

  func testABadReplyExits76NamingIt() throws {
    let fake = try FakeDevice(directory: directory, .reply("HTTP/1.1 400 Bad Request"))
    defer { fake.stop() }
    let r = ctl(["status", "--json"], at: fake.path)
    XCTAssertEqual(r.code, ExitCode.protocolError)
    XCTAssertEqual(r.code, 76)
    XCTAssertEqual(r.err, "pomodoro: unexpected reply from \(fake.path): HTTP/1.1 400 Bad Request\n")
    XCTAssertEqual(r.out, "")
  }

  /// A socket the user may not open: exit 77 and the group to join. Root passes every
  /// permission check, so as root the real binary runs as nobody (setpriv).
  func testPermissionDeniedExits77NamingTheGroup() throws {
    let f = try ControlFixture()
    chmod(f.path, 0o660)
    let code: Int32
    let err: String
    if getuid() != 0 {
      chmod(f.path, 0o000)
      let r = ctl(["status"], at: f.path)
      (code, err) = (r.code, r.err)
    } else {
      (code, err) = try ChildProcess.runAsNobody(["ctl", "status", "--socket", f.path])
    }
    XCTAssertEqual(code, ExitCode.noPermission, err)
    XCTAssertEqual(code, 77)
    XCTAssertEqual(
      err,
      "pomodoro: permission denied on \(f.path): add yourself to the group pomodoro (sudo usermod -aG pomodoro $USER, then log in again)\n"
    )
  }

  func testStatusReadsAsTextAndAsJSON() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    var r = pump.ctl(["start"])
    XCTAssertEqual(r.code, 0, r.err)
    let ends = WallTime(epochSeconds: 1_796_040_000 + 1500, synced: true).localHourMinute
    XCTAssertEqual(r.out, "running  focus 1/4  25:00 left, ends \(ends)\n")
    f.h.run(for: seconds(90))
    r = pump.ctl(["status", "--json"])
    XCTAssertEqual(r.code, 0)
    let state = try XCTUnwrap(ControlProtocol.decodeReply(r.out.trimmingCharacters(in: .newlines)))
    guard case .success(let fields) = state else { return XCTFail(r.out) }
    XCTAssertEqual(fields["remaining_ms"]?.int, 1_410_000)
    XCTAssertEqual(fields["phase"]?.string, "running")
    r = pump.ctl(["pause"])
    XCTAssertEqual(r.out, "paused  focus 1/4  23:30 left\n")
  }

  func testCommandsActAsTheButtonsAndRefusalsSayWhy() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    var r = pump.ctl(["pause"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertEqual(r.out, "")
    XCTAssertEqual(r.err, "pomodoro: nothing to pause: the timer is idle\n")
    r = pump.ctl(["set", "soft", "6m"])
    XCTAssertEqual(r.code, 0, r.err)
    XCTAssertEqual(r.out, "idle  soft  06:00\n")
    XCTAssertEqual(f.h.device.state.duration, minutes(6))
    r = pump.ctl(["start"])
    r = pump.ctl(["extend", "5m"])
    XCTAssertEqual(f.h.device.state.duration, minutes(11))
    r = pump.ctl(["set", "focus"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertTrue(r.err.contains("set works only while idle"), r.err)
  }

  func testUsageErrorsNameTheMistake() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    for (words, words2) in [
      (["extend"], "extend takes one duration"), (["dance"], "unknown command 'dance'"),
      (["set", "lunch"], "neither a mode"), (["status", "now"], "status takes no argument"),
    ] {
      let r = pump.ctl(words)
      XCTAssertEqual(r.code, ExitCode.usage, "\(words)")
      XCTAssertTrue(r.err.contains(words2), r.err)
    }
    XCTAssertEqual(f.server.requests, 0, "nothing was sent")
  }

  func testNoDeviceAndNoPermissionSayWhatToDo() throws {
    let r = captureOutput { PomodoroCLI.main(["ctl", "status", "--socket", "/nonexistent/pomodoro.sock"]) }
    XCTAssertEqual(r.code, ExitCode.unavailable)
    XCTAssertTrue(r.err.hasSuffix("is pomodoro running? systemctl status pomodoro\n"), r.err)
    // Root passes every permission check, so the refusal's advice is checked directly.
    let (code, message) = CtlCommand.advice(connecting: "/run/pomodoro/control.sock", errno: EACCES)
    XCTAssertEqual(code, 77)
    XCTAssertTrue(message.contains("add yourself to the group pomodoro"))
  }

  func testWatchPrintsEveryChangeUntilTheDeviceGoes() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    pump.start(also: { f in
      f.h.device.perform(.press(.start))
      f.h.device.perform(.press(.start))
      f.server.close()
    })
    defer { pump.stop() }
    let r = captureOutput { PomodoroCLI.main(["ctl", "watch", "--socket", f.path]) }
    XCTAssertEqual(r.code, ExitCode.unavailable)
    XCTAssertEqual(
      r.out.split(separator: "\n").map(String.init),
      [
        "idle  focus 1/4  25:00",
        "running  focus 1/4  25:00 left, ends \(WallTime(epochSeconds: 1_796_040_000 + 1500, synced: true).localHourMinute)",
        "paused  focus 1/4  25:00 left",
      ])
    XCTAssertTrue(r.err.contains("the device closed the connection"), r.err)
  }
}

extension CtlCommandTests {
  /// A `ctl watch` that made way for a newer watcher says why the device closed it.
  func testAWatcherThatMadeWaySaysWhy() throws {
    let f = try ControlFixture()
    let others = try (0..<(ControlServer.maxWatchers - 1)).map { _ in
      let fd = try f.connect()
      XCTAssertTrue(f.reply(fd, #"{"cmd":"watch"}"#).ok)
      return fd
    }
    defer { for fd in others { close(fd) } }
    let pump = SocketPump(f)
    pump.start(
      watchers: ControlServer.maxWatchers,
      also: { f in
        // Once ctl watches (a busy machine may start it late), 30 s on, the others ask something:
        // ctl's watcher is the one quiet longest.
        f.h.clock.advance(by: seconds(30))
        for fd in others { _ = UnixSocket.writeAll(fd, Array("{\"cmd\":\"status\"}\n".utf8)) }
        f.server.turn()
        if let newcomer = try? UnixSocket.connect(f.path) {
          f.server.turn()  // accepted
          _ = UnixSocket.writeAll(newcomer, Array("{\"cmd\":\"watch\"}\n".utf8))
          f.server.turn()  // its watch answered
        }
        f.server.close()  // whatever happened: ctl's watch ends here at the latest
      })
    defer { pump.stop() }
    let r = captureOutput { PomodoroCLI.main(["ctl", "watch", "--socket", f.path]) }
    XCTAssertEqual(r.code, ExitCode.unavailable)
    XCTAssertEqual(r.out, "idle  focus 1/4  25:00\n")
    XCTAssertTrue(
      r.err.contains("the device closed the connection (closed: this watcher made way for a new watcher"), r.err)
  }

  /// `pomodoro ctl config` end to end against a real control server: the table (key, value,
  /// from), --json's item lines, set and reset printing the new row and applying at once, the
  /// device's refusals on stderr (exit 1, the config file's message), usage errors (exit 64).
  func testCtlConfigListsSetsAndResets() throws {
    let f = try ControlFixture(storing: true)
    let pump = SocketPump(f)
    var r = pump.ctl(["config"])
    XCTAssertEqual(r.code, ExitCode.ok, r.err)
    var rows = r.out.split(separator: "\n").map(String.init)
    XCTAssertEqual(rows.count, ConfigKey.settableKeys.count + 1)
    XCTAssertEqual(rows.first?.split(separator: " "), ["KEY", "VALUE", "FROM"])
    // A family's row (`profile NAME`, no profile defined) is listed by its name's first word.
    XCTAssertEqual(
      rows.dropFirst().map { String($0.prefix { $0 != " " }) },
      ConfigKey.settableKeys.map { String($0.name.prefix { $0 != " " }) })
    XCTAssertTrue(rows.contains("modes              focus short long soft medium hard flow  default"), r.out)
    XCTAssertTrue(rows.contains("focus              25m                                     default"), r.out)

    r = pump.ctl(["config", "--json"])
    XCTAssertEqual(r.code, ExitCode.ok, r.err)
    rows = r.out.split(separator: "\n").map(String.init)
    XCTAssertEqual(
      rows, f.h.device.layers.items.map(ControlProtocol.itemLine), "the item lines as the device sends them")

    r = pump.ctl(["config", "set", "focus", "30m"])
    XCTAssertEqual(r.code, ExitCode.ok, r.err)
    XCTAssertEqual(r.out, "focus  30m  set\n")
    XCTAssertEqual(pump.ctl(["status"]).out, "idle  focus 1/4  30:00\n", "the picker shows it at once")
    r = pump.ctl(["config", "set", "modes", "focus", "flow"])
    XCTAssertEqual(r.out, "modes  focus flow  set\n")
    XCTAssertEqual(f.h.device.config.engine.modes, [.focus, .flow])

    r = pump.ctl(["config", "set", "focus", "2"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertEqual(r.out, "")
    XCTAssertEqual(
      r.err, "pomodoro: bad value '2' for 'focus'; expected a duration from 5s to 23h59m59s, like 25m or 1m30s\n")
    r = pump.ctl(["config", "set", "contrast", "100"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertEqual(
      r.err,
      "pomodoro: 'contrast' is read only when the device starts: set it in /etc/pomodoro/pomodoro.conf, then sudo "
        + "systemctl restart pomodoro applies it\n")
    r = pump.ctl(["config", "reset", "mqtt_host"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertTrue(r.err.contains("'mqtt_host' is the MQTT bridge's: set it in /etc/pomodoro/pomodoro.conf"), r.err)
    r = pump.ctl(["config", "set", "fokus", "30m", "--json"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertEqual(r.out, ControlProtocol.errorReply(ConfigParser.unknownKey("fokus")) + "\n")

    r = pump.ctl(["config", "reset", "focus"])
    XCTAssertEqual(r.code, ExitCode.ok, r.err)
    XCTAssertEqual(r.out, "focus  25m  default\n")
    XCTAssertEqual(pump.ctl(["status"]).out, "idle  focus 1/4  25:00\n")

    r = pump.ctl(["config", "set", "focus"])
    XCTAssertEqual(r.code, ExitCode.usage)
    XCTAssertTrue(r.err.hasPrefix("pomodoro: config: set takes a key and a value, like: config set focus 30m\n"), r.err)
  }

  /// Every control command's words are in `pomodoro help ctl` (`config_set` as `config set`).
  func testCtlsHelpNamesEveryCommand() {
    let words =
      " "
      + PomodoroCLI.command("ctl")!.help.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(
        separator: " ") + " "
    for name in ControlCommand.names {
      XCTAssertTrue(words.contains(" " + name.replacingOccurrences(of: "_", with: " ") + " "), name)
    }
  }
}
