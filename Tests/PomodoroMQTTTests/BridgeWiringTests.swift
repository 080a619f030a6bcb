import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroMQTT

/// The bridge over a scripted MQTT client (no mosquitto): what it does with what arrives on its
/// command and availability topics. No device listens: the link keeps retrying meanwhile.
final class BridgeWiringTests: XCTestCase {
  let clock = HandClock()
  let client = ScriptedMQTTClient()
  var lines: [String] = []
  let topics = BridgeTopics(topicPrefix: "pomodoro", discoveryPrefix: "homeassistant", deviceId: "desk1")

  func connectedBridge() -> MQTTBridge {
    let b = MQTTBridge(
      topics: topics, socketPath: "/nonexistent/control.sock", host: "broker", port: 1883, client: client,
      clientId: "pomodoro-desk1", clock: clock, log: Log(sink: { self.lines.append($1) }))
    b.announced.file = nil
    b.session.handle(Wake())
    client.accept()
    b.session.handle(Wake())
    XCTAssertTrue(b.session.up)
    return b
  }

  func deliver(_ b: MQTTBridge, _ messages: MQTTMessage...) {
    client.messages += messages
    b.session.handle(Wake())
  }

  func testConnectingAnnouncesEveryEntityAndSaysOffline() {
    _ = connectedBridge()
    XCTAssertEqual(client.subscribed, [topics.command, topics.availability])
    // Every desk's entities; one a desk may lack (the presence sensor's) waits for the device's state.
    XCTAssertEqual(
      client.published.filter { $0.topic.hasSuffix("/config") }.count,
      HomeAssistant.entities.filter { $0.needs == nil }.count)
    XCTAssertEqual(client.published.last?.topic, topics.availability)
    XCTAssertEqual(client.published.last?.payload, "offline", "no device yet")
  }

  /// A retained command is said once and never passed on; its clearing (`mosquitto_pub -r -n`,
  /// an empty payload) and an oversized payload are not commands either; only the last is said.
  func testRetainedClearedAndOversizedCommands() {
    let b = connectedBridge()
    lines = []
    deliver(
      b, MQTTMessage(topic: topics.command, payload: Array("start".utf8), retained: true),
      MQTTMessage(topic: topics.command, payload: Array("start".utf8), retained: true),
      MQTTMessage(topic: topics.command, payload: []),
      MQTTMessage(topic: topics.command, payload: Array(repeating: 0x78, count: 4097), length: 64 << 20))
    XCTAssertEqual(
      lines,
      [
        "ignored a retained command 'start' on pomodoro/desk1/command: the broker keeps it and would replay it at every reconnect; publish commands without -r, and clear it with: mosquitto_pub -h broker -r -n -t pomodoro/desk1/command",
        "ignored a command payload of 67108864 bytes on pomodoro/desk1/command: over the 4 KiB limit (a command is a line like 'extend 5m')",
      ])
  }

  /// Another client's payload on the availability topic is put right and said; the broker's
  /// retained copy from before this connection is put right without a word.
  func testAvailabilityIsRepaired() {
    let b = connectedBridge()
    lines = []
    client.published = []
    deliver(b, MQTTMessage(topic: topics.availability, payload: Array("online".utf8), retained: true))
    XCTAssertEqual(client.published.map(\.payload), ["offline"])
    XCTAssertEqual(lines, [])
    deliver(b, MQTTMessage(topic: topics.availability, payload: Array("junk".utf8)))
    XCTAssertEqual(client.published.map(\.payload), ["offline", "offline"])
    XCTAssertEqual(lines, ["another client published 'junk' on pomodoro/desk1/availability; published 'offline' again"])
    deliver(b, MQTTMessage(topic: topics.availability, payload: Array("offline".utf8)))
    XCTAssertEqual(client.published.count, 2, "what it says already: nothing to put right")
  }

  /// A burst of 20 commands passes, then 10 a second; what is dropped is said once a minute,
  /// then counted.
  func testCommandsPastTheRateAreDroppedAndSaidOnce() {
    var intake = CommandIntake(
      topic: topics.command, host: "broker", log: Log(sink: { self.lines.append($1) }),
      limiter: LogLimiter(log: Log(sink: { _, _ in })))
    let toggle = MQTTMessage(topic: topics.command, payload: Array("toggle".utf8))
    XCTAssertEqual((0..<3000).filter { _ in intake.take(toggle, at: clock.now) != nil }.count, 20)
    clock.advance(seconds(1))
    XCTAssertEqual((0..<3000).filter { _ in intake.take(toggle, at: clock.now) != nil }.count, 10)
    XCTAssertEqual(
      lines,
      [
        "dropped the command 'toggle' from pomodoro/desk1/command: more than 10 a second (a burst of 20 is let through)"
      ])
    clock.advance(seconds(60))
    intake.flood.tick(clock.now)
    XCTAssertEqual(
      lines.last,
      "5969 more commands dropped over the rate on pomodoro/desk1/command in the last 1m, not logged one by one")
  }

  /// Settings are not changed over MQTT (ctl and the page change them): a config command is
  /// ignored and said.
  func testConfigCommandsAreIgnoredAndSaid() {
    var said: [String] = []
    var intake = CommandIntake(
      topic: topics.command, host: "broker", log: Log(sink: { _, _ in }),
      limiter: LogLimiter(log: Log(sink: { said.append($1) })))
    for payload in ["config", "config set focus 30m", #"{"cmd":"config_reset","key":"focus"}"#] {
      XCTAssertNil(
        intake.take(MQTTMessage(topic: topics.command, payload: Array(payload.utf8)), at: clock.now), payload)
    }
    XCTAssertEqual(
      said.first,
      "ignored 'config' on pomodoro/desk1/command: settings are changed with pomodoro ctl config or the page, not over MQTT"
    )
    XCTAssertNotNil(intake.take(MQTTMessage(topic: topics.command, payload: Array("toggle".utf8)), at: clock.now))
  }
}

/// The room's wiring in the bridge: the device's state goes to the room, which makes its own
/// client; a device gone empties the member message; leaving withdraws it.
final class BridgeRoomWiringTests: XCTestCase {
  let clock = HandClock()
  let client = ScriptedMQTTClient()
  var room: [(id: String, will: (topic: String, payload: String), client: ScriptedMQTTClient)] = []
  let topics = BridgeTopics(topicPrefix: "pomodoro", discoveryPrefix: "homeassistant", deviceId: "desk1")

  /// A bridge on the scripted client whose room clients are recorded in `room`.
  func bridge(socketPath: String) -> MQTTBridge {
    let b = MQTTBridge(
      topics: topics, socketPath: socketPath, host: "broker", port: 1883, client: client,
      clientId: "pomodoro-desk1", clock: clock, log: Log(sink: { _, _ in }),
      roomClient: { id, will in
        let c = ScriptedMQTTClient()
        self.room.append((id, will, c))
        return c
      })
    b.announced.file = nil
    return b
  }

  /// The lines the bridge writes are the commands the device reads: each taken apart by the
  /// device's parser gives what the bridge meant.
  func testTheRoomsLinesAreTheDevicesCommands() throws {
    let m = RoomSessionMessage(
      RoomSession(
        revision: 4, origin: "desk-b",
        plan: [.init(mode: .focus, length: ms(1_500_500)), .init(mode: .shortBreak, length: seconds(300))],
        planRevision: 3, phase: 1, state: .paused, elapsed: seconds(60)),
      expiry: 86_400, sentMs: 1_796_040_000_000, synced: true)
    let command = ControlCommand.roomSession(m, age: ms(2500), at: Instant(nanoseconds: 90_000 * 1_000_000))
    XCTAssertEqual(ControlCommand.parse(json: command.requestLine), .success(command))
    XCTAssertEqual(m.session.plan.map(\.length), [ms(1_500_500), seconds(300)], "a fractional length arrives whole")
    let status = RoomView(
      desk: "desk1", broker: true, clockTrusted: false,
      others: [
        RoomMember(
          desk: "desk-b", phase: .running, mode: .focus, label: try? SessionLabel.parse("Write").get(), following: true)
      ])
    let label = try XCTUnwrap(SessionLabel.parse("Write").get())
    XCTAssertEqual(
      ControlCommand.parse(json: ControlCommand.roomStatus(status).requestLine),
      .success(
        .roomStatus(
          RoomView(
            desk: "desk1", broker: true, clockTrusted: false,
            others: [RoomView.Member(desk: "desk-b", phase: .running, mode: .focus, label: label, following: true)]))))
  }

  func testTheDevicesRoomIsJoinedOverASecondClient() throws {
    let b = bridge(socketPath: "/nonexistent/control.sock")
    b.state(["phase": .string("idle"), "mode": .string("focus")])
    XCTAssertTrue(room.isEmpty, "no room named: no second client")
    b.state(["phase": .string("idle"), "mode": .string("focus"), "room": .string("team")])
    XCTAssertEqual(room.map(\.id), ["pomodoro-desk1-room"])
    XCTAssertEqual(room.first?.will.topic, "pomodoro/room/team/members/desk1")
    XCTAssertEqual(b.room.room, "team")
    let roomClient = try XCTUnwrap(room.first?.client)
    b.room.handle(Wake())
    roomClient.accept()
    b.room.handle(Wake())
    XCTAssertEqual(roomClient.published.last?.topic, "pomodoro/room/team/members/desk1")
    b.link.onAvailability(false)
    XCTAssertEqual(roomClient.published.last?.payload, "", "the device gone: emptied")
    b.room.leave()
    XCTAssertFalse(roomClient.open)
    XCTAssertTrue(client.published.isEmpty || client.published.allSatisfy { !$0.topic.contains("/room/") })
  }
}

extension BridgeRoomWiringTests {
  /// A member is judged the same on the broker (its member message, at the bridge) and at the desk
  /// (in the bridge's `room_status`): one check, `RoomMember.checked`. 3,000 random members.
  func testAMemberIsJudgedAlikeOnTheBrokerAndAtTheDesk() {
    var rng = SystemRandomNumberGenerator()
    let s = { (texts: [String]) in texts.map { JSONValue.string($0) } }
    let phases = s(["idle", "running", "paused", "ringing", "asleep", ""]) + [.int(1), .null]
    let modes = s(["focus", "short", "long", "soft", "medium", "hard", "flow", "egg"]) + [.bool(true)]
    let labels = s(["", "Write", " Write", String(repeating: "x", count: 41), "a\u{7}b"]) + [.int(3)]
    let flags: [JSONValue] = [.bool(true), .bool(false), .string("true")]
    var taken = 0
    for _ in 0..<3_000 {
      let fields: [(String, JSONValue)] = [
        ("phase", phases.randomElement(using: &rng)!), ("mode", modes.randomElement(using: &rng)!),
        ("label", labels.randomElement(using: &rng)!), ("following", flags.randomElement(using: &rng)!),
      ]
      let message = FlatJSON.encode([("v", .int(1)), ("desk", .string("desk-b"))] + fields)
      let broker = RoomMember.parse(message, desk: "desk-b")
      let line = FlatJSON.encode(
        [
          ("cmd", .string("room_status")), ("desk", .string("desk-a")), ("broker", .bool(true)),
          ("clock_trusted", .bool(true)), ("desks", .list([.string("desk-b")])),
        ]
          + [("phases", 0), ("modes", 1), ("labels", 2), ("following", 3)].map { ($0.0, .list([fields[$0.1].1])) })
      let desk = ControlCommand.parse(json: line)
      switch (broker, desk) {
      case (.success(let m), .success(.roomStatus(let view))):
        XCTAssertEqual(view.others, [m], message)
        taken += 1
      case (.failure(let why), .failure(let refusal)):
        XCTAssertTrue(refusal.message.hasSuffix(why.message), "\(message): \(why) / \(refusal)")
      default: XCTFail("judged apart: \(message): \(broker) / \(desk)")
      }
    }
    XCTAssertGreaterThan(taken, 100)
  }

  /// What the room tells the device goes down the control socket as the spec's request lines.
  func testTheRoomsLinesGoToTheDevicesSocket() throws {
    let dir = NSTemporaryDirectory() + "pomodoro-room-\(getpid())-\(Int.random(in: 0..<1_000_000))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (listener, _) = try UnixSocket.listen(dir + "/control.sock", group: nil)
    defer { close(listener) }
    let b = bridge(socketPath: dir + "/control.sock")
    b.link.handle(Wake())
    let device = try waitFor("the link to connect to the device's socket") {
      let fd = accept(listener, nil, nil)
      return fd >= 0 ? fd : nil
    }
    defer { close(device) }
    UnixSocket.setNonBlocking(device)
    b.state(["phase": .string("idle"), "mode": .string("focus"), "room": .string("team")])
    let roomClient = try XCTUnwrap(room.first?.client)
    b.room.handle(Wake())
    roomClient.accept()
    b.room.handle(Wake())
    let session = RoomSessionMessage(
      RoomSession(
        revision: 3, origin: "desk-b", plan: [.init(mode: .focus, length: seconds(1500))], phase: 0, state: .running,
        elapsed: 0),
      expiry: 1620, sentMs: 0, synced: false)
    roomClient.messages.append(
      MQTTMessage(topic: "pomodoro/room/team/sessions/desk-b", payload: Array(session.json.utf8), expiryLeft: 1618))
    b.room.handle(Wake())
    var text = ""
    var buffer = [UInt8](repeating: 0, count: 4096)
    try waitUntil("the room's session line on the device's socket (so far: \(text))") {
      let n = read(device, &buffer, buffer.count)
      if n > 0 { text += String(decoding: buffer[0..<n], as: UTF8.self) }
      return text.contains("room_session")
    }
    let lines = text.split(separator: "\n").map(String.init)
    XCTAssertTrue(lines.contains { $0.hasPrefix("{\"cmd\":\"room_status\",\"desk\":\"desk1\",\"broker\":true") }, text)
    XCTAssertTrue(
      lines.contains(ControlCommand.roomSession(session, age: ms(2000), at: b.room.clock.now).requestLine),
      text)
  }
}
