import PomodoroControl
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroMQTT

/// The bridge's side of a room over scripted MQTT clients and a hand clock: the second
/// connection and its will, following the device's `room`, what is passed to the device and
/// what is published, the roster and its bounds, the heartbeat.
final class RoomBridgeTests: XCTestCase {
  let clock = HandClock()
  var made: [(id: String, will: (topic: String, payload: String), client: ScriptedMQTTClient)] = []
  var lines: [String] = []
  var told: [ControlCommand] = []
  var wall: Int64 = 1_796_000_000_000
  var flag = true

  var sessions: [(message: RoomSessionMessage, ageMs: Int64)] {
    told.compactMap {
      if case .roomSession(let m, let age, _) = $0 { return (m, wholeMilliseconds(age)) } else { return nil }
    }
  }
  var statuses: [RoomView] { told.compactMap { if case .roomStatus(let s) = $0 { return s } else { return nil } } }
  var client: ScriptedMQTTClient { made.last!.client }

  func bridge(desk: String = "desk-a") -> RoomBridge {
    let log = Log(sink: { self.lines.append($1) })
    let b = RoomBridge(
      topicPrefix: "pomodoro", desk: desk, host: "broker", port: 1883, clock: clock, log: log,
      limiter: LogLimiter(log: log), wallMs: { self.wall }, flagExists: { self.flag },
      makeClient: { id, will in
        let c = ScriptedMQTTClient()
        self.made.append((id, will, c))
        return c
      })
    b.toDevice = {
      self.told.append($0)
      return true
    }
    return b
  }

  /// The device's state: idle in focus, in `room`, holding `held` when given.
  func fields(room: String?, phase: String = "idle", label: String? = nil, held: RoomSessionMessage? = nil)
    -> [String: JSONValue]
  {
    var f: [String: JSONValue] = ["phase": .string(phase), "mode": .string("focus")]
    if let room { f["room"] = .string(room) }
    if let label { f["label"] = .string(label) }
    f["room_following"] = .bool(true)
    if let h = held?.session {
      f["room_rev"] = .int(h.revision)
      f["room_by"] = .string(h.origin)
      f["room_modes"] = .list(h.plan.map { .string($0.mode.rawValue) })
      f["room_lengths_ms"] = .list(h.plan.map { .int(wholeMilliseconds($0.length)) })
      f["room_plan_rev"] = .int(h.planRevision)
      f["room_phase"] = .int(Int64(h.phase))
      f["room_state"] = .string(h.state.rawValue)
      f["room_elapsed_ms"] = .int(wholeMilliseconds(h.elapsed))
    }
    return f
  }

  func session(rev: Int64, by: String, state: String = "running", elapsed: Int64 = 0) -> RoomSessionMessage {
    RoomSessionMessage(
      RoomSession(
        revision: rev, origin: by,
        plan: [.init(mode: .focus, length: seconds(1500)), .init(mode: .shortBreak, length: seconds(300))],
        phase: 0, state: RoomSession.State(rawValue: state)!, elapsed: ms(elapsed)),
      expiry: 1920, sentMs: wall, synced: true)
  }

  /// A bridge in `room`, connected, the retained messages' second over.
  func joined(_ room: String = "team", held: RoomSessionMessage? = nil) -> RoomBridge {
    let b = bridge()
    b.state(fields(room: room, held: held))
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    XCTAssertEqual(b.session?.up, true)
    settle(b)
    return b
  }

  /// The second after connecting, in which the bridge waits for the retained session.
  func settle(_ b: RoomBridge) {
    clock.advance(RoomBridge.settle)
    wall += RoomBridge.settle / 1_000_000
    b.handle(Wake())
  }

  func deliver(_ b: RoomBridge, _ messages: [MQTTMessage]) {
    client.messages += messages
    b.handle(Wake())
  }

  func sessionMessage(_ m: RoomSessionMessage, left: Int? = nil, retained: Bool = false) -> MQTTMessage {
    MQTTMessage(
      topic: "pomodoro/room/team/sessions/\(m.session.origin)", payload: Array(m.json.utf8), retained: retained,
      expiryLeft: left ?? Int(m.expiry))
  }

  func memberMessage(_ desk: String, _ payload: String) -> MQTTMessage {
    MQTTMessage(
      topic: "pomodoro/room/team/members/\(desk)", payload: Array(payload.utf8), retained: true,
      expiryLeft: Int(wholeSeconds(RoomRoster.life)))
  }

  // MARK: The connection

  func testNoRoomNoConnectionAndARoomHasItsOwnClientWithAnEmptyRetainedWill() {
    let b = bridge()
    b.state(fields(room: nil))
    b.state(fields(room: ""))
    b.handle(Wake())
    XCTAssertTrue(made.isEmpty, "no room: no second connection")
    XCTAssertNil(b.deadline)

    b.state(fields(room: "team"))
    XCTAssertEqual(made.count, 1)
    XCTAssertEqual(made[0].id, "pomodoro-desk-a-room")
    XCTAssertEqual(made[0].will.topic, "pomodoro/room/team/members/desk-a")
    XCTAssertEqual(made[0].will.payload, "", "the will withdraws the member message")
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    XCTAssertEqual(
      client.subscribed,
      ["pomodoro/room/team/sessions/+", "pomodoro/room/team/members/+", "pomodoro/room/team/session"])
    XCTAssertEqual(client.published.map(\.topic), ["pomodoro/room/team/members/desk-a"])
    XCTAssertEqual(client.published.last?.retain, true)
    XCTAssertEqual(
      client.published.last?.payload,
      "{\"v\":1,\"desk\":\"desk-a\",\"phase\":\"idle\",\"mode\":\"focus\",\"following\":true}")
  }

  func testChangingOrLeavingTheRoomWithdrawsTheMemberMessageAndEndsThatConnection() {
    let b = joined("team")
    let first = client
    b.state(fields(room: "other"))
    XCTAssertEqual(first.published.last?.topic, "pomodoro/room/team/members/desk-a")
    XCTAssertEqual(first.published.last?.payload, "", "withdrawn from the room left")
    XCTAssertFalse(first.open, "that connection ended")
    XCTAssertEqual(made.count, 2)
    XCTAssertEqual(made[1].will.topic, "pomodoro/room/other/members/desk-a")
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    XCTAssertEqual(
      client.subscribed,
      ["pomodoro/room/other/sessions/+", "pomodoro/room/other/members/+", "pomodoro/room/other/session"])

    let second = client
    b.state(fields(room: nil))
    XCTAssertEqual(second.published.last?.payload, "")
    XCTAssertEqual(second.published.last?.topic, "pomodoro/room/other/members/desk-a")
    XCTAssertFalse(second.open)
    XCTAssertNil(b.session)
    XCTAssertEqual(made.count, 2)
  }

  /// A room left while the broker was away: its member message is emptied at the next
  /// connection, so the room it left does not count this desk for ever.
  func testARoomLeftWhileTheBrokerWasAwayIsWithdrawnAtTheNextConnection() {
    let b = joined("team")
    client.drop(.lost)
    b.handle(Wake())
    b.state(fields(room: "other"))
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    XCTAssertEqual(
      client.published.filter { $0.payload.isEmpty }.map(\.topic), ["pomodoro/room/team/members/desk-a"])
    XCTAssertEqual(client.published.last?.topic, "pomodoro/room/other/members/desk-a")
  }

  func testAnImpossibleRoomOrDeskIsSaidOnceAndNotJoined() {
    let b = bridge()
    b.state(fields(room: "a/b"))
    b.state(fields(room: "a/b"))
    XCTAssertTrue(made.isEmpty)
    XCTAssertEqual(lines.filter { $0.contains("cannot join the room 'a/b'") }.count, 1, lines.joined(separator: "\n"))
  }

  /// `mqtt_device_id` takes any letters (a topic level, Home Assistant's name), a room's desk id
  /// only ASCII: a desk named `küche` says why it stays out of the room, and which keys to set.
  func testADeskIdOutsideTheRoomsLettersIsSaidOnceAndNotJoined() {
    let b = bridge(desk: "küche")
    b.state(fields(room: "team"))
    b.state(fields(room: "team"))
    XCTAssertTrue(made.isEmpty)
    let said = lines.filter { $0.contains("cannot join the room 'team' as 'küche'") }
    XCTAssertEqual(said.count, 1, lines.joined(separator: "\n"))
    XCTAssertTrue(said.first?.contains("set room and mqtt_device_id") == true, said.first ?? "")
  }

  // MARK: The member message

  func testTheMemberMessageIsPublishedAtEachChangeAndAgainAtEachConnection() {
    let b = joined()
    let before = client.published.count
    b.state(fields(room: "team"))
    XCTAssertEqual(client.published.count, before, "no change, nothing published")
    b.state(fields(room: "team", phase: "running", label: "Write"))
    XCTAssertEqual(
      client.published.last?.payload,
      "{\"v\":1,\"desk\":\"desk-a\",\"phase\":\"running\",\"mode\":\"focus\",\"label\":\"Write\",\"following\":true}")
    XCTAssertEqual(client.published.count, before + 1)
    client.drop(.lost)
    b.handle(Wake())
    clock.advance(seconds(1))
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    XCTAssertEqual(client.published.count, before + 2, "published again on reconnection")
  }

  /// Unchanged, the member message goes out again every `RoomRoster.refresh`, with the expiry
  /// `RoomRoster.life`: a desk that stops (without its will) leaves every roster.
  func testTheMemberMessageIsRefreshedWithItsExpiry() {
    let b = joined()
    let topic = "pomodoro/room/team/members/desk-a"
    func count() -> Int { client.published.filter { $0.topic == topic }.count }
    let before = count()
    XCTAssertEqual(client.expiries[topic], .some(Int(wholeSeconds(RoomRoster.life))))
    let due = try! XCTUnwrap(b.nextMemberRefresh)
    XCTAssertLessThanOrEqual(due - clock.now, RoomRoster.refresh)
    clock.advance(due - clock.now - ms(1))
    b.handle(Wake())
    XCTAssertEqual(count(), before, "not before its time")
    XCTAssertLessThanOrEqual(b.deadline ?? clock.now, clock.now + ms(1), "the loop wakes for it")
    clock.advance(ms(1))
    b.handle(Wake())
    XCTAssertEqual(count(), before + 1)
    XCTAssertEqual(client.published.last?.payload, client.published.filter { $0.topic == topic }.first?.payload)
  }

  func testADeviceGoneEmptiesTheMemberMessageAndItsNextStatePutsItBack() {
    let b = joined()
    let member = client.published.last
    b.deviceGone()
    b.deviceGone()
    XCTAssertEqual(client.published.filter { $0.payload.isEmpty }.count, 1, "emptied once")
    XCTAssertEqual(client.published.last?.topic, "pomodoro/room/team/members/desk-a")
    XCTAssertEqual(client.published.last?.retain, true)
    XCTAssertTrue(client.open, "the room's connection stays")
    b.state(fields(room: "team"))
    XCTAssertEqual(client.published.last?.payload, member?.payload, "back with its next state")
  }

  // MARK: Sessions heard

  func testAValidSessionGoesToTheDeviceWithItsAgeByTheBroker() {
    flag = false
    let b = joined()
    let m = session(rev: 3, by: "desk-b")
    deliver(b, [sessionMessage(m, left: Int(m.expiry) - 7, retained: true)])
    XCTAssertEqual(sessions.count, 1)
    XCTAssertEqual(sessions.first?.message, m)
    XCTAssertEqual(sessions.first?.ageMs, 7000)
    XCTAssertEqual(b.precedence.live(at: clock.now), m.key(at: clock.now - seconds(7)))
    // The retained session cleared: nothing to tell.
    deliver(b, [MQTTMessage(topic: "pomodoro/room/team/sessions/desk-b", payload: [], retained: true)])
    XCTAssertEqual(sessions.count, 1)
  }

  /// A flood of valid-looking sessions with rising revisions: the device is told at most 20
  /// times a second, and the last it is told is the best.
  func testAFloodIsCoalescedToTheBestAtMostTwentyASecond() {
    let b = joined()
    var rev: Int64 = 1
    for _ in 0..<300 {
      var batch: [MQTTMessage] = []
      for _ in 0..<10 {
        rev += 1
        batch.append(sessionMessage(session(rev: rev, by: "desk-\(rev % 7)")))
      }
      deliver(b, batch)
      clock.advance(ms(10))
    }
    clock.advance(ms(100))
    b.handle(Wake())
    XCTAssertLessThanOrEqual(sessions.count, 3 * 20 + 1, "3 s of flood")
    XCTAssertGreaterThanOrEqual(sessions.count, 3 * 20 - 1)
    XCTAssertEqual(sessions.last?.message.session.revision, rev, "the best reaches the device")
  }

  /// The lines the device is sent, as the spec writes them.
  func testTheLinesToTheDevice() {
    let m = session(rev: 7, by: "desk-b")
    XCTAssertEqual(
      ControlCommand.roomSession(m, age: ms(1234), at: Instant(nanoseconds: ms(5678))).requestLine,
      "{\"cmd\":\"room_session\",\"by\":\"desk-b\",\"v\":2,\"rev\":7,\"modes\":[\"focus\",\"short\"],\"lengths_ms\":[1500000,300000],\"plan_rev\":7,\"phase\":0,\"state\":\"running\",\"elapsed_ms\":0,\"expiry\":1920,\"sent_ms\":1796000000000,\"synced\":true,\"age_ms\":1234,\"at_ms\":5678}"
    )
    let status = RoomView(
      desk: "desk-a", broker: true, clockTrusted: false,
      others: [
        RoomMember(
          desk: "desk-b", phase: .running, mode: .focus, label: try? SessionLabel.parse("Write").get(), following: true)
      ])
    XCTAssertEqual(
      ControlCommand.roomStatus(status).requestLine,
      "{\"cmd\":\"room_status\",\"desk\":\"desk-a\",\"broker\":true,\"clock_trusted\":false,\"desks\":[\"desk-b\"],\"phases\":[\"running\"],\"modes\":[\"focus\"],\"labels\":[\"Write\"],\"following\":[true]}"
    )
  }

  // MARK: The roster

  func member(_ desk: String, phase: String = "running") -> String {
    "{\"v\":1,\"desk\":\"\(desk)\",\"phase\":\"\(phase)\",\"mode\":\"focus\",\"following\":true}"
  }

  /// A full roster: a newcomer takes the place of the desk heard longest ago (said, rate-limited);
  /// an empty member message removes a desk; this desk's own retained copy is no member.
  func testTheRosterIsBoundedANewcomerTakesThePlaceOfTheOldestAndAnEmptyMessageRemovesADesk() {
    let b = joined()
    deliver(b, (0..<60).map { memberMessage("d\($0)", member("d\($0)")) })
    clock.advance(seconds(1))
    deliver(b, (60..<70).map { memberMessage("d\($0)", member("d\($0)")) })
    XCTAssertEqual(b.members.count, RoomRoster.most)
    XCTAssertTrue(Set((60..<70).map { "d\($0)" }).isSubset(of: b.members.map(\.desk)), "the newcomers are in")
    XCTAssertEqual(b.members.filter { Int($0.desk.dropFirst())! < 60 }.count, 53, "seven heard first made way")
    XCTAssertTrue(lines.contains { $0.contains("heard longest ago, made way for") }, lines.joined(separator: "\n"))
    deliver(b, [memberMessage("d69", "")])
    XCTAssertEqual(b.members.count, RoomRoster.most - 1)
    XCTAssertFalse(b.members.contains { $0.desk == "d69" })
    deliver(b, [memberMessage("desk-a", member("desk-a", phase: "idle"))])
    XCTAssertFalse(b.members.contains { $0.desk == "desk-a" })
  }

  /// 63 retained ghosts (desks that left without their will): a real desk that joins later is in
  /// at once; the ghosts, never refreshed, leave after `RoomRoster.life`; the real desk, which
  /// refreshes, stays. Retained members without an expiry (no bridge of ours published them) are
  /// never counted.
  func testGhostsMakeRoomForARealDeskAndLeaveWhenNotRefreshed() {
    let b = joined()
    // A desk that is there, heard twice (its refresh): no ghost makes it leave.
    for _ in 0..<2 { deliver(b, [memberMessage("here", member("here"))]) }
    clock.advance(seconds(1))
    deliver(b, (0..<63).map { memberMessage("ghost\($0)", member("ghost\($0)")) })
    XCTAssertEqual(b.members.count, 63)
    XCTAssertTrue(b.members.contains { $0.desk == "here" }, "a desk that refreshes stays")
    clock.advance(seconds(2))
    deliver(b, [MQTTMessage(topic: "pomodoro/room/team/members/real", payload: Array(member("real").utf8))])
    XCTAssertTrue(b.members.contains { $0.desk == "real" }, "the real desk is counted at once")
    XCTAssertEqual(b.members.count, 63)
    for _ in 0..<8 {
      clock.advance(seconds(10))
      deliver(
        b,
        ["real", "here"].map {
          MQTTMessage(topic: "pomodoro/room/team/members/\($0)", payload: Array(member($0).utf8))
        })
    }
    XCTAssertEqual(b.members.map(\.desk), ["here", "real"], "the ghosts left")
    XCTAssertEqual(statuses.last?.others.map(\.desk), ["here", "real"], "and the device was told")
    deliver(
      b,
      (0..<5).map {
        MQTTMessage(
          topic: "pomodoro/room/team/members/old\($0)", payload: Array(member("old\($0)").utf8), retained: true)
      })
    XCTAssertEqual(b.members.map(\.desk), ["here", "real"], "retained without an expiry: no desk of ours")
  }

  /// `room_status` at each change (at most 4 a second) and every 20 s, with the members sorted.
  func testStatusAtEachChangeAndEveryTwentySeconds() {
    let b = joined()
    XCTAssertEqual(
      statuses.map(\.broker), [false, true], "on joining, on connecting")
    XCTAssertEqual(statuses.last, RoomView(desk: "desk-a", broker: true, clockTrusted: true, others: []))
    clock.advance(ms(300))
    deliver(
      b,
      [
        memberMessage("zed", "{\"v\":1,\"desk\":\"zed\",\"phase\":\"running\",\"mode\":\"focus\",\"following\":true}"),
        memberMessage(
          "amy",
          "{\"v\":1,\"desk\":\"amy\",\"phase\":\"paused\",\"mode\":\"short\",\"label\":\"Mail\",\"following\":false}"),
      ])
    XCTAssertEqual(statuses.count, 3, "two members: one line")
    XCTAssertEqual(statuses.last?.broker, true)
    XCTAssertEqual(statuses.last?.others.map(\.desk), ["amy", "zed"])
    XCTAssertEqual(statuses.last?.others.first?.label?.text, "Mail")
    // Nothing changes: a heartbeat every 20 s, no more.
    for _ in 0..<600 {
      clock.advance(ms(100))
      if let d = b.deadline, d <= clock.now { b.handle(Wake()) }
    }
    XCTAssertEqual(statuses.count, 3 + 3)
    // The broker lost: said within the 250 ms between two lines.
    client.drop(.lost)
    b.handle(Wake())
    clock.advance(ms(250))
    b.handle(Wake())
    XCTAssertEqual(statuses.count, 3 + 4)
    XCTAssertEqual(statuses.last?.broker, false)
  }

  // MARK: Publishing

  func testTheDevicesNewRevisionsArePublishedWithExpiryAndOnlyWhenItsOwnAndNewer() {
    let b = joined()
    let own = session(rev: 5, by: "desk-a", elapsed: 1000)
    b.state(fields(room: "team", held: own))
    let published = client.published.filter { $0.topic == "pomodoro/room/team/sessions/desk-a" }
    XCTAssertEqual(published.count, 1)
    XCTAssertEqual(published.last?.retain, true)
    var expected = own
    expected.expiry = 1800 - 1 + 120
    expected.sentMs = wall
    expected.synced = true
    XCTAssertEqual(published.last?.payload, expected.json)
    XCTAssertEqual(client.expiries["pomodoro/room/team/sessions/desk-a"], .some(1919))

    func count() -> Int { client.published.filter { $0.topic == "pomodoro/room/team/sessions/desk-a" }.count }
    b.state(fields(room: "team", held: own))
    XCTAssertEqual(count(), 1, "the same revision again: nothing")
    b.state(fields(room: "team", held: session(rev: 4, by: "desk-a")))
    XCTAssertEqual(count(), 1, "an older one: nothing")
    b.state(fields(room: "team", held: session(rev: 9, by: "desk-b")))
    XCTAssertEqual(count(), 1, "another desk's: never")
    b.state(fields(room: "team", held: session(rev: 6, by: "desk-a", state: "paused", elapsed: 2000)))
    XCTAssertEqual(count(), 2, "a pause on this desk")
    XCTAssertEqual(client.expiries["pomodoro/room/team/sessions/desk-a"], .some(86400))
  }

  func testTheOriginRepublishesOnReconnectionMovedOn() {
    let b = joined()
    b.state(fields(room: "team", held: session(rev: 5, by: "desk-a")))
    func published() -> [RoomSessionMessage] {
      client.published.filter { $0.topic == "pomodoro/room/team/sessions/desk-a" }.compactMap {
        try? RoomSessionMessage.parse($0.payload, by: "desk-a").get()
      }
    }
    XCTAssertEqual(published().count, 1)

    clock.advance(seconds(100))
    wall += 100_000
    client.drop(.lost)
    b.handle(Wake())
    clock.advance(seconds(1))
    wall += 1000
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    XCTAssertEqual(published().count, 1, "not before the retained session had its second")
    settle(b)
    XCTAssertEqual(published().count, 2, "republished on reconnection")
    XCTAssertEqual(published().last?.session.elapsed, seconds(102), "as it stands now")
    XCTAssertEqual(published().last?.sentMs, wall)
    XCTAssertEqual(published().last?.expiry, 1800 - 102 + 120)

    // From a desk that wins (desk-z > desk-a): this desk is not the origin of the best any more.
    clock.advance(seconds(2))
    deliver(b, [sessionMessage(session(rev: 5, by: "desk-z"))])
    client.drop(.lost)
    b.handle(Wake())
    clock.advance(seconds(1))
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    settle(b)
    XCTAssertEqual(published().count, 2, "not the origin of the best: no republishing")
  }

  /// A forged session as new as can be (2^31 - 1 past this desk's): the desk's next press goes
  /// out all the same, though it lies more than half the space from this desk's earlier revision
  /// (serial order is not transitive: nothing is compared with that one).
  func testThePressAfterTheNewestForgeryIsPublished() {
    let b = joined()
    b.state(fields(room: "team", held: session(rev: 5, by: "desk-a")))
    let forged = session(rev: 5 + (1 << 31) - 1, by: "zzzz", state: "ended", elapsed: 1_500_000)
    deliver(b, [sessionMessage(forged)])
    XCTAssertEqual(sessions.last?.message.session.revision, forged.session.revision, "told the device")
    b.state(fields(room: "team", held: session(rev: forged.session.revision + 1, by: "desk-a")))
    let published = client.published.filter { $0.topic == "pomodoro/room/team/sessions/desk-a" }
    XCTAssertEqual(published.count, 2)
    XCTAssertEqual(
      try? RoomSessionMessage.parse(published.last!.payload, by: "desk-a").get().session.revision,
      forged.session.revision + 1)
  }

  /// After the newest forgery, the desks' older sessions still retained on their topics (sent
  /// again at a new subscription) lie half the space from the room's: by time, they lose.
  func testAnOldRetainedSessionNeverWinsOverTheRoomsAfterAJump() {
    let b = joined()
    let old = session(rev: 6, by: "desk-z", state: "paused")
    deliver(b, [sessionMessage(old, left: Int(old.expiry))])
    clock.advance(seconds(60))
    let forged = session(rev: 6 + (1 << 31) - 1, by: "zzzz", state: "ended", elapsed: 1_500_000)
    deliver(b, [sessionMessage(forged)])
    let next = session(rev: forged.session.revision + 1, by: "desk-b")
    clock.advance(seconds(5))
    deliver(b, [sessionMessage(next)])
    XCTAssertEqual(b.precedence.live(at: clock.now)?.rev, next.session.revision)
    // desk-z's paused session again, its age from the broker: 65 s old, half the space away.
    deliver(b, [sessionMessage(old, left: Int(old.expiry) - 65, retained: true)])
    XCTAssertEqual(b.precedence.live(at: clock.now)?.rev, next.session.revision, "the room's stays the best")
    // The device is passed it too, with its age: its engine judges it by the same rule.
    clock.advance(ms(50))
    b.handle(Wake())
    let told = try! XCTUnwrap(sessions.last)
    XCTAssertEqual(told.message.session.revision, 6)
    XCTAssertEqual(told.ageMs, 65_050)
  }

  /// A broker drops what a flooded client cannot take in time, a real session among the rest:
  /// after refused messages the bridge asks for the retained sessions again, once a second while
  /// they come, and the session the broker dropped reaches the device from its retained copy.
  func testAfterAFloodTheRetainedSessionsAreAskedForAgain() {
    let b = joined()
    let before = client.subscribed.count
    deliver(b, (0..<50).map { _ in MQTTMessage(topic: "pomodoro/room/team/sessions/zzzz", payload: Array("{".utf8)) })
    XCTAssertEqual(client.subscribed.count, before, "not at once")
    clock.advance(RoomBridge.askAgain)
    b.handle(Wake())
    XCTAssertEqual(Array(client.subscribed.dropFirst(before)), ["pomodoro/room/team/sessions/+"])
    clock.advance(seconds(5))
    b.handle(Wake())
    XCTAssertEqual(client.subscribed.count, before + 1, "quiet: asked once")
    // The retained copy of the session the flood hid comes with the new subscription.
    let m = session(rev: 9, by: "desk-b")
    deliver(b, [sessionMessage(m, retained: true)])
    XCTAssertEqual(sessions.last?.message.session.revision, 9)
  }

  /// A bridge started beside a desk that holds an old session of its own waits for the retained
  /// one: the room's newer session is not overwritten.
  func testABridgeBackBesideAnOldOwnSessionLeavesTheRoomsNewerOne() {
    let b = bridge()
    b.state(fields(room: "team", held: session(rev: 5, by: "desk-a")))
    b.handle(Wake())
    client.accept()
    b.handle(Wake())
    b.state(fields(room: "team", held: session(rev: 5, by: "desk-a")))
    deliver(b, [sessionMessage(session(rev: 6, by: "desk-b"), retained: true)])
    settle(b)
    b.state(fields(room: "team", held: session(rev: 5, by: "desk-a")))
    XCTAssertEqual(client.published.filter { $0.topic.contains("/sessions/") }.count, 0)
    XCTAssertEqual(sessions.last?.message.session.revision, 6, "the desk is told of the room's")

    // Without a newer one, its own goes out once the second is over.
    made.removeAll()
    told.removeAll()
    let c = bridge()
    c.state(fields(room: "team", held: session(rev: 5, by: "desk-a")))
    c.handle(Wake())
    client.accept()
    c.handle(Wake())
    XCTAssertEqual(client.published.filter { $0.topic.contains("/sessions/") }.count, 0)
    settle(c)
    XCTAssertEqual(client.published.filter { $0.topic.contains("/sessions/") }.count, 1)
  }

  func testADeviceBehindTheBestHeardIsToldAgain() {
    let b = joined()
    let m = session(rev: 3, by: "desk-b")
    deliver(b, [sessionMessage(m, left: Int(m.expiry) - 2)])
    XCTAssertEqual(sessions.count, 1)
    clock.advance(seconds(10))
    b.state(fields(room: "team"))
    XCTAssertEqual(sessions.count, 2, "the device holds none: told again")
    clock.advance(ms(50))
    b.handle(Wake())
    XCTAssertEqual(sessions.last?.ageMs, 12_000)
    clock.advance(seconds(10))
    b.state(fields(room: "team", held: m))
    b.handle(Wake())
    XCTAssertEqual(sessions.count, 2, "it holds it: not again")
  }
}
