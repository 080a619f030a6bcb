import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroMQTT

final class MQTTBridgeTests: XCTestCase {
  /// A scratch directory for each test (the setup checks' configs and files).
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

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
        "<4>ignored a malformed command on pomodoro/desk1/command: 'dance wildly' (unknown command 'dance'; commands: "
          + "\(ControlCommand.names.joined(separator: ", ")))",
        "<4>ignored a malformed command on pomodoro/desk1/command: '{not json' (bad request: expected one JSON object a line, like {\"cmd\":\"status\"})",
        "<4>ignored a command payload of 6000 bytes on pomodoro/desk1/command: over the 4 KiB limit (a command is a line like 'extend 5m')",
      ], log.joined(separator: "\n"))

    // Discovery: a retained config for each entity, valid JSON with what Home Assistant
    // requires; the six of earlier versions among them under their topics.
    // Every desk's entities: this one has no presence sensor, so not its occupancy sensor.
    let every = HomeAssistant.entities.filter { $0.needs == nil }.count
    let configs = try broker.retained("homeassistant/#", count: every)
    XCTAssertEqual(configs.count, every)
    XCTAssertTrue(
      Set(configs.keys).isSuperset(of: [
        "homeassistant/button/pomodoro_desk1/cancel/config", "homeassistant/button/pomodoro_desk1/extend/config",
        "homeassistant/button/pomodoro_desk1/start_pause/config", "homeassistant/sensor/pomodoro_desk1/mode/config",
        "homeassistant/sensor/pomodoro_desk1/phase/config", "homeassistant/sensor/pomodoro_desk1/remaining/config",
      ]), configs.keys.sorted().joined(separator: " "))
    for (topic, payload) in configs {
      let o = state(payload)
      XCTAssertNotNil(o["name"] as? String, topic)
      XCTAssertNotNil(o["unique_id"] as? String, topic)
      let component = topic.split(separator: "/")[1]
      let object = try XCTUnwrap(o["object_id"] as? String, topic)
      XCTAssertEqual(o["default_entity_id"] as? String, "\(component).\(object)", topic)
      XCTAssertEqual(o["availability_topic"] as? String, availability, topic)
      let device = o["device"] as? [String: Any]
      XCTAssertEqual(device?["identifiers"] as? [String], ["pomodoro_desk1"], topic)
      if component != "button" {
        XCTAssertEqual(o["state_topic"] as? String, stateTopic)
        XCTAssertNotNil(o["value_template"] as? String)
      }
      if component == "button" {
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

/// The bridge's checks before it connects, and what it announces, without a broker.
extension MQTTBridgeTests {
  func requireMosquitto() throws {
    guard MQTTBridge.available else {
      throw XCTSkip("pomodoro was built without libmosquitto: sudo apt install libmosquitto-dev, then rebuild")
    }
  }

  func config(_ lines: String) throws -> String {
    let path = directory + "/bridge.conf"
    try "control_socket = \(directory)/c.sock\nmqtt_device_id = desk-1\n\(lines)\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// `pomodoro mqtt --config FILE`, the built binary: the exit code and stderr. It must stop
  /// before connecting; one that starts bridging instead fails the test after 10 s.
  func mqtt(_ lines: String) throws -> (code: Int32, err: String) {
    let conf = try config(lines)
    let errPath = directory + "/stderr"
    let errFD = open(errPath, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
    let null = open("/dev/null", O_RDWR)
    defer {
      close(errFD)
      close(null)
    }
    let child = try ChildProcess(["mqtt", "--config", conf], stdin: null, stdout: null, stderr: errFD)
    let code = try child.waitForExit(timeout: 10)
    return (code, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
  }

  func write(_ name: String, _ text: String, mode: mode_t) -> String {
    let path = directory + "/" + name
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    chmod(path, mode)
    return path
  }

  func bridge(_ config: DeviceConfig) throws -> (MQTTBridge, [(Log.Level, String)]) {
    final class Lines { var all: [(Log.Level, String)] = [] }
    let lines = Lines()
    let b = try MQTTBridge(config: config, log: Log(sink: { lines.all.append(($0, $1)) }), hostName: "pi")
    return (b, lines.all)
  }

  func testAPasswordFileOthersCanReadIsAWarningNamingTheFix() throws {
    try requireMosquitto()
    let secret = write("mqtt.password", "hunter2\n", mode: 0o644)
    var config = DeviceConfig()
    config.controlSocket = directory + "/c.sock"
    config.mqttUser = "desk"
    config.mqttPasswordFile = secret
    var (_, lines) = try bridge(config)
    XCTAssertEqual(try BridgeCredentials.readPassword(secret, log: Log(sink: { _, _ in })), "hunter2")
    XCTAssertEqual(lines.map(\.0), [.warning])
    XCTAssertEqual(
      lines.first?.1,
      "mqtt_password_file \(secret) can be read by its group or by everyone (mode 0644): keep it to the bridge's user: sudo chown pomodoro-mqtt \(secret) && sudo chmod 600 \(secret)"
    )
    chmod(secret, 0o640)
    (_, lines) = try bridge(config)
    XCTAssertEqual(lines.count, 1, "group-readable is warned of too")
    chmod(secret, 0o600)
    (_, lines) = try bridge(config)
    XCTAssertTrue(lines.isEmpty, "0600: nothing to say")
  }

  func testAMissingOrUnreadablePasswordFileIsAConfigError() throws {
    try requireMosquitto()
    var r = try mqtt("mqtt_password_file = \(directory)/missing")
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(r.err.contains("mqtt_password_file \(directory)/missing does not exist; create it"), r.err)
    // A directory, and a path through a file: read errors, each a config error naming the file.
    r = try mqtt("mqtt_password_file = \(directory)")
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(r.err.contains("mqtt_password_file: \(directory) is a directory"), r.err)
    let file = write("plain", "x", mode: 0o600)
    r = try mqtt("mqtt_password_file = \(file)/password")
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(
      r.err.contains(
        "mqtt_password_file: cannot open \(file)/password: Not a directory; the bridge's user pomodoro-mqtt must be able to read it: sudo chown pomodoro-mqtt \(file)/password && sudo chmod 600 \(file)/password"
      ), r.err)
  }

  /// Permission denied on the password file: 78 (systemd does not restart it), not 1. Root reads
  /// every file, so as root the real binary runs as nobody (setpriv).
  func testAPasswordFileTheBridgeMayNotReadIsAConfigError() throws {
    try requireMosquitto()
    let secret = write("mqtt.password", "hunter2\n", mode: 0o600)
    let conf = try config("mqtt_password_file = \(secret)")
    chmod(directory, 0o755)
    chmod(conf, 0o644)
    let code: Int32
    let err: String
    if getuid() != 0 {
      chmod(secret, 0o000)
      (code, err) = try mqtt("mqtt_password_file = \(secret)")
    } else {
      (code, err) = try ChildProcess.runAsNobody(["mqtt", "--config", conf])
    }
    XCTAssertEqual(code, ExitCode.config, err)
    XCTAssertTrue(err.contains("mqtt_password_file: cannot open \(secret): Permission denied"), err)
  }

  func testAMissingOrUnreadableCAFileIsSaidBeforeLibmosquittoSeesIt() throws {
    try requireMosquitto()
    var r = try mqtt("mqtt_cafile = \(directory)/ca.pem")
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(r.err.contains("mqtt_cafile \(directory)/ca.pem does not exist; give the CA certificate"), r.err)
    XCTAssertFalse(r.err.contains("Invalid function arguments"), r.err)
    r = try mqtt("mqtt_cafile = \(directory)")
    XCTAssertEqual(r.code, ExitCode.config)
    XCTAssertTrue(r.err.contains("mqtt_cafile: \(directory) is a directory, not a regular file"), r.err)
    XCTAssertTrue(r.err.contains("the bridge's user pomodoro-mqtt must be able to read it"), r.err)
  }

  /// Every discovery payload names its entity id for Home Assistant 2025.10 on
  /// (`default_entity_id`) beside the `object_id` older versions read.
  func testDiscoveryGivesEachEntityItsDefaultEntityId() throws {
    let topics = BridgeTopics(config: DeviceConfig(), deviceId: "Desk-1")
    var ids: [String] = []
    for (topic, payload) in topics.discovery(fields: ["present", "profiles"], profiles: ["deep"]) {
      let o = try XCTUnwrap(
        try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any], topic)
      let id = try XCTUnwrap(o["default_entity_id"] as? String, topic)
      ids.append(id)
      XCTAssertEqual(o["object_id"] as? String, o["unique_id"] as? String, "object_id kept for older versions")
      // What Home Assistant takes: lowercase letters, digits and single underscores, one dot.
      XCTAssertTrue(
        id.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "." }, id)
      XCTAssertFalse(id.contains("__") || id.hasSuffix("_") || id.contains("._"), id)
      XCTAssertTrue(topic.hasPrefix("homeassistant/\(id.split(separator: ".")[0])/"), topic)
    }
    // docs/homeassistant.md's ids: those of earlier versions kept, the new ones beside them.
    XCTAssertEqual(
      ids,
      [
        "sensor.pomodoro_desk_1_phase", "sensor.pomodoro_desk_1_mode", "sensor.pomodoro_desk_1_remaining",
        "sensor.pomodoro_desk_1_ends_at", "sensor.pomodoro_desk_1_today", "sensor.pomodoro_desk_1_room_focusing",
        "binary_sensor.pomodoro_desk_1_focusing",
        "binary_sensor.pomodoro_desk_1_ringing", "binary_sensor.pomodoro_desk_1_presence",
        "select.pomodoro_desk_1_mode", "number.pomodoro_desk_1_duration",
        "text.pomodoro_desk_1_label", "select.pomodoro_desk_1_profile", "button.pomodoro_desk_1_start",
        "button.pomodoro_desk_1_pause",
        "button.pomodoro_desk_1_start_pause", "button.pomodoro_desk_1_cancel", "button.pomodoro_desk_1_skip",
        "button.pomodoro_desk_1_acknowledge", "button.pomodoro_desk_1_extend", "button.pomodoro_desk_1_interrupt",
        "button.pomodoro_desk_1_interrupt_external",
      ])
    XCTAssertEqual(BridgeTopics.entityId("sensor", "pomodoro_a--b__c-_phase"), "sensor.pomodoro_a_b_c_phase")
  }
}
