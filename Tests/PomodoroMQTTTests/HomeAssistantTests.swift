import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// What the bridge tells Home Assistant: the entity table's discovery payloads and its place in the
/// docs, and with a broker, what the bridge withdraws (a rename, `--remove`), a device that does
/// not answer, and a refused set named in the log. Tests/homeassistant/run.sh checks the same
/// against a real Home Assistant.
final class HomeAssistantTests: XCTestCase {
  func object(_ payload: String?) -> [String: Any] {
    guard let payload, let o = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
    else { return [:] }
    return o
  }

  var repository: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }

  /// Home Assistant's "focusing" modes are those whose completed sessions are completed focus
  /// (docs/history.md): focus and flow, as `today` and the statistics count them.
  func testTheFocusingModesAreTheModesOfCompletedFocus() {
    XCTAssertEqual(HomeAssistant.focusModes, Mode.allCases.filter { SessionRecord.isCompletedFocus($0, .completed) })
    XCTAssertEqual(HomeAssistant.focusModes, [.focus, .flow])
  }

  /// docs/homeassistant.md holds the entity table as HomeAssistant.entities makes it (the one
  /// copy: README points to it).
  func testTheDocsHoldTheEntityTable() throws {
    let table = HomeAssistant.markdownTable()
    let text = try String(contentsOf: repository.appendingPathComponent("docs/homeassistant.md"), encoding: .utf8)
    XCTAssertTrue(text.contains(table), "docs/homeassistant.md should hold the entity table:\n\(table)")
    let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
    XCTAssertTrue(readme.contains("(docs/homeassistant.md)"), "README.md points to it")
  }

  /// Every payload: valid JSON, the entity id and unique id, availability, one device with its
  /// software version and the origin; each kind with what Home Assistant needs of it.
  func testDiscoveryPayloads() throws {
    let topics = BridgeTopics(config: DeviceConfig(), deviceId: "desk-1")
    let configs = topics.discovery(fields: ["present", "profiles"], profiles: ["deep"]).map {
      ($0.topic, object($0.payload))
    }
    XCTAssertEqual(configs.count, HomeAssistant.entities.count)
    var byId: [String: [String: Any]] = [:]
    for (topic, o) in configs {
      let id = try XCTUnwrap(o["default_entity_id"] as? String, topic)
      byId[id] = o
      XCTAssertEqual(o["availability_topic"] as? String, "pomodoro/desk-1/availability", id)
      let device = try XCTUnwrap(o["device"] as? [String: Any], id)
      XCTAssertEqual(device["identifiers"] as? [String], ["pomodoro_desk-1"], id)
      XCTAssertEqual(device["manufacturer"] as? String, "Pomodoro", id)
      XCTAssertEqual(device["sw_version"] as? String, Release.version, id)
      XCTAssertEqual((o["origin"] as? [String: Any])?["sw_version"] as? String, Release.version, id)
      XCTAssertNotNil((o["origin"] as? [String: Any])?["name"] as? String, id)
      switch topic.split(separator: "/")[1] {
      case "sensor", "binary_sensor":
        XCTAssertEqual(o["state_topic"] as? String, "pomodoro/desk-1/state", id)
        XCTAssertNil(o["command_topic"], id)
      case "button":
        XCTAssertEqual(o["command_topic"] as? String, "pomodoro/desk-1/command", id)
        XCTAssertNil(o["state_topic"], id)
        let press = try XCTUnwrap(o["payload_press"] as? String, id)
        XCTAssertNoThrow(try ControlCommand.parse(words: press.split(separator: " ").map(String.init)).get(), id)
      default:
        XCTAssertEqual(o["state_topic"] as? String, "pomodoro/desk-1/state", id)
        XCTAssertEqual(o["command_topic"] as? String, "pomodoro/desk-1/command", id)
      }
    }
    XCTAssertEqual(byId["sensor.pomodoro_desk_1_phase"]?["device_class"] as? String, "enum")
    XCTAssertEqual(
      byId["sensor.pomodoro_desk_1_phase"]?["options"] as? [String], ["idle", "running", "paused", "ringing"])
    XCTAssertEqual(byId["sensor.pomodoro_desk_1_phase"]?["json_attributes_topic"] as? String, "pomodoro/desk-1/state")
    let modes = ["focus", "short", "long", "soft", "medium", "hard", "flow"]
    XCTAssertEqual(byId["sensor.pomodoro_desk_1_mode"]?["options"] as? [String], modes)
    XCTAssertEqual(byId["select.pomodoro_desk_1_mode"]?["options"] as? [String], modes)
    XCTAssertEqual(byId["sensor.pomodoro_desk_1_remaining"]?["device_class"] as? String, "duration")
    XCTAssertEqual(byId["sensor.pomodoro_desk_1_remaining"]?["unit_of_measurement"] as? String, "min")
    XCTAssertEqual(byId["sensor.pomodoro_desk_1_ends_at"]?["device_class"] as? String, "timestamp")
    XCTAssertEqual(byId["binary_sensor.pomodoro_desk_1_focusing"]?["device_class"] as? String, "running")
    XCTAssertEqual(byId["binary_sensor.pomodoro_desk_1_presence"]?["device_class"] as? String, "occupancy")
    XCTAssertEqual(byId["select.pomodoro_desk_1_profile"]?["options"] as? [String], ["deep", "(base)"])
    let number = try XCTUnwrap(byId["number.pomodoro_desk_1_duration"])
    XCTAssertEqual(number["min"] as? Int, 1)
    XCTAssertEqual(number["max"] as? Int, 1439, "23h59m: the longest the device takes, in whole minutes")
    XCTAssertEqual(number["command_template"] as? String, "set {{ value | int }}m")
    // Each command a select or number makes is one the device parses.
    for made in ["set 25m", "set 1m", "set 1439m"] + modes.map({ "set \($0)" }) {
      XCTAssertNoThrow(try ControlCommand.parse(words: made.split(separator: " ").map(String.init)).get(), made)
    }
  }

  /// The presence sensor's entity: announced only for a desk whose state has `present`, withdrawn
  /// (an empty retained config) for one whose state has not, left alone before any state.
  func testThePresenceEntityIsTheDesksWithASensorOnly() throws {
    let topics = BridgeTopics(config: DeviceConfig(), deviceId: "desk-1")
    let topic = "homeassistant/binary_sensor/pomodoro_desk-1/presence/config"
    XCTAssertFalse(topics.discovery(fields: nil).contains { $0.topic == topic }, "no state yet: left alone")
    XCTAssertEqual(topics.discovery(fields: []).first { $0.topic == topic }?.payload, "", "no sensor: withdrawn")
    let with = try XCTUnwrap(topics.discovery(fields: ["present"]).first { $0.topic == topic }?.payload)
    let o = object(with)
    XCTAssertEqual(o["device_class"] as? String, "occupancy")
    XCTAssertEqual(o["value_template"] as? String, "{{ 'ON' if value_json.present | default(false) else 'OFF' }}")
    XCTAssertEqual(
      topics.discovery(fields: ["present"], optional: true).map(\.topic),
      [topic, "homeassistant/select/pomodoro_desk-1/profile/config"], "the optional alone (no profiles: withdrawn)")
    XCTAssertEqual(topics.discovery(fields: []).count, HomeAssistant.entities.count)
  }

  /// The withdrawal empties every retained topic of a desk, and a record names it back.
  func testWithdrawalAndRecord() throws {
    let topics = BridgeTopics(config: DeviceConfig(), deviceId: "desk-1")
    XCTAssertEqual(
      topics.withdrawal,
      topics.discovery(fields: ["present"]).map(\.topic) + ["pomodoro/desk-1/state", "pomodoro/desk-1/availability"])
    XCTAssertEqual(BridgeTopics(record: topics.record), topics)
    XCTAssertNil(BridgeTopics(record: "{\"device_id\":\"x\"}"))
  }

  // MARK: With a broker

  final class Lines: @unchecked Sendable {
    let lock = NSLock()
    var all: [String] = []
    func add(_ s: String) { lock.withLock { all.append(s) } }
    func contains(_ s: String) -> Bool { lock.withLock { all.contains { $0.contains(s) } } }
  }

  /// A bridge for `deviceId` in a thread of this process until the returned stop is called.
  func startBridge(
    _ f: ControlFixture, _ broker: TestBroker, _ deviceId: String, lines: Lines,
    tune: (MQTTBridge) -> Void = { _ in }
  ) throws -> () -> Void {
    var config = DeviceConfig()
    config.controlSocket = f.path
    config.mqttHost = "127.0.0.1"
    config.mqttPort = broker.port
    config.mqttDeviceId = deviceId
    let bridge = try MQTTBridge(config: config, log: Log(sink: { lines.add($1) }), hostName: "test")
    bridge.announced.file = f.directory + "/announced.json"
    tune(bridge)
    let stop = StopBox()
    nonisolated(unsafe) let unsafeBridge = bridge
    let thread = Thread { _ = try? unsafeBridge.run(stop: { stop.stopped }) }
    thread.start()
    return {
      stop.stop()
      join(thread, "the bridge's thread")
    }
  }

  func requireBroker() throws {
    guard MQTTBridge.available else {
      throw XCTSkip("pomodoro was built without libmosquitto: sudo apt install libmosquitto-dev, then rebuild")
    }
  }

  /// A desk with a presence sensor: its state has `present`, and the bridge announces the
  /// occupancy sensor beside every desk's entities.
  func testADeskWithAPresenceSensorGetsItsOccupancyEntity() throws {
    try requireBroker()
    var device = DeviceConfig()
    device.presenceLine = "GPIO16"
    let f = try ControlFixture(config: device)
    let broker = try TestBroker(directory: f.directory)
    defer { broker.stop() }
    let pump = ServerPump(f.server)
    defer { pump.stop() }
    let stop = try startBridge(f, broker, "desk3", lines: Lines())
    defer { stop() }
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk3/state") { self.object($0)["present"] as? Bool == true })
    // (This desk has no profiles: not the profile select.)
    let n = HomeAssistant.entities.filter { $0.needs != "profiles" }.count
    let configs = try broker.retained("homeassistant/+/pomodoro_desk3/+/config", count: n)
    XCTAssertEqual(configs.count, n)
    let presence = object(configs["homeassistant/binary_sensor/pomodoro_desk3/presence/config"])
    XCTAssertEqual(presence["device_class"] as? String, "occupancy")
  }

  /// A new mqtt_device_id: the bridge empties the old desk's retained configs, state and
  /// availability before announcing the new one; `--remove` then leaves nothing retained.
  func testARenamedDeskIsWithdrawnAndRemoveLeavesNothing() throws {
    try requireBroker()
    let f = try ControlFixture()
    let broker = try TestBroker(directory: f.directory)
    defer { broker.stop() }
    let pump = ServerPump(f.server)
    defer { pump.stop() }
    // Every desk's entities (this desk has no presence sensor: not its occupancy sensor).
    let n = HomeAssistant.entities.filter { $0.needs == nil }.count
    let lines = Lines()
    var stop = try startBridge(f, broker, "desk1", lines: lines)
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "online" })
    XCTAssertEqual(try broker.retained("homeassistant/+/pomodoro_desk1/+/config", count: n).count, n)
    stop()
    XCTAssertFalse(lines.contains("withdrew"), "nothing to withdraw the first time")

    stop = try startBridge(f, broker, "desk2", lines: lines)
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk2/availability") { $0 == "online" })
    XCTAssertEqual(try broker.retained("homeassistant/+/pomodoro_desk2/+/config", count: n).count, n)
    XCTAssertEqual(
      try broker.retained("homeassistant/+/pomodoro_desk1/+/config", count: 1), [:], "desk1's configs gone")
    XCTAssertEqual(try broker.retained("pomodoro/desk1/#", count: 1), [:], "desk1's state and availability gone")
    XCTAssertTrue(
      lines.contains("withdrew the Home Assistant device pomodoro_desk1"), lines.all.joined(separator: "\n"))
    stop()
    // A restart under the same id withdraws nothing.
    stop = try startBridge(f, broker, "desk2", lines: lines)
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk2/availability") { $0 == "online" })
    stop()
    XCTAssertEqual(lines.all.filter { $0.contains("withdrew") }.count, 1)

    var config = DeviceConfig()
    config.controlSocket = f.path
    config.mqttHost = "127.0.0.1"
    config.mqttPort = broker.port
    config.mqttDeviceId = "desk2"
    let remover = try MQTTBridge(config: config, log: Log(sink: { lines.add($1) }), hostName: "test", removing: true)
    remover.announced.file = f.directory + "/announced.json"
    XCTAssertEqual(try remover.remove(), ExitCode.ok)
    XCTAssertEqual(try broker.retained("#", count: 1), [:], "nothing retained on the broker")
    XCTAssertFalse(FileManager.default.fileExists(atPath: f.directory + "/announced.json"))
  }

  /// A device that stops answering (its socket open, nobody serving it) is unavailable once a
  /// request stays unanswered `answerTimeout`, and available again with its next answer.
  func testADeviceThatDoesNotAnswerIsUnavailable() throws {
    try requireBroker()
    let f = try ControlFixture()
    let broker = try TestBroker(directory: f.directory)
    defer { broker.stop() }
    var pump = ServerPump(f.server)
    let lines = Lines()
    let stop = try startBridge(f, broker, "desk1", lines: lines) {
      $0.link.refreshInterval = ms(200)
      $0.link.answerTimeout = ms(300)
    }
    defer { stop() }
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "online" })
    pump.stop()
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "offline" }, "a silent device")
    XCTAssertTrue(lines.contains("has not answered 'status' for 300ms"), lines.all.joined(separator: "\n"))
    pump = ServerPump(f.server)
    defer { pump.stop() }
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "online" }, "answering again")
    XCTAssertTrue(lines.contains("answers again"))
  }

  /// The select and the number act in the picker only: outside it the device refuses, and the
  /// bridge's log names the command and why.
  func testARefusedSetIsLoggedWithTheCommand() throws {
    try requireBroker()
    let f = try ControlFixture()
    let broker = try TestBroker(directory: f.directory)
    defer { broker.stop() }
    let pump = ServerPump(f.server)
    defer { pump.stop() }
    let lines = Lines()
    let stop = try startBridge(f, broker, "desk1", lines: lines)
    defer { stop() }
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/availability") { $0 == "online" })
    try broker.publish("pomodoro/desk1/command", "start")
    XCTAssertNotNil(try broker.waitFor("pomodoro/desk1/state") { self.object($0)["phase"] as? String == "running" })
    try broker.publish("pomodoro/desk1/command", "set 10m")
    XCTAssertNoThrow(try waitUntil("the bridge to log a refusal") { lines.contains("refused") })
    XCTAssertTrue(
      lines.contains(
        "the device refused 'set 10m' from pomodoro/desk1/command: set works only while idle: the timer is running; cancel it first"
      ), lines.all.joined(separator: "\n"))
  }
}
