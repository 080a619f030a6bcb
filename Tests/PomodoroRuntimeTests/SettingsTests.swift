import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

/// Settings from the control socket (issue 28, item 5; issue 29, item 5's tail): a set applies at
/// once as SIGHUP's live keys do, is kept in the state directory's overlay over the config file,
/// survives a restart and a power cut, stays over the file through SIGHUP, and a reset (or the
/// overlay deleted, then SIGHUP) brings the file's value back.
final class SettingsTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  var overlayPath: String { directory + "/" + ConfigLayers.overlayName }

  /// Sees what the device shows.
  final class Recorder: DeviceObserver {
    var shown: [String] = []
    func stateChanged(_ state: EngineState, at: Instant) {}
    func frameFlushed(bytes: Int, shown: String, at: Instant) { self.shown.append(shown) }
    func buzzerChanged(_ on: Bool, at: Instant) {}
    func recorded(_ entry: HistoryEntry, at: Instant) {}
  }

  func items(_ result: Result<[String], ControlProtocol.Refusal>) throws -> [[String: JSONValue]] {
    try result.get().map { try XCTUnwrap(ControlProtocol.decodeItem($0)?.fields) }
  }

  /// `config_set focus 30m` on the idle picker showing focus at its preset: the item line and
  /// the reply say 30m, the frame after it shows 30:00, and Start runs 30:00.
  func testASetShowsOnTheIdlePickerAtOnceAndStartRunsIt() throws {
    let f = try ControlFixture(storing: true)
    let recorder = Recorder()
    f.server.next = recorder
    let fd = try f.connect()
    defer { close(fd) }
    let lines = f.exchange(fd, #"{"cmd":"config_set","key":"focus","value":"30m"}"#)
    XCTAssertEqual(lines.count, 2, "\(lines)")
    let item = try XCTUnwrap(ControlProtocol.decodeItem(lines.first ?? ""))
    XCTAssertEqual(item.kind, "config")
    XCTAssertEqual(item.fields["value"], .string("30m"))
    XCTAssertEqual(item.fields["from"], .string("set"))
    let state = try XCTUnwrap(try? ControlProtocol.decodeReply(lines.last ?? "")?.get())
    XCTAssertEqual(state["remaining"], .string("30:00"), "the reply's state has it")
    XCTAssertEqual(recorder.shown.last, "30:00", "painted in the step after the request")
    let started = f.reply(fd, #"{"cmd":"start"}"#)
    XCTAssertEqual(started.fields["total_ms"], .int(1_800_000), "Start runs the new preset")
    XCTAssertEqual(f.h.device.state.duration, minutes(30))
  }

  /// A picker the owner dialed keeps its time; one showing another mode keeps its own; both
  /// take the new preset when they come to it.
  func testADialedPickerOrAnotherModesKeepsItsTime() throws {
    let f = try ControlFixture(storing: true)
    let fd = try f.connect()
    defer { close(fd) }
    XCTAssertTrue(f.reply(fd, #"{"cmd":"set","duration":"26m"}"#).ok)
    XCTAssertEqual(f.exchange(fd, #"{"cmd":"config_set","key":"focus","value":"30m"}"#).count, 2)
    XCTAssertEqual(f.h.device.state.duration, minutes(26), "dialed: kept")
    XCTAssertEqual(f.h.device.state.settings.presets[.focus], minutes(30))
    XCTAssertTrue(f.reply(fd, #"{"cmd":"set","mode":"short"}"#).ok)
    XCTAssertEqual(f.exchange(fd, #"{"cmd":"config_set","key":"long_break","value":"20m"}"#).count, 2)
    XCTAssertEqual(f.h.device.state.duration, minutes(5), "another mode's picker: kept")
    XCTAssertTrue(f.reply(fd, #"{"cmd":"set","mode":"long"}"#).ok)
    XCTAssertEqual(f.h.device.state.duration, minutes(20), "and the new preset when it comes to it")
  }

  /// Refusals are the config file's messages, and change nothing (no overlay written).
  func testARefusedSetChangesNothing() throws {
    let f = try ControlFixture(storing: true)
    let fd = try f.connect()
    defer { close(fd) }
    let bad = f.reply(fd, #"{"cmd":"config_set","key":"focus","value":"2"}"#)
    XCTAssertEqual(
      bad.error, "bad value '2' for 'focus'; expected a duration from 5s to 23h59m59s, like 25m or 1m30s")
    let start = f.reply(fd, #"{"cmd":"config_set","key":"i2c_bus","value":"3"}"#)
    XCTAssertEqual(
      start.error,
      "'i2c_bus' is read only when the device starts: set it in /etc/pomodoro/pomodoro.conf, then sudo systemctl "
        + "restart pomodoro applies it")
    XCTAssertEqual(
      f.reply(fd, #"{"cmd":"config_reset","key":"nope"}"#).error, ConfigParser.unknownKey("nope"))
    XCTAssertEqual(f.h.device.config, f.h.config)
    XCTAssertFalse(FileManager.default.fileExists(atPath: f.directory + "/" + ConfigLayers.overlayName))
  }

  /// A set is kept: a new device on the same state directory starts with it (and says so), over
  /// the file; a reset is kept too, the file's value back.
  func testASettingSurvivesARestartAndAResetBringsTheFilesValueBack() throws {
    var file = DeviceConfig()
    file.engine.presets[.focus] = minutes(50)
    let fileLines = ["focus": 3]
    func device() throws -> DeviceHarness {
      let h = try DeviceHarness(directory: directory, config: file)
      h.device.layers = ConfigLayers(file: "/etc/pomodoro/pomodoro.conf", fileConfig: h.config, fileLines: fileLines)
      h.device.start()
      return h
    }
    do {
      let h = try device()
      XCTAssertEqual(
        try items(h.device.settingsAnswer(.configSet(key: "focus", value: "30m"))).first?["from"], .string("set"))
      _ = try h.device.settingsAnswer(.configSet(key: "click", value: "on")).get()
      h.device.step()  // the save their replies wait for (the loop's next step)
      // The power goes: no shutdown.
    }
    var h = try device()
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(30))
    XCTAssertTrue(h.device.config.click)
    XCTAssertEqual(h.device.state.duration, minutes(30), "the picker starts at the preset set")
    XCTAssertEqual(h.device.layers.from("focus"), "set")
    let text = try XCTUnwrap(try String(contentsOfFile: overlayPath, encoding: .utf8))
    XCTAssertTrue(text.hasSuffix("\nfocus = 30m\nclick = true\n"), text)
    let reset = try items(h.device.settingsAnswer(.configReset(key: "focus")))
    XCTAssertEqual(reset.first?["value"], .string("50m"))
    XCTAssertEqual(reset.first?["from"], .string("/etc/pomodoro/pomodoro.conf:3"))
    XCTAssertEqual(h.device.state.duration, minutes(50))
    h.device.step()
    h = try device()
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(50), "the reset is kept")
    XCTAssertTrue(h.device.config.click, "the other key stays set")
    let listed = try items(h.device.settingsAnswer(.config))
    XCTAssertEqual(listed.map { $0["key"]?.string }, ConfigKey.settableKeys.map(\.name))
    XCTAssertEqual(listed.first { $0["key"] == .string("click") }?["from"], .string("set"))
    XCTAssertEqual(listed.first { $0["key"] == .string("soft") }?["from"], .string("default"))
  }

  /// `quiet_hours` from ctl and the page, as the other live keys: set and kept over a restart,
  /// an empty value is off (kept as `off`), a bad one gets the config file's message and changes
  /// nothing.
  func testQuietHoursAreSetKeptAndRefusedAsTheFileDoes() throws {
    func device() throws -> DeviceHarness {
      let h = try DeviceHarness(directory: directory, config: DeviceConfig())
      h.device.start()
      return h
    }
    do {
      let h = try device()
      let set = try items(h.device.settingsAnswer(.configSet(key: "quiet_hours", value: "22:00-07:00")))
      XCTAssertEqual(set.first?["value"], .string("22:00-07:00"))
      XCTAssertEqual(h.device.config.quietHours, QuietHours(start: 22 * 60, end: 7 * 60))
      let refused = h.device.settingsAnswer(.configSet(key: "quiet_hours", value: "22:00-24:00"))
      guard case .failure(let refusal) = refused else { return XCTFail("24:00 taken") }
      XCTAssertEqual(
        refusal.message,
        "bad value '22:00-24:00' for 'quiet_hours': '24:00' is no time of day (hours 0 to 23, minutes 00 to 59, "
          + "like 07:00); expected two local times of day, from-to, like 22:00-07:00 (it may span midnight), or off")
      XCTAssertEqual(h.device.config.quietHours, QuietHours(start: 22 * 60, end: 7 * 60), "nothing changed")
      _ = try h.device.settingsAnswer(.configSet(key: "quiet_panel", value: "dim")).get()
      h.device.step()
    }
    do {
      let h = try device()
      XCTAssertEqual(h.device.config.quietHours, QuietHours(start: 22 * 60, end: 7 * 60), "kept over a restart")
      XCTAssertEqual(h.device.config.quietPanel, .dim)
      let off = try items(h.device.settingsAnswer(.configSet(key: "quiet_hours", value: "")))
      XCTAssertEqual(off.first?["value"], .string("off"))
      XCTAssertNil(h.device.config.quietHours)
      h.device.step()
    }
    let text = try XCTUnwrap(try String(contentsOfFile: overlayPath, encoding: .utf8))
    XCTAssertTrue(text.hasSuffix("\nquiet_hours = off\nquiet_panel = dim\n"), text)
  }

  /// SIGHUP reads the file and the overlay again: a key set with ctl keeps its value over the
  /// file's change (said, with how to go back), the file's other keys apply; with the overlay
  /// deleted, the next SIGHUP brings the file's value back.
  func testSIGHUPKeepsTheOverlayOverTheFileAndDeletingItGoesBack() throws {
    do {
      let h = try DeviceHarness(directory: directory)
      h.device.start()
      _ = try h.device.settingsAnswer(.configSet(key: "focus", value: "30m")).get()
      h.device.step()
    }
    let h = try DeviceHarness(directory: directory)
    let file = directory + "/pomodoro.conf"
    let overlay = overlayPath
    var reads = 0
    var afterFirst: (focus: Nanoseconds?, short: Nanoseconds?, shown: Nanoseconds)?
    let service = DeviceService(
      device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log, configFile: file,
      readConfig: { _ in
        reads += 1
        if reads == 3 {
          // The second SIGHUP: the first one's outcome, then the overlay deleted by hand.
          afterFirst = (
            h.device.config.engine.presets[.focus], h.device.config.engine.presets[.shortBreak],
            h.device.state.duration ?? 0
          )
          unlink(overlay)
        }
        return "focus = 40m\nshort_break = 7m\n"
      })
    let start = h.clock.now
    let waiter = VirtualWaiter(
      clock: h.clock,
      signals: [(start + seconds(1), SIGHUP), (start + seconds(3), SIGHUP), (start + seconds(5), SIGTERM)])
    XCTAssertEqual(service.serve(waiter: waiter), 0)
    XCTAssertEqual(afterFirst?.focus, minutes(30), "the overlay wins over the file")
    XCTAssertEqual(afterFirst?.short, minutes(7), "the file's other key applies")
    XCTAssertEqual(afterFirst?.shown, minutes(30))
    let wins =
      "\(file):1: 'focus' changed, but pomodoro ctl config set it to 30m, which wins (kept in settings.conf in the "
      + "state directory); pomodoro ctl config reset focus goes back to the file's value"
    XCTAssertEqual(h.logLines.filter { $0.1 == wins }.count, 1, "\(h.logLines.map(\.1))")
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(40), "the overlay deleted: the file's value")
    XCTAssertEqual(h.device.state.duration, minutes(40), "on the picker at once")
    XCTAssertEqual(h.device.layers.from("focus"), "\(file):1")
    XCTAssertTrue(
      h.logLines.contains { $0.1 == "reloaded \(file) on SIGHUP: applied focus; the timer carries on" },
      "\(h.logLines.map(\.1))")
  }

  /// A damaged overlay at start: each bad line named PATH:LINE and ignored, the rest applied, the
  /// device up; one that cannot be read at all is named and left out.
  func testADamagedOverlayAtStartIsNamedAndTheDeviceStarts() throws {
    try "focus = 30m\nshort_break = 1\ni2c_bus = 3\n".write(toFile: overlayPath, atomically: false, encoding: .utf8)
    let h = try DeviceHarness(directory: directory)
    h.device.start()
    XCTAssertEqual(h.device.config.engine.presets[.focus], minutes(30))
    XCTAssertEqual(h.device.config.engine.presets[.shortBreak], minutes(5))
    XCTAssertEqual(h.device.config.i2cBus, 1)
    XCTAssertEqual(
      h.logLines.filter { $0.0 == .warning }.map(\.1),
      [
        "\(overlayPath):2: bad value '1' for 'short_break'; expected a duration from 5s to 23h59m59s, like 25m or "
          + "1m30s; this line is ignored, the rest of \(overlayPath) applies",
        "\(overlayPath):3: 'i2c_bus' is read only when the device starts: set it in /etc/pomodoro/pomodoro.conf, then "
          + "sudo systemctl restart pomodoro applies it; this line is ignored, the rest of \(overlayPath) applies",
      ])
    try FileManager.default.removeItem(atPath: overlayPath)
    try FileManager.default.createDirectory(atPath: overlayPath, withIntermediateDirectories: false)
    let again = try DeviceHarness(directory: directory)
    again.device.start()
    XCTAssertEqual(again.device.config, again.config)
    XCTAssertTrue(
      again.logLines.contains { $0.0 == .error && $0.1.hasPrefix("\(overlayPath): cannot read it: ") },
      "\(again.logLines.map(\.1))")
  }

  /// A power cut after each step of a set's save (the temporary file's write and fsync, the
  /// rename, the directory's fsync), each a few seeded worst cases: the overlay is the old one
  /// or the new one, whole, never lost; a device restarted on it has the earlier setting.
  func testAPowerCutDuringASetNeverLosesThePreviousOverlay() throws {
    let dir = "/var/lib/pomodoro"
    let path = dir + "/" + ConfigLayers.overlayName
    let fs = FaultyFileSystem()
    try Files.makeDirectories(dir, in: fs)
    let h = try DeviceHarness(directory: dir, fileSystem: fs)
    h.device.start()
    _ = try h.device.settingsAnswer(.configSet(key: "focus", value: "30m")).get()
    h.device.step()  // the set is saved with the state, by the save writer, at the step
    let old = ["focus": "30m"]
    let new = ["focus": "30m", "short_break": "7m"]
    var images = 0
    var failures: [String] = []
    fs.onStep = { step in
      for seed in 0..<4 {
        let image = fs.crashImage(seed: UInt64(step * 16 + seed))
        images += 1
        guard let bytes = image.files[path] else {
          failures.append("step \(step) seed \(seed): the overlay is gone")
          continue
        }
        let (overlay, problems) = h.device.layers.readOverlay(String(decoding: bytes, as: UTF8.self), path: path)
        if !problems.isEmpty || (overlay != old && overlay != new) {
          failures.append("step \(step) seed \(seed): \(overlay) \(problems)")
        }
        guard seed == 0, let again = try? DeviceHarness(directory: dir, fileSystem: image) else { continue }
        again.device.start()
        if again.device.config.engine.presets[.focus] != minutes(30) {
          failures.append("step \(step): restarted \(overlay)")
        }
      }
    }
    _ = try h.device.settingsAnswer(.configSet(key: "short_break", value: "7m")).get()
    h.device.step()
    fs.onStep = nil
    XCTAssertEqual(failures, [])
    XCTAssertGreaterThanOrEqual(images, 16, "a cut after each step of the save")
    XCTAssertEqual(h.device.layers.overlay, new)
  }

  /// A list's item lines go out as the client reads them: never more than `maxPending` unsent,
  /// no busy loop while the socket is full, in order, then its reply; the client's next request
  /// is answered after it.
  func testAListGoesOutAsTheClientReadsIt() throws {
    let f = try ControlFixture()
    let fd = try f.connect()
    defer { close(fd) }
    let client = try XCTUnwrap(f.server.clients.values.first)
    let count = 20_000
    let items = (0..<count).lazy.map { ControlProtocol.itemLine("n", [("i", .int(Int64($0)))]) }
    client.list = ControlServer.Answer(items: items, reply: ControlProtocol.okReply([("listed", .int(Int64(count)))]))
    XCTAssertTrue(UnixSocket.writeAll(fd, Array((#"{"cmd":"status"}"# + "\n").utf8)))
    var buffer = LineBuffer(limit: 1 << 16)
    var lines: [String] = []
    var most = 0
    var chunk = [UInt8](repeating: 0, count: 8192)
    for _ in 0..<100_000 where lines.last?.contains("\"phase\"") != true {
      f.server.turn()
      most = max(most, client.output.count)
      if client.list != nil { XCTAssertFalse(f.server.busy, "no busy loop while the list waits for the socket") }
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if n > 0 { for case .line(let l) in buffer.feed(chunk[0..<n]) { lines.append(l) } }
    }
    XCTAssertEqual(lines.count, count + 2)
    guard lines.count == count + 2 else { return }
    XCTAssertEqual(Array(lines.prefix(count)), Array(items))
    XCTAssertEqual(lines[count], ControlProtocol.okReply([("listed", .int(Int64(count)))]))
    XCTAssertTrue(lines[count + 1].hasPrefix("{\"ok\":true,\"state\":{\"phase\":\"idle\""), lines[count + 1])
    XCTAssertLessThanOrEqual(most, ControlServer.maxPending)
    XCTAssertGreaterThan(most, 0)
  }
}
