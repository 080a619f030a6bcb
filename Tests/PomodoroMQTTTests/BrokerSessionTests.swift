import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroMQTT

/// A clock a test moves by hand.
final class HandClock: MonotonicClock {
  var now = Instant(nanoseconds: 1_000_000_000)
  func advance(_ by: Nanoseconds) { now = now + by }
}

/// An MQTT client that a test scripts: it connects when told, delivers the CONNACKs, drops and
/// messages the test queues, and records what the bridge publishes and subscribes to.
final class ScriptedMQTTClient: MQTTClient {
  var connects = 0
  var connacks: [Int32] = []
  var drops: [MQTTDrop] = []
  var messages: [MQTTMessage] = []
  var published: [(topic: String, payload: String, retain: Bool)] = []
  var subscribed: [String] = []
  /// The expiry of each message published, by topic (the last one's).
  var expiries: [String: Int?] = [:]
  var open = false

  /// The broker accepts the connection being made.
  func accept() { connacks.append(0) }
  /// The broker ends the connection.
  func drop(_ how: MQTTDrop) {
    open = false
    drops.append(how)
  }

  func connect(host: String, port: Int, keepalive: Int) -> Int32 {
    connects += 1
    open = true
    return 0
  }
  /// A descriptor while connected (never polled: the test hands the session its wakes).
  var socket: Int32 { open ? 0 : -1 }
  var wantsWrite: Bool { false }
  func loopRead() {}
  func loopWrite() {}
  func loopMisc() {}
  func publish(_ topic: String, _ payload: [UInt8], retain: Bool, expiry: Int?) -> Int32 {
    published.append((topic, String(decoding: payload, as: UTF8.self), retain))
    expiries[topic] = expiry
    return 0
  }
  func subscribe(_ topic: String) -> Int32 {
    subscribed.append(topic)
    return 0
  }
  func disconnect() { open = false }
  var unacked: Int { 0 }
  func takeConnack() -> Int32? { connacks.isEmpty ? nil : connacks.removeFirst() }
  func takeDrop() -> MQTTDrop? { drops.isEmpty ? nil : drops.removeFirst() }
  func nextMessage(limit: Int) -> MQTTMessage? { messages.isEmpty ? nil : messages.removeFirst() }
  func describe(_ rc: Int32) -> String { "error \(rc)" }
}

final class BrokerSessionTests: XCTestCase {
  let clock = HandClock()
  let client = ScriptedMQTTClient()
  var lines: [String] = []

  func session() -> BrokerSession {
    let s = BrokerSession(
      client: client, host: "broker", port: 1883, clientId: "pomodoro-desk1", deviceId: "desk1",
      subscriptions: ["pomodoro/desk1/command"], limit: 4096, clock: clock, log: Log(sink: { self.lines.append($1) }))
    s.jitter = { $0 / 8 }
    return s
  }

  /// Steps the session through `span` of virtual time in 100 ms wakes, accepting every
  /// connection it makes and handing each to `hold` (which may drop it).
  func run(_ s: BrokerSession, for span: Nanoseconds, hold: (BrokerSession) -> Void) {
    let end = clock.now + span
    while clock.now < end {
      let before = client.connects
      s.handle(Wake())
      if client.connects > before {
        client.accept()
        s.handle(Wake())
      }
      hold(s)
      clock.advance(ms(100))
    }
  }

  /// A broker that says "session taken over" (MQTT 5, reason 0x8E) each time the other desk
  /// with this id reconnects: the session backs off from 5 s, doubling with jitter up to 5
  /// minutes, says so once with the fix, and never stops. The other bridge is played as
  /// taking the connection 1 s after each of ours.
  func testASessionTakenOverBacksOffToMinutesAndSaysSoOnce() {
    let s = session()
    var connectedAt: Instant?
    run(s, for: seconds(30 * 60)) { s in
      if s.up && connectedAt == nil { connectedAt = clock.now }
      if s.up, let at = connectedAt, clock.now - at >= seconds(1) {
        client.drop(.takenOver)
        s.handle(Wake())
        connectedAt = nil
      }
    }
    // 5, 10, 20, 40, 80, 160 s and then every 300 s (plus an eighth of jitter): 11 connections in
    // 30 minutes, where a once-a-second tug of war makes 1,800.
    XCTAssertLessThanOrEqual(client.connects, 13, "connections in 30 minutes")
    XCTAssertGreaterThanOrEqual(client.connects, 9, "it keeps trying")
    let said = lines.filter { $0.contains("mqtt_device_id") }
    XCTAssertEqual(said.count, 1, lines.joined(separator: "\n"))
    XCTAssertTrue(
      said[0].contains(
        "the broker gave this connection to another client with the client id pomodoro-desk1, a second bridge for desk1?"
      ),
      said[0])
    XCTAssertTrue(said[0].contains("up to 5m"), said[0])
  }

  /// mosquitto 2.0 closes the older connection without a word: three drops in a row, each
  /// within 10 s of being accepted, are a collision (the same back-off); one or two are a lost
  /// connection, retried in half a second.
  func testThreeQuickDropsAreACollisionAndTwoAreNot() {
    let s = session()
    for round in 1...3 {
      connect(s)
      clock.advance(seconds(2))
      client.drop(.lost)
      s.handle(Wake())
      if round < 3 {
        XCTAssertFalse(s.colliding, "round \(round)")
        XCTAssertEqual(s.retryAt, clock.now + ms(500), "a lost connection, round \(round)")
      }
    }
    XCTAssertTrue(s.colliding)
    XCTAssertEqual(s.retryAt, clock.now + seconds(5) + seconds(5) / 8)
    XCTAssertEqual(lines.filter { $0.contains("soon after accepting it, 3 times in a row") }.count, 1, "\(lines)")
    // A connection that then holds for ten minutes ends the episode: the next drop is a lost
    // connection again.
    connect(s)
    run(s, for: seconds(10 * 60 + 1)) { _ in }
    XCTAssertTrue(s.up)
    XCTAssertFalse(s.colliding)
    client.drop(.lost)
    s.handle(Wake())
    XCTAssertFalse(s.colliding)
    XCTAssertEqual(s.retryAt, clock.now + ms(500))
  }

  /// Wakes the session every 100 ms until the broker has accepted a connection.
  func connect(_ s: BrokerSession) {
    for _ in 0..<10_000 where !s.up {
      let before = client.connects
      s.handle(Wake())
      if client.connects > before {
        client.accept()
        s.handle(Wake())
      }
      if !s.up { clock.advance(ms(100)) }
    }
  }

  /// Subscribed at each connection, before `onConnected` publishes.
  func testEachConnectionSubscribesThenAnnounces() {
    let s = session()
    var order: [String] = []
    s.onConnected = { order.append("connected after \(self.client.subscribed)") }
    run(s, for: ms(300)) { _ in }
    XCTAssertEqual(order, ["connected after [\"pomodoro/desk1/command\"]"])
  }
}
