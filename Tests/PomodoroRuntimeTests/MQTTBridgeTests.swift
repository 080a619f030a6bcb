import Foundation
import PomodoroCore
import PomodoroMQTT
import XCTest

@testable import PomodoroRuntime

/// A mosquitto broker on 127.0.0.1 on a free port, started by the test.
final class TestBroker {
  let port: Int
  let directory: String
  var process: Process?

  init(directory: String) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto"),
      FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
    else { throw XCTSkip("the broker tests need mosquitto: sudo apt install mosquitto mosquitto-clients") }
    self.directory = directory
    port = try Self.freePort()
    try start()
  }

  static func freePort() throws -> Int {
    #if os(Linux)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard ok else { throw SystemError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  func start() throws {
    let conf = directory + "/mosquitto.conf"
    try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n".write(
      toFile: conf, atomically: true, encoding: .utf8)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
    p.arguments = ["-c", conf]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    process = p
    for _ in 0..<100 {
      if (try? run("/usr/bin/mosquitto_pub", ["-t", "probe", "-m", "x"])) == 0 { return }
      usleep(50_000)
    }
    throw SystemError("the broker did not start on port \(port)")
  }

  func stop() {
    process?.terminate()
    process?.waitUntilExit()
    process = nil
  }

  @discardableResult
  func run(_ tool: String, _ args: [String], output: UnsafeMutablePointer<String>? = nil) throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = ["-h", "127.0.0.1", "-p", String(port)] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    output?.pointee = String(decoding: data, as: UTF8.self)
    return p.terminationStatus
  }

  func publish(_ topic: String, _ message: String) throws {
    XCTAssertEqual(try run("/usr/bin/mosquitto_pub", ["-q", "1", "-t", topic, "-m", message]), 0)
  }

  /// The retained messages under `filter` (waiting at most a second for them), as topic -> payload.
  func retained(_ filter: String, count: Int = 1) throws -> [String: String] {
    var out = ""
    try run(
      "/usr/bin/mosquitto_sub", ["-t", filter, "-v", "-C", String(count), "-W", "1", "--retained-only"], output: &out)
    var messages: [String: String] = [:]
    for line in out.split(separator: "\n") {
      guard let space = line.firstIndex(of: " ") else { continue }
      messages[String(line[..<space])] = String(line[line.index(after: space)...])
    }
    return messages
  }

  /// Waits (up to 10 s) until the retained payload on `topic` satisfies `ok`; returns it.
  func waitFor(_ topic: String, _ ok: (String) -> Bool) throws -> String? {
    let end = Date().addingTimeInterval(10)
    while Date() < end {
      if let payload = try retained(topic)[topic], ok(payload) { return payload }
      usleep(50_000)
    }
    return nil
  }
}

/// Serves a control server from a thread until stopped.
final class ServerPump: @unchecked Sendable {
  let server: ControlServer
  let lock = NSLock()
  var stopping = false
  let thread: Thread

  init(_ server: ControlServer) {
    self.server = server
    let box = StopBox()
    nonisolated(unsafe) let unsafeServer = server
    thread = Thread {
      while !box.stopped {
        unsafeServer.serviceNow()
        usleep(1000)
      }
    }
    self.box = box
    thread.start()
  }
  let box: StopBox

  func stop() {
    box.stop()
    while !thread.isFinished { usleep(1000) }
  }
}

final class StopBox: @unchecked Sendable {
  let lock = NSLock()
  var flag = false
  var stopped: Bool { lock.withLock { flag } }
  func stop() { lock.withLock { flag = true } }
}

final class MQTTBridgeTests: XCTestCase {
  func state(_ payload: String?) -> [String: Any] {
    guard let payload, let data = payload.data(using: .utf8),
      let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return o
  }

  /// One device and its bridge against a real broker: retained state after each change,
  /// commands as text and JSON, a malformed one ignored, discovery, the broker restarted, the
  /// device restarted, and the last will when the bridge is killed.
  func testTheBridgeAgainstARealBroker() throws {
    guard MQTTBridge.available else {
      throw XCTSkip("pomodoro was built without libmosquitto: sudo apt install libmosquitto-dev, then rebuild")
    }
    // The built `pomodoro` beside the test bundle.
    let binary = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("pomodoro").path
    guard FileManager.default.isExecutableFile(atPath: binary) else { throw XCTSkip("no pomodoro binary at \(binary)") }
    let f = try ControlFixture()
    let broker = try TestBroker(directory: f.directory)
    defer { broker.stop() }
    var pump = ServerPump(f.server)
    let conf = f.directory + "/bridge.conf"
    try """
    control_socket = \(f.path)
    mqtt_host = 127.0.0.1
    mqtt_port = \(broker.port)
    mqtt_device_id = desk1
    """.write(toFile: conf, atomically: true, encoding: .utf8)
    let bridge = Process()
    bridge.executableURL = URL(fileURLWithPath: binary)
    bridge.arguments = ["mqtt", "--config", conf]
    // Its log (stderr, journald's <N> prefixes) into a file, to check what it says.
    let logPath = f.directory + "/bridge.log"
    FileManager.default.createFile(atPath: logPath, contents: nil)
    let logFile = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
    defer { try? logFile.close() }
    bridge.standardError = logFile
    try bridge.run()
    defer { if bridge.isRunning { kill(bridge.processIdentifier, SIGKILL) } }
    let stateTopic = "pomodoro/desk1/state"
    let availability = "pomodoro/desk1/availability"

    XCTAssertEqual(state(try broker.waitFor(stateTopic) { _ in true })["phase"] as? String, "idle")
    XCTAssertEqual(try broker.waitFor(availability) { $0 == "online" }, "online")
    try broker.publish("pomodoro/desk1/command", "start")
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["phase"] as? String == "running" })
    try broker.publish("pomodoro/desk1/command", #"{"cmd":"extend","by":"5m"}"#)
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["total_ms"] as? Int == 1_800_000 })
    try broker.publish("pomodoro/desk1/command", "dance wildly")
    try broker.publish("pomodoro/desk1/command", "{not json")
    try broker.publish("pomodoro/desk1/command", String(repeating: "x", count: 6000))
    try broker.publish("pomodoro/desk1/command", "pause")
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["phase"] as? String == "paused" })
    // Each malformed payload was logged, in order, with why; the commands after them acted.
    let log = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map(String.init)
    let ignored = log.filter { $0.contains("ignored") }
    XCTAssertEqual(
      ignored,
      [
        "<4>ignored a malformed command on pomodoro/desk1/command: 'dance wildly' (unknown command 'dance'; commands: status, start, pause, resume, toggle, cancel, ack, skip, extend, set, watch)",
        "<4>ignored a malformed command on pomodoro/desk1/command: '{not json' (bad request: expected one JSON object a line, like {\"cmd\":\"status\"})",
        "<4>ignored a command payload of 6000 bytes on pomodoro/desk1/command: over the 4 KiB limit (a command is a line like 'extend 5m')",
      ], log.joined(separator: "\n"))

    // Discovery: six retained configs, valid JSON with what Home Assistant requires.
    let configs = try broker.retained("homeassistant/#", count: 6)
    XCTAssertEqual(
      configs.keys.sorted(),
      [
        "homeassistant/button/pomodoro_desk1/cancel/config", "homeassistant/button/pomodoro_desk1/extend/config",
        "homeassistant/button/pomodoro_desk1/start_pause/config", "homeassistant/sensor/pomodoro_desk1/mode/config",
        "homeassistant/sensor/pomodoro_desk1/phase/config", "homeassistant/sensor/pomodoro_desk1/remaining/config",
      ])
    for (topic, payload) in configs {
      let o = state(payload)
      XCTAssertNotNil(o["name"] as? String, topic)
      XCTAssertNotNil(o["unique_id"] as? String, topic)
      XCTAssertEqual(o["availability_topic"] as? String, availability, topic)
      let device = o["device"] as? [String: Any]
      XCTAssertEqual(device?["identifiers"] as? [String], ["pomodoro_desk1"], topic)
      if topic.contains("/sensor/") {
        XCTAssertEqual(o["state_topic"] as? String, stateTopic)
        XCTAssertNotNil(o["value_template"] as? String)
      } else {
        XCTAssertEqual(o["command_topic"] as? String, "pomodoro/desk1/command")
        XCTAssertNotNil(o["payload_press"] as? String)
      }
    }
    XCTAssertEqual(
      state(configs["homeassistant/button/pomodoro_desk1/extend/config"])["payload_press"] as? String, "extend 5m")

    // The broker restarts without persistence: the bridge reconnects and republishes; a command
    // sent after that acts.
    broker.stop()
    try broker.start()
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["phase"] as? String == "paused" }, "republished")
    XCTAssertNotNil(try broker.waitFor("homeassistant/sensor/pomodoro_desk1/phase/config") { _ in true })
    try broker.publish("pomodoro/desk1/command", "resume")
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["phase"] as? String == "running" })

    // The device restarts: offline while it is away, then the bridge recovers.
    pump.stop()
    f.server.close()
    XCTAssertEqual(try broker.waitFor(availability) { $0 == "offline" }, "offline")
    let again = try ControlServer(path: f.path, device: f.h.device, log: f.h.device.log)
    defer { again.close() }
    pump = ServerPump(again)
    defer { pump.stop() }
    XCTAssertEqual(try broker.waitFor(availability) { $0 == "online" }, "online")
    try broker.publish("pomodoro/desk1/command", "cancel")
    XCTAssertNotNil(try broker.waitFor(stateTopic) { self.state($0)["phase"] as? String == "idle" })

    // Killed: the broker publishes the last will.
    kill(bridge.processIdentifier, SIGKILL)
    bridge.waitUntilExit()
    XCTAssertEqual(try broker.waitFor(availability) { $0 == "offline" }, "offline")
  }
}
