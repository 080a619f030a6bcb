import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroMQTT

/// The profile select (issue 48): announced while the device's state names profiles, its options
/// those profiles in the config's order then `(base)`, announced again when they change and
/// withdrawn when they are gone; its command template's JSON reaches the device as the profile
/// command.
final class ProfileSelectTests: XCTestCase {
  let clock = HandClock()
  let client = ScriptedMQTTClient()
  let topics = BridgeTopics(topicPrefix: "pomodoro", discoveryPrefix: "homeassistant", deviceId: "desk1")
  let topic = "homeassistant/select/pomodoro_desk1/profile/config"

  func object(_ payload: String?) -> [String: Any] {
    guard let payload, let o = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
    else { return [:] }
    return o
  }

  func state(profile: String = "", profiles: [String]) -> [String: JSONValue] {
    [
      "phase": .string("idle"), "mode": .string("focus"), "profile": .string(profile),
      "profiles": .list(profiles.map { .string($0) }),
    ]
  }

  func connectedBridge(socketPath: String = "/nonexistent/control.sock") -> MQTTBridge {
    let b = MQTTBridge(
      topics: topics, socketPath: socketPath, host: "broker", port: 1883, client: client, clientId: "pomodoro-desk1",
      clock: clock, log: Log(sink: { _, _ in }))
    b.announced.file = nil
    b.session.handle(Wake())
    client.accept()
    b.session.handle(Wake())
    XCTAssertTrue(b.session.up)
    return b
  }

  /// The select's config: the state's profiles then `(base)`; the profile in use read with the
  /// base as `(base)`; the option sent as the profile command's JSON.
  func testTheSelectsOptionsAreTheStatesProfilesThenTheBase() throws {
    XCTAssertFalse(topics.discovery(nil).contains { $0.topic == topic }, "no state yet: left alone")
    let none = DiscoveryParts(state: state(profiles: []))
    XCTAssertEqual(none.fields, [], "an empty list is no profiles")
    XCTAssertEqual(topics.discovery(none).first { $0.topic == topic }?.payload, "", "no profiles: withdrawn")
    let parts = DiscoveryParts(state: state(profile: "deep", profiles: ["light", "deep"]))
    XCTAssertEqual(parts, DiscoveryParts(fields: ["profiles"], profiles: ["light", "deep"]))
    let o = object(try XCTUnwrap(topics.discovery(parts).first { $0.topic == topic }?.payload))
    XCTAssertEqual(o["options"] as? [String], ["light", "deep", "(base)"])
    XCTAssertEqual(o["default_entity_id"] as? String, "select.pomodoro_desk1_profile")
    XCTAssertEqual(o["state_topic"] as? String, "pomodoro/desk1/state")
    XCTAssertEqual(o["command_topic"] as? String, "pomodoro/desk1/command")
    XCTAssertEqual(o["value_template"] as? String, "{{ value_json.profile | default('') or '(base)' }}")
    XCTAssertEqual(
      o["command_template"] as? String,
      "{{ {'cmd': 'profile', 'name': ('' if value == '(base)' else value)} | tojson }}")
    XCTAssertEqual(topics.discovery(parts, optional: true).count, 2, "the optional alone: presence and profile")
    // What the template makes (Jinja's tojson: sorted keys, ", " and ": ") is the device's command.
    XCTAssertEqual(ControlCommand.parse(payload: #"{"cmd": "profile", "name": "deep"}"#), .success(.profile("deep")))
    XCTAssertEqual(ControlCommand.parse(payload: #"{"cmd": "profile", "name": ""}"#), .success(.profile(nil)))
  }

  /// The bridge announces the select with the device's first state that names profiles, again
  /// when they change (not when only the profile in use does), and withdraws it when none is left.
  func testTheSelectIsAnnouncedAgainWhenTheProfilesChange() {
    let b = connectedBridge()
    func configs() -> [String] {
      let mine = client.published.filter { $0.topic == topic }
      XCTAssertTrue(mine.allSatisfy(\.retain), "retained")
      client.published = []
      return mine.map(\.payload)
    }
    XCTAssertEqual(configs(), [], "not before the device's state")
    b.state(state(profiles: []))
    XCTAssertEqual(configs(), [""], "a desk without profiles: withdrawn")
    b.state(state(profiles: ["deep", "light"]))
    XCTAssertEqual(configs().map { object($0)["options"] as? [String] }, [["deep", "light", "(base)"]])
    b.state(state(profile: "deep", profiles: ["deep", "light"]))
    XCTAssertEqual(configs(), [], "the same profiles: nothing announced again")
    b.state(state(profile: "deep", profiles: ["deep", "light", "calm"]))
    XCTAssertEqual(configs().map { object($0)["options"] as? [String] }, [["deep", "light", "calm", "(base)"]])
    b.state(state(profiles: []))
    XCTAssertEqual(configs(), [""], "no profiles left: withdrawn")
    // A reconnection announces what the last state said.
    b.state(state(profiles: ["deep"]))
    _ = configs()
    b.announce()
    XCTAssertEqual(configs().map { object($0)["options"] as? [String] }, [["deep", "(base)"]])
  }

  /// What the select's command template sends, on the command topic, goes to the device's socket
  /// as the profile command (the base as no name).
  func testTheSelectsCommandReachesTheDevice() throws {
    let dir = NSTemporaryDirectory() + "pomodoro-profile-\(getpid())-\(Int.random(in: 0..<1_000_000))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (listener, _) = try UnixSocket.listen(dir + "/control.sock", group: nil)
    defer { close(listener) }
    let b = connectedBridge(socketPath: dir + "/control.sock")
    b.link.handle(Wake())
    let device = try waitFor("the link to connect to the device's socket") {
      let fd = accept(listener, nil, nil)
      return fd >= 0 ? fd : nil
    }
    defer { close(device) }
    UnixSocket.setNonBlocking(device)
    for payload in [#"{"cmd": "profile", "name": "deep"}"#, #"{"cmd": "profile", "name": ""}"#] {
      client.messages.append(MQTTMessage(topic: topics.command, payload: Array(payload.utf8)))
    }
    b.session.handle(Wake())
    var text = ""
    var buffer = [UInt8](repeating: 0, count: 4096)
    let want = [ControlCommand.profile("deep").requestLine, ControlCommand.profile(nil).requestLine]
    try waitUntil("the profile commands on the device's socket (so far: \(text))") {
      b.link.handle(Wake())
      let n = read(device, &buffer, buffer.count)
      if n > 0 { text += String(decoding: buffer[0..<n], as: UTF8.self) }
      return want.allSatisfy { line in text.split(separator: "\n").contains { $0 == line } }
    }
    XCTAssertEqual(want, [#"{"cmd":"profile","name":"deep"}"#, #"{"cmd":"profile"}"#])
  }
}
