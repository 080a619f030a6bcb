import Foundation
import PomodoroCore
import PomodoroMQTT
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// docs/room.md's ACL, as written there, on a real mosquitto with a password file: anonymous
/// clients are refused; the room's members hear each other; a desk outside the room neither
/// reaches it nor hears it; a member cannot write another desk's session or member message, so a
/// session's author (the topic's desk) is proven by the broker.
final class RoomACLTests: XCTestCase {
  let clock = SystemClock()
  var lines: [String] = []

  /// The ACL block of docs/room.md.
  func documentedACL() throws -> String {
    let doc = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../docs/room.md"), encoding: .utf8)
    let marker = try XCTUnwrap(doc.range(of: "<!-- acl: RoomACLTests reads the block below -->\n```\n"))
    let end = try XCTUnwrap(doc.range(of: "```", range: marker.upperBound..<doc.endIndex))
    return String(doc[marker.upperBound..<end.lowerBound])
  }

  func testTheDocumentedACLKeepsARoomToItsMembers() throws {
    guard MQTTBridge.available else { throw XCTSkip("pomodoro was built without libmosquitto") }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd") else {
      throw XCTSkip("needs mosquitto_passwd (sudo apt install mosquitto)")
    }
    let dir = try DeviceHarness.temporaryDirectory()
    let acl = dir + "/pomodoro.acl"
    try documentedACL().write(toFile: acl, atomically: true, encoding: .utf8)
    let passwd = dir + "/passwd"
    FileManager.default.createFile(atPath: passwd, contents: nil)
    for user in ["desk-a", "desk-b", "desk-c"] {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
      p.arguments = ["-b", passwd, user, "pw-" + user]
      try p.run()
      p.waitUntilExit()
      XCTAssertEqual(p.terminationStatus, 0)
    }
    let broker = try TestBroker(
      directory: dir, access: "allow_anonymous false\npassword_file \(passwd)\nacl_file \(acl)\n",
      probe: ["-u", "desk-c", "-P", "pw-desk-c"])
    defer { broker.stop() }
    func credentials(_ user: String) -> [String] { ["-u", user, "-P", "pw-" + user] }
    let room = "pomodoro/room/team"

    // desk-b, a member, listens as its bridge does.
    let client = try Mosquitto(
      id: "pomodoro-desk-b-room", will: ("\(room)/members/desk-b", ""), user: "desk-b", password: "pw-desk-b",
      cafile: nil, keep: 1025)
    let session = BrokerSession(
      client: client, host: "127.0.0.1", port: broker.port, clientId: "pomodoro-desk-b-room", deviceId: "desk-b",
      subscriptions: RoomTopics(prefix: "pomodoro", room: "team").subscriptions, limit: 1024, clock: clock,
      log: Log(sink: { self.lines.append($1) }))
    var heard: [String] = []
    var markers = 0
    session.onMessage = { if $0.text == "marker" { markers += 1 } else { heard.append("\($0.topic) \($0.text)") } }
    let waiter = try PollWaiter(clock: clock, catchingSignals: false)
    func turn(for span: Nanoseconds = seconds(10), until done: () -> Bool) throws {
      let end = clock.now + span
      while !done() && clock.now < end {
        _ = try SourceLoop.turn([session], waiter: waiter, until: clock.now + ms(100))
      }
    }
    try turn { session.up }
    XCTAssertTrue(session.up, "a member with its will on its member topic is let in: \(lines)")
    // Its subscriptions in place before anything is published: desk-a's marker (not retained),
    // published again until desk-b hears one.
    func publish(_ user: String, _ topic: String, _ payload: String, retain: Bool = true) throws {
      try broker.run(
        "/usr/bin/mosquitto_pub",
        credentials(user) + ["-q", "1"] + (retain ? ["-r"] : []) + ["-t", topic, "-m", payload])
    }
    XCTAssertNoThrow(
      try waitUntil("desk-b to hear desk-a's marker", every: 0) {
        try publish("desk-a", "\(room)/members/desk-a", "marker", retain: false)
        try turn(for: ms(200)) { markers > 0 }
        return markers > 0
      })

    // Forgeries first, each acknowledged (or dropped) before the next: desk-c is no member,
    // desk-a may not write desk-b's message.
    try publish("desk-c", "\(room)/sessions/desk-c", "forged session")
    try publish("desk-c", "\(room)/sessions/desk-a", "forged desk-a's session")
    try publish("desk-c", "\(room)/members/desk-c", "forged member")
    try publish("desk-c", "\(room)/members/desk-a", "forged desk-a")
    try publish("desk-a", "\(room)/members/desk-b", "forged desk-b")
    try publish("desk-a", "\(room)/sessions/desk-b", "desk-a as desk-b")
    try publish("desk-a", "\(room)/session", "the first wire's topic")
    // Anonymous: refused at the door.
    var anonymous = ""
    let refused = try broker.run(
      "/usr/bin/mosquitto_pub", ["-q", "1", "-t", "\(room)/sessions/desk-a", "-m", "anonymous"], output: &anonymous)
    XCTAssertNotEqual(refused, 0, "an anonymous client is refused: \(anonymous)")
    // Then the real ones.
    try publish("desk-a", "\(room)/sessions/desk-a", "session")
    try publish("desk-a", "\(room)/members/desk-a", "member desk-a")
    // One connection gets its messages in the broker's order: a forgery let through would have
    // come before these.
    try turn { heard.count >= 2 }
    XCTAssertEqual(heard.sorted(), ["\(room)/members/desk-a member desk-a", "\(room)/sessions/desk-a session"])

    // A desk outside the room hears nothing of it; a member hears the retained session.
    var out = ""
    try broker.run(
      "/usr/bin/mosquitto_sub", credentials("desk-c") + ["-t", "\(room)/#", "-v", "-C", "1", "-W", "1"], output: &out)
    XCTAssertEqual(out, "", "desk-c is no member")
    try broker.run(
      "/usr/bin/mosquitto_sub", credentials("desk-b") + ["-t", "\(room)/sessions/+", "-v", "-C", "1", "-W", "5"],
      output: &out)
    XCTAssertEqual(out, "\(room)/sessions/desk-a session\n")
    session.disconnect()
  }
}
