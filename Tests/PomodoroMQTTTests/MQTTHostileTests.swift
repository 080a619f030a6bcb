import Foundation
import PomodoroCore
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// What others on the network can send the bridge: retained commands, forged log lines, floods, a
/// second bridge for the same desk, commands for a device that does not read. A real broker on
/// 127.0.0.1 and the built `pomodoro mqtt`.
final class MQTTHostileTests: XCTestCase {
  func state(_ payload: String?) -> [String: Any] {
    guard let payload, let data = payload.data(using: .utf8),
      let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return o
  }

  final class Bridge {
    let process = Process()
    let logPath: String
    init(binary: String, conf: String, logPath: String) throws {
      self.logPath = logPath
      FileManager.default.createFile(atPath: logPath, contents: nil)
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = ["mqtt", "--config", conf]
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
      process.standardOutput = FileHandle.nullDevice
      try process.run()
    }
    var log: [String] {
      ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
    /// Whether the log comes to satisfy `ok` within `seconds` (the test then asserts it, with the log).
    func waitForLog(_ ok: ([String]) -> Bool, seconds: Double = Waiting.limit) -> Bool {
      (try? waitUntil("the bridge's log to say what the test awaits", limit: seconds, every: 0.05) { ok(log) }) != nil
    }
    func kill() {
      if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
    }
  }

  /// `mosquitto_pub` with `lines` on its standard input, one message a line (-l).
  func publishLines(_ broker: TestBroker, _ topic: String, _ lines: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
    p.arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", topic, "-l"]
    let input = Pipe()
    p.standardInput = input
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    try input.fileHandleForWriting.close()
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0)
  }

  /// The built `pomodoro` beside the test bundle, a device served by this process, a broker
  /// on 127.0.0.1, and a bridge config for desk1 (the caller starts the bridge and stops the rest).
  func desk1() throws -> (ControlFixture, TestBroker, ServerPump, conf: String, binary: String) {
    guard MQTTBridge.available else { throw XCTSkip("pomodoro was built without libmosquitto") }
    let binary = try ChildProcess.pomodoroPath()
    let f = try ControlFixture()
    let broker = try TestBroker(directory: f.directory)
    let conf = f.directory + "/bridge.conf"
    try "control_socket = \(f.path)\nmqtt_host = 127.0.0.1\nmqtt_port = \(broker.port)\nmqtt_device_id = desk1\n".write(
      toFile: conf, atomically: true, encoding: .utf8)
    return (f, broker, ServerPump(f.server), conf, binary)
  }

  func testRetainedCommandsForgedLinesFloodsAndASecondBridge() throws {
    let (f, broker, pump, conf, binary) = try desk1()
    defer {
      pump.stop()
      broker.stop()
    }
    let command = "pomodoro/desk1/command"
    let stateTopic = "pomodoro/desk1/state"

    // 3. A retained `start` left on the command topic, then a bridge (re)starting: never acted on.
    XCTAssertEqual(try broker.run("/usr/bin/mosquitto_pub", ["-r", "-q", "1", "-t", command, "-m", "start"]), 0)
    for round in 0..<2 {
      let bridge = try Bridge(binary: binary, conf: conf, logPath: f.directory + "/retained\(round).log")
      defer { bridge.kill() }
      XCTAssertTrue(
        bridge.waitForLog { $0.contains { $0.contains("ignored a retained command 'start'") } }, "\(bridge.log)")
      XCTAssertEqual(state(try broker.waitFor(stateTopic) { _ in true })["phase"] as? String, "idle", "round \(round)")
      let said = bridge.log.filter { $0.contains("retained command") }
      XCTAssertEqual(said.count, 1, "said once: \(said)")
      XCTAssertTrue(said[0].contains("mosquitto_pub -h 127.0.0.1 -r -n -t \(command)"), said[0])
    }
    XCTAssertEqual(try broker.run("/usr/bin/mosquitto_pub", ["-r", "-q", "1", "-t", command, "-n"]), 0)

    let bridge = try Bridge(binary: binary, conf: conf, logPath: f.directory + "/bridge.log")
    defer { bridge.kill() }
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "online" })

    // Junk retained on the availability topic by another client is put right at once (it used
    // to stay until the bridge reconnected), and said.
    XCTAssertEqual(
      try broker.run("/usr/bin/mosquitto_pub", ["-r", "-q", "1", "-t", "pomodoro/desk1/availability", "-m", "junk"]), 0)
    XCTAssertTrue(
      bridge.waitForLog {
        $0.contains { $0.contains("another client published 'junk' on pomodoro/desk1/availability") }
      },
      "\(bridge.log)")
    XCTAssertEqual(
      try broker.retained("pomodoro/desk1/availability", count: 1)["pomodoro/desk1/availability"], "online")

    // 4. A forged journald line and an escape sequence stay inside one escaped line.
    try broker.publish(command, "x\n<2>pomodoro: FORGED: the disk is on fire\u{1B}[2J")
    XCTAssertTrue(bridge.waitForLog { $0.contains { $0.contains("FORGED") } }, "\(bridge.log)")
    let forged = bridge.log.filter { $0.contains("FORGED") }
    XCTAssertEqual(forged.count, 1)
    XCTAssertTrue(forged[0].hasPrefix("<4>ignored a malformed command"), forged[0])
    XCTAssertTrue(forged[0].contains("'x\\n<2>pomodoro: FORGED: the disk is on fire\\u{1B}[2J'"), forged[0])
    XCTAssertFalse(bridge.log.contains { $0.hasPrefix("<2>") || $0.contains("\u{1B}") })

    // A flood of junk: a handful of lines, not one a payload; the commands after it still act.
    try publishLines(broker, command, (0..<2000).map { "junk \($0)" })
    try broker.publish(command, "start")
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["phase"] as? String == "running" })
    let malformed = bridge.log.filter { $0.contains("ignored a malformed command") }
    XCTAssertEqual(malformed.count, 5, "the first five a minute (the forged one among them): \(malformed.count)")

    // 9. The device stops reading and 30,000 commands come: past a burst of 20 the bridge takes
    // 10 a second, and says once what it drops (the queue's own bound: DeviceLinkTests).
    pump.stop()
    try publishLines(broker, command, Array(repeating: "status", count: 30_000))
    XCTAssertTrue(
      bridge.waitForLog {
        $0.contains { $0.contains("dropped the command 'status' from \(command): more than 10 a second") }
      },
      "\(bridge.log.suffix(3))")
    XCTAssertEqual(bridge.log.filter { $0.contains("more than 10 a second") }.count, 1, "said once a minute")
    XCTAssertTrue(bridge.process.isRunning)

    // 11. A second bridge for the same desk: one client id a desk, so the broker keeps one
    // connection at a time, and the bridge it keeps dropping says why.
    let second = try Bridge(binary: binary, conf: conf, logPath: f.directory + "/second.log")
    defer { second.kill() }
    let why = "another client with the client id pomodoro-desk1, a second bridge for desk1?"
    XCTAssertNoThrow(
      try waitUntil("either bridge to say why it is dropped: \(why)", every: 0.05) {
        (bridge.log + second.log).contains { $0.contains(why) }
      }, "\(bridge.log.suffix(3)) / \(second.log.suffix(3))")
  }
}

extension MQTTHostileTests {
  /// A 16 MiB payload on the command topic, retained and not: the bridge's CONNECT asks the
  /// broker for packets of at most 16 KiB (MQTT 5's Maximum Packet Size), so the broker drops
  /// them for it: the bridge never reads, copies or logs them, and the command after them acts
  /// (it used to take each whole; its peak memory: `pomodoro-bench mqtt-payloads`, Benchmarks/).
  func testOversizedPayloadsNeverReachTheBridge() throws {
    let (f, broker, pump, conf, binary) = try desk1()
    defer {
      pump.stop()
      broker.stop()
    }
    let command = "pomodoro/desk1/command"
    let big = f.directory + "/big"
    FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x78, count: 16 << 20))
    XCTAssertEqual(try broker.run("/usr/bin/mosquitto_pub", ["-r", "-q", "1", "-t", command, "-f", big]), 0)
    let bridge = try Bridge(binary: binary, conf: conf, logPath: f.directory + "/bridge.log")
    defer { bridge.kill() }
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "online" })
    XCTAssertEqual(try broker.run("/usr/bin/mosquitto_pub", ["-q", "1", "-t", command, "-f", big]), 0)
    try broker.publish(command, "start")
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/state") { self.state($0)["phase"] as? String == "running" })
    XCTAssertFalse(bridge.log.contains { $0.contains("bytes on \(command)") }, "\(bridge.log)")
  }
}

final class LogLimiterTests: XCTestCase {
  func testPastTheBurstRejectionsAreCountedAndTheCountSaidWhenTheMinuteEnds() {
    var lines: [String] = []
    let limiter = LogLimiter(log: Log(sink: { lines.append($1) }), burst: 3, window: seconds(60))
    let t0 = Instant(nanoseconds: seconds(1000))
    for i in 0..<100 {
      limiter.say("junk", .warning, "junk \(i)", what: "junk payloads", at: t0 + ms(Int64(i)))
    }
    XCTAssertEqual(lines, ["junk 0", "junk 1", "junk 2"])
    XCTAssertEqual(limiter.nextDeadline, t0 + seconds(60))
    limiter.tick(t0 + seconds(59))
    XCTAssertEqual(lines.count, 3, "not before the minute is over")
    limiter.tick(t0 + seconds(60))
    XCTAssertEqual(lines.last, "97 more junk payloads in the last 1m, not logged one by one")
    XCTAssertNil(limiter.nextDeadline)
    limiter.say("junk", .warning, "junk again", what: "junk payloads", at: t0 + seconds(61))
    XCTAssertEqual(lines.last, "junk again", "a new minute says again")
  }

  func testEveryMessageIsOneLineWithItsControlCharactersEscaped() {
    var lines: [String] = []
    let log = Log(sink: { lines.append($1) })
    log.warning("a\n<2>b\u{1B}[31m\r\u{85}c")
    log.notice("plain, with ünïcode and a tab-free text")
    XCTAssertEqual(lines, ["a\\n<2>b\\u{1B}[31m\\r\\u{85}c", "plain, with ünïcode and a tab-free text"])
  }
}
