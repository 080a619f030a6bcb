import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroMQTT

/// What a room needs of the broker the project runs (a real mosquitto on 127.0.0.1) and of the
/// shim: a retained message's MQTT 5 Message Expiry Interval comes to a later subscriber less
/// the time it waited (the room's clock rule counts a session's age by it), and a will with an
/// empty retained payload (a member's withdrawal) is published when a client dies.
final class RoomBrokerTests: XCTestCase {
  let clock = SystemClock()
  var lines: [String] = []

  func session(_ broker: TestBroker, id: String, will: (topic: String, payload: String)? = nil, topics: [String] = [])
    throws -> BrokerSession
  {
    let client = try Mosquitto(id: id, will: will, user: nil, password: nil, cafile: nil, keep: 1025)
    return BrokerSession(
      client: client, host: "127.0.0.1", port: broker.port, clientId: id, deviceId: id, subscriptions: topics,
      limit: 1024, clock: clock, log: Log(sink: { self.lines.append($1) }))
  }

  /// Turns the loop over `sessions` until `done` or `span` (10 s) has passed.
  func turn(_ sessions: [BrokerSession], for span: Nanoseconds = seconds(10), until done: () -> Bool) throws {
    let waiter = try PollWaiter(clock: clock, catchingSignals: false)
    let end = clock.now + span
    while !done() && clock.now < end {
      _ = try SourceLoop.turn(sessions, waiter: waiter, until: min(end, clock.now + ms(100)))
    }
  }

  func broker() throws -> TestBroker {
    guard MQTTBridge.available else { throw XCTSkip("pomodoro was built without libmosquitto") }
    return try TestBroker(directory: try DeviceHarness.temporaryDirectory())
  }

  func testARetainedMessagesExpiryComesToALaterSubscriberLessTheTimeItWaited() throws {
    let broker = try broker()
    defer { broker.stop() }
    let topic = "pomodoro/room/test/session"
    let publisher = try session(broker, id: "room-pub")
    try turn([publisher]) { publisher.up }
    XCTAssertTrue(publisher.up, lines.joined(separator: "\n"))
    publisher.publish(topic, "{\"rev\":1}", retain: true, expiry: 100)
    try turn([publisher]) { publisher.client.unacked == 0 }
    XCTAssertEqual(publisher.client.unacked, 0, "the broker acknowledged the retained session")
    let published = clock.now

    // The message waits in the broker; the later subscriber is told what is left of 100 s. The
    // broker counts the expiry down in whole seconds: the wait is on that count (two of them).
    try broker.waitForExpiry(topic, toFallBy: 2)
    var heard: [MQTTMessage] = []
    let subscriber = try session(broker, id: "room-sub", topics: [topic])
    subscriber.onMessage = { heard.append($0) }
    try turn([subscriber]) { !heard.isEmpty }
    let waited = Int((clock.now - published) / 1_000_000_000)
    let message = try XCTUnwrap(heard.first, "the retained session was not delivered")
    XCTAssertTrue(message.retained)
    XCTAssertEqual(message.text, "{\"rev\":1}")
    let left = try XCTUnwrap(
      message.expiryLeft,
      "this broker does not forward MQTT 5's Message Expiry Interval: the room's clock rule falls back to the wall clock (trusted) or age 0 (docs/room.md, The clock rule)"
    )
    // Whole seconds at both ends: 100 less the wait, within a second either way.
    XCTAssertLessThan(left, 100, "the broker subtracted the \(waited) s the message waited")
    XCTAssertGreaterThanOrEqual(left, 100 - waited - 1)
    XCTAssertLessThanOrEqual(left, 100 - 2 + 1)

    // A message published without an expiry comes without one.
    publisher.publish(topic, "{\"rev\":2}", retain: true)
    try turn([publisher, subscriber]) { heard.count >= 2 }
    XCTAssertEqual(heard.last?.text, "{\"rev\":2}")
    XCTAssertNil(heard.last?.expiryLeft)
    publisher.disconnect()
    subscriber.disconnect()
  }

  func testAWillWithAnEmptyRetainedPayloadWithdrawsAMemberWhenItsClientDies() throws {
    let broker = try broker()
    defer { broker.stop() }
    let member = "pomodoro/room/test/members/desk-b"
    let desk = try session(broker, id: "pomodoro-desk-b-room", will: (member, ""))
    var heard: [MQTTMessage] = []
    let watcher = try session(broker, id: "watcher", topics: ["pomodoro/room/test/members/+"])
    watcher.onMessage = { heard.append($0) }
    try turn([desk, watcher]) { desk.up && watcher.up }
    desk.publish(member, "{\"v\":1,\"desk\":\"desk-b\"}", retain: true)
    try turn([desk, watcher]) { !heard.isEmpty }
    XCTAssertEqual(heard.map(\.text), ["{\"v\":1,\"desk\":\"desk-b\"}"])

    // Dies without a DISCONNECT: the broker publishes the will.
    shutdown(desk.client.socket, Int32(SHUT_RDWR))
    try turn([watcher]) { heard.count >= 2 }
    XCTAssertEqual(heard.count, 2, "the will came")
    XCTAssertEqual(heard.last?.topic, member)
    XCTAssertEqual(heard.last?.length, 0, "the will is empty")

    // Retained and empty: the member's message is deleted, a later subscriber hears nothing of
    // it (a marker published after the subscription shows the retained copies were sent).
    var later: [MQTTMessage] = []
    let late = try session(broker, id: "late", topics: ["pomodoro/room/test/members/+"])
    late.onMessage = { later.append($0) }
    try turn([late]) { late.up }
    // A marker, published again until late hears one: the first it hears went out after its
    // subscription was in place, so after the retained copies the subscription brought.
    XCTAssertNoThrow(
      try waitUntil("the late subscriber to hear a marker", every: 0) {
        watcher.publish("pomodoro/room/test/members/marker", "x", retain: false)
        try turn([late, watcher], for: ms(200)) { later.contains { $0.topic.hasSuffix("/marker") } }
        return later.contains { $0.topic.hasSuffix("/marker") }
      })
    XCTAssertEqual(Set(later.map(\.topic)), ["pomodoro/room/test/members/marker"], "nothing but markers")
    watcher.disconnect()
    late.disconnect()
  }

  /// Two desks' room bridges on a real broker: desk-a's new revision is published with its
  /// expiry; desk-b, joining once the broker has counted 2 s off that, hears the retained session
  /// with its age counted by the broker, sees desk-a in its roster, and loses it by the will when
  /// desk-a's bridge dies.
  func testTwoDesksRoomBridgesMeetOnARealBroker() throws {
    let broker = try broker()
    defer { broker.stop() }
    let log = Log(sink: { self.lines.append($1) })
    func desk(_ id: String) -> (RoomBridge, () -> [ControlCommand]) {
      var told: [ControlCommand] = []
      let b = RoomBridge(
        topicPrefix: "pomodoro", desk: id, host: "127.0.0.1", port: broker.port, clock: clock, log: log,
        limiter: LogLimiter(log: log), wallMs: RoomBridge.systemWallMs, flagExists: { false },
        makeClient: { id, will in
          try Mosquitto(id: id, will: will, user: nil, password: nil, cafile: nil, keep: 1025, maxPacket: 4096)
        })
      b.toDevice = {
        told.append($0)
        return true
      }
      return (b, { told })
    }
    func turn(_ bridges: [RoomBridge], until done: () -> Bool) throws {
      let waiter = try PollWaiter(clock: clock, catchingSignals: false)
      let end = clock.now + seconds(10)
      while !done() && clock.now < end {
        _ = try SourceLoop.turn(bridges, waiter: waiter, until: min(end, clock.now + ms(100)))
      }
    }
    let state: [String: JSONValue] = [
      "room": .string("team"), "phase": .string("running"), "mode": .string("focus"), "room_following": .bool(true),
      "room_rev": .int(1), "room_by": .string("desk-a"), "room_modes": .list([.string("focus"), .string("short")]),
      "room_lengths_ms": .list([.int(1_500_000), .int(300_000)]), "room_plan_rev": .int(1), "room_phase": .int(0),
      "room_state": .string("running"),
      "room_elapsed_ms": .int(0),
    ]
    let (a, _) = desk("desk-a")
    a.state(state)
    try turn([a]) { a.session?.up == true }
    a.state(state)
    // Connected, and the retained messages' second over: the new revision goes out.
    try turn([a]) { a.precedence.live(at: clock.now) != nil && a.session?.client.unacked == 0 }
    let published = clock.now
    // The broker counts the session's age in whole seconds of its expiry: the wait is on that
    // count (two of them), so that desk-b hears an age of a second at least.
    try broker.waitForExpiry("pomodoro/room/team/sessions/desk-a", toFallBy: 2)

    let (b, told) = desk("desk-b")
    b.state(["room": .string("team"), "phase": .string("idle"), "mode": .string("focus")])
    func member(_ desk: String) -> RoomMember? { b.members.first { $0.desk == desk } }
    try turn([a, b]) {
      told().contains { if case .roomSession = $0 { true } else { false } } && member("desk-a") != nil
    }
    let heard = told().compactMap {
      if case .roomSession(let m, let age, _) = $0 { (m, wholeMilliseconds(age)) } else { nil }
    }
    XCTAssertEqual(heard.first?.0.session.revision, 1)
    XCTAssertEqual(heard.first?.0.session.origin, "desk-a", "the author is the topic's desk")
    XCTAssertEqual(
      heard.first.map { (1800 + 120 - 3)...(1800 + 120) ~= $0.0.expiry }, true, "moved on to when it went out")
    let waited = (clock.now - published) / 1_000_000
    let age = try XCTUnwrap(heard.first?.1)
    // The broker's whole seconds: within a second of the wait, never more than it and one.
    XCTAssertGreaterThanOrEqual(age, 1000, "counted by the broker's expiry (waited \(waited) ms)")
    XCTAssertLessThanOrEqual(age, waited + 1000)
    XCTAssertEqual(member("desk-a")?.phase, .running)

    // desk-a's bridge dies: its will empties its member message, desk-b's roster loses it.
    shutdown(a.session!.client.socket, Int32(SHUT_RDWR))
    try turn([b]) { member("desk-a") == nil }
    XCTAssertNil(member("desk-a"), lines.joined(separator: "\n"))
    b.leave()
  }

  /// 10,000 valid-looking sessions with rising revisions published at once on a real broker: the
  /// desk is told at most 20 a second, the bridge's turns stay short, and the best that reached
  /// the bridge is what the desk was told last.
  func testAFloodOfSessionsOnARealBrokerIsCoalesced() throws {
    let broker = try broker()
    defer { broker.stop() }
    let log = Log(sink: { self.lines.append($1) })
    var told: [(message: RoomSessionMessage, ageMs: Int64)] = []
    let b = RoomBridge(
      topicPrefix: "pomodoro", desk: "desk-b", host: "127.0.0.1", port: broker.port, clock: clock, log: log,
      limiter: LogLimiter(log: log), wallMs: RoomBridge.systemWallMs, flagExists: { false },
      makeClient: { id, will in
        try Mosquitto(id: id, will: will, user: nil, password: nil, cafile: nil, keep: 1025, maxPacket: 4096)
      })
    b.toDevice = {
      if case .roomSession(let m, let age, _) = $0 { told.append((m, wholeMilliseconds(age))) }
      return true
    }
    b.state(["room": .string("team"), "phase": .string("idle"), "mode": .string("focus")])
    let waiter = try PollWaiter(clock: clock, catchingSignals: false)
    let timed = Timed(b, clock: clock)
    var heardBest: Int64 = 0
    func turn(for span: Nanoseconds, until done: () -> Bool = { false }) throws {
      let end = clock.now + span
      while !done() && clock.now < end {
        _ = try SourceLoop.turn([timed], waiter: waiter, until: min(end, clock.now + ms(100)))
        heardBest = max(heardBest, b.precedence.live(at: clock.now)?.rev ?? 0)
      }
    }
    try turn(for: seconds(10)) { b.session?.up == true }
    let lines = (1...10_000).map { rev in
      "{\"v\":2,\"rev\":\(rev),\"modes\":[\"focus\"],\"lengths_ms\":[1500000],\"plan_rev\":\(rev),\"phase\":0,\"state\":\"running\",\"elapsed_ms\":0,\"expiry\":1620,\"sent_ms\":0,\"synced\":false}"
    }
    let input = Pipe()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
    p.arguments = [
      "-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", "pomodoro/room/team/sessions/desk-c", "-l",
    ]
    p.standardInput = input
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    let started = clock.now
    input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    try input.fileHandleForWriting.close()
    // Until the publisher is done and the bridge has passed on what waits.
    try turn(for: seconds(60)) {
      !p.isRunning && heardBest > 0 && b.queue.waiting == nil && clock.now - started > seconds(1)
    }
    try turn(for: ms(300))
    p.waitUntilExit()
    let span = clock.now - started
    print(
      "room flood: 10,000 sessions, the bridge heard up to rev \(heardBest), told the desk \(told.count) times in \(span / 1_000_000) ms, its longest turn \(timed.longest / 1_000) us, \(timed.turns) turns"
    )
    XCTAssertGreaterThan(told.count, 0)
    XCTAssertLessThanOrEqual(Int64(told.count), span / ms(50) + 2, "at most 20 a second")
    let revs = told.map(\.message.session.revision)
    XCTAssertEqual(revs.last, heardBest, "the best heard is told last")
    XCTAssertEqual(revs, revs.sorted(), "never an older one after a newer")
    b.leave()
  }
}

/// A loop source and the longest time its `handle` took.
final class Timed: LoopSource {
  let inner: LoopSource
  let clock: MonotonicClock
  var longest: Nanoseconds = 0
  var turns = 0
  init(_ inner: LoopSource, clock: MonotonicClock) {
    self.inner = inner
    self.clock = clock
  }
  var readDescriptors: [Int32] { inner.readDescriptors }
  var writeDescriptors: [Int32] { inner.writeDescriptors }
  var deadline: Instant? { inner.deadline }
  func handle(_ wake: Wake) {
    let start = clock.now
    inner.handle(wake)
    longest = max(longest, clock.now - start)
    turns += 1
  }
}
