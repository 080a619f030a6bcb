import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// A desk in a room through its control socket, as the bridge speaks to it (docs/room.md):
/// `room_status` says its id and the members, `room_session` a session heard with its age.
final class RoomDeviceTests: XCTestCase {
  func roomDesk(_ room: String? = "team", storing: Bool = false) throws -> (ControlFixture, Int32) {
    var config = DeviceConfig()
    config.room = room
    let f = try ControlFixture(config: config, storing: storing)
    return (f, try f.connect())
  }

  let status =
    #"{"cmd":"room_status","desk":"desk-a","broker":true,"clock_trusted":true,"desks":["desk-b","desk-c"],"phases":["running","idle"],"modes":["focus","focus"],"labels":["Write",""],"following":[true,false]}"#

  func testWithoutABridgeTheDeskSaysSoAndMakesNoRevision() throws {
    let (f, fd) = try roomDesk()
    let r = f.reply(fd, #"{"cmd":"start"}"#)
    XCTAssertEqual(r.fields["room"], .string("team"))
    XCTAssertEqual(r.fields["room_bridge"], .bool(false))
    XCTAssertNil(r.fields["room_rev"], "alone: no revision to publish")
    XCTAssertTrue(ControlProtocol.text(r.fields).contains("room team: no bridge"), ControlProtocol.text(r.fields))
  }

  func testTheBridgesStatusCountsTheRoomAndAStartBecomesARevision() throws {
    let (f, fd) = try roomDesk()
    XCTAssertTrue(f.reply(fd, status).ok)
    let r = f.reply(fd, #"{"cmd":"start"}"#)
    XCTAssertEqual(r.fields["room_members"], .int(3))
    XCTAssertEqual(r.fields["room_focusing"], .int(2))
    XCTAssertEqual(r.fields["room_bridge"], .bool(true))
    XCTAssertEqual(r.fields["room_rev"], .int(1))
    XCTAssertEqual(r.fields["room_by"], .string("desk-a"))
    XCTAssertEqual(r.fields["room_modes"], .list([.string("focus"), .string("short")]))
    XCTAssertEqual(r.fields["room_following"], .bool(true))
    XCTAssertEqual(r.fields["room_desks"], .list([.string("desk-a"), .string("desk-b"), .string("desk-c")]))
    // What the page lists: each desk in words, whether in focus, and the room in a line.
    XCTAssertEqual(r.fields["room_desk_texts"], .list([.string("Focus"), .string("Focus"), .string("idle")]))
    XCTAssertEqual(r.fields["room_desk_focusing"], .list([.bool(true), .bool(true), .bool(false)]))
    XCTAssertEqual(r.fields["room_text"], .string("team: 2 in focus of 3"))
    let text = ControlProtocol.text(r.fields)
    XCTAssertTrue(text.contains("room team: 2 in focus of 3"), text)
    // ctl --json: `room` as an object.
    let line = f.request(fd, #"{"cmd":"status"}"#)!
    let shown = ControlProtocol.replyForPeople(line, r.fields)
    XCTAssertTrue(shown.contains(#""room":{"name":"team","members":3,"focusing":2}}}"#), shown)
  }

  func testASessionHeardRunsOnTheDeskFromItsAge() throws {
    let (f, fd) = try roomDesk()
    XCTAssertTrue(f.reply(fd, status).ok)
    let heard =
      #"{"cmd":"room_session","by":"desk-b","v":2,"rev":4,"modes":["focus","short"],"lengths_ms":[1500000,300000],"plan_rev":4,"phase":0,"state":"running","elapsed_ms":60000,"expiry":1860,"sent_ms":1796040000000,"synced":true,"age_ms":30000}"#
    let r = f.reply(fd, heard)
    XCTAssertTrue(r.ok, r.error ?? "")
    XCTAssertEqual(f.h.device.state.phase, .running)
    XCTAssertEqual(f.h.device.state.remaining(at: f.h.device.clock.now), minutes(23) + seconds(30))
    XCTAssertEqual(r.fields["room_following"], .bool(true))
    // desk-b's own lengths, 25 and 5 minutes, are this desk's: its own pace.
    XCTAssertEqual(r.fields["room_own_pace"], .bool(true))
    XCTAssertEqual(r.fields["room_text"], .string("team: 2 in focus of 3"))
    // An older revision changes nothing; a malformed one is refused by name.
    let older = heard.replacingOccurrences(of: #""rev":4"#, with: #""rev":3"#).replacingOccurrences(
      of: #""plan_rev":4"#, with: #""plan_rev":3"#)
    XCTAssertTrue(f.reply(fd, older.replacingOccurrences(of: #""state":"running""#, with: #""state":"paused""#)).ok)
    XCTAssertEqual(f.h.device.state.phase, .running)
    let bad = f.reply(fd, heard.replacingOccurrences(of: #""elapsed_ms":60000"#, with: #""elapsed_ms":9999999999"#))
    XCTAssertFalse(bad.ok)
    XCTAssertTrue(bad.error?.contains("room_session: elapsed_ms") == true, bad.error ?? "")
  }

  /// A session started at another desk's pace (its profile's 50 minutes, issue 48): followed at
  /// that pace, and the state says whose it is.
  func testASessionAtAnotherDesksPaceIsSaidToBeTheRooms() throws {
    let (f, fd) = try roomDesk()
    XCTAssertTrue(f.reply(fd, status).ok)
    let r = f.reply(
      fd,
      #"{"cmd":"room_session","by":"desk-b","v":2,"rev":4,"modes":["focus","short"],"lengths_ms":[3000000,600000],"plan_rev":4,"phase":0,"state":"running","elapsed_ms":0,"expiry":3720,"sent_ms":1796040000000,"synced":true,"age_ms":0}"#
    )
    XCTAssertTrue(r.ok, r.error ?? "")
    XCTAssertEqual(f.h.device.state.remaining(at: f.h.device.clock.now), minutes(50))
    XCTAssertEqual(r.fields["room_own_pace"], .bool(false))
    XCTAssertEqual(r.fields["room_text"], .string("team: 2 in focus of 3, at desk-b's pace"))
    XCTAssertTrue(ControlProtocol.text(r.fields).contains("at desk-b's pace"), ControlProtocol.text(r.fields))
  }

  /// A held session ends with its message's expiry: a forged one that nobody renews stops
  /// counting, and the desk's timer is its own from then.
  func testAHeldSessionEndsWithItsExpiry() throws {
    let (f, fd) = try roomDesk()
    XCTAssertTrue(f.reply(fd, status).ok)
    let paused =
      #"{"cmd":"room_session","by":"zzzz","v":2,"rev":4294967295,"modes":["focus"],"lengths_ms":[1500000],"plan_rev":4294967295,"phase":0,"state":"paused","elapsed_ms":1000,"expiry":60,"sent_ms":1796040000000,"synced":false,"age_ms":0}"#
    XCTAssertTrue(f.reply(fd, paused).ok)
    XCTAssertEqual(f.h.device.state.phase, .paused)
    XCTAssertEqual(f.reply(fd, status).fields["room_rev"], .int(4_294_967_295))
    f.h.run(for: seconds(61))
    let after = f.reply(fd, status)
    XCTAssertNil(after.fields["room_rev"], "expired: no session held")
    XCTAssertEqual(after.fields["room_following"], .bool(false), "the timer is the desk's own")
    // The revision after the last serial wraps to 0 and is newer: this desk's start wins.
    XCTAssertTrue(f.reply(fd, #"{"cmd":"cancel"}"#).ok)
    XCTAssertTrue(f.reply(fd, paused.replacingOccurrences(of: #""expiry":60"#, with: #""expiry":600"#)).ok)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"resume"}"#).ok)
    let resumed = f.reply(fd, status)
    XCTAssertEqual(resumed.fields["room_rev"], .int(0))
    XCTAssertEqual(resumed.fields["room_by"], .string("desk-a"))
  }

  /// The bridge says when (its monotonic instant, the machine's clock) the age held: the time
  /// the line waited for the desk's loop counts. An instant in the future, or over a minute back,
  /// is not this clock's and is not believed.
  func testTheBridgesInstantTakesTheLinesWaitIntoAccount() throws {
    let (f, fd) = try roomDesk()
    f.h.run(for: minutes(2))
    XCTAssertTrue(f.reply(fd, status).ok)
    let now = f.h.device.clock.now.nanoseconds / 1_000_000
    func heard(rev: Int, atMs: Int64) -> String {
      #"{"cmd":"room_session","by":"desk-b","v":2,"rev":\#(rev),"modes":["focus"],"lengths_ms":[1500000],"plan_rev":\#(rev),"phase":0,"state":"running","elapsed_ms":0,"expiry":1560,"sent_ms":1796040000000,"synced":false,"age_ms":1000,"at_ms":\#(atMs)}"#
    }
    XCTAssertTrue(f.reply(fd, heard(rev: 5, atMs: now - 3000)).ok)
    XCTAssertEqual(f.h.device.state.remaining(at: f.h.device.clock.now), minutes(25) - seconds(4), "1 s old 3 s ago")
    XCTAssertTrue(f.reply(fd, heard(rev: 6, atMs: now + 5000)).ok)
    XCTAssertEqual(f.h.device.state.remaining(at: f.h.device.clock.now), minutes(25) - seconds(1), "a future instant")
    XCTAssertTrue(f.reply(fd, heard(rev: 7, atMs: now - 61_000)).ok)
    XCTAssertEqual(f.h.device.state.remaining(at: f.h.device.clock.now), minutes(25) - seconds(1), "over a minute back")
    let bad = f.reply(fd, heard(rev: 8, atMs: -1))
    XCTAssertTrue(bad.error?.contains("\"at_ms\" must be") == true, bad.error ?? "")
  }

  func testADeskInNoRoomIgnoresTheBridge() throws {
    let (f, fd) = try roomDesk(nil)
    XCTAssertTrue(f.reply(fd, status).ok)
    let r = f.reply(fd, #"{"cmd":"start"}"#)
    XCTAssertNil(r.fields["room"])
    XCTAssertNil(f.h.device.state.room)
  }

  func testTheRoomsSessionIsRecordedWithTheRoomAndTheDesksOwnWithout() throws {
    let (f, fd) = try roomDesk(storing: true)
    XCTAssertTrue(f.reply(fd, status).ok)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
    f.h.run(for: minutes(1))
    XCTAssertTrue(f.reply(fd, #"{"cmd":"cancel"}"#).ok)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"set","mode":"soft"}"#).ok)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
    XCTAssertTrue(f.reply(fd, #"{"cmd":"cancel"}"#).ok)
    f.h.run(for: seconds(1))
    let items = f.exchange(fd, #"{"cmd":"history","days":1}"#).dropLast()
    let records = items.compactMap { ControlProtocol.decodeItem($0).flatMap { HistoryEntry(fields: $0.fields) } }
    XCTAssertEqual(records.map(\.mode), [.focus, .soft])
    XCTAssertEqual(records.map(\.room), ["team", nil])
    XCTAssertEqual(records.first?.allFields.suffix(2).map(\.0), ["room", "profile"])
    XCTAssertEqual(HistoryEntry(jsonLine: records[0].jsonLine), records[0], "read back as written")
  }

  /// A timer that followed the room comes back after a restart paused, as any, and in the room:
  /// once the bridge says the session again it runs at the room's second, and a pause from
  /// another desk then pauses it. With the room gone from the config it is the desk's own.
  func testAFollowingTimerFollowsTheRoomAgainAfterARestart() throws {
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var config = DeviceConfig()
    config.room = "team"
    let plan = [RoomSession.Phase(mode: .focus, length: minutes(25)), .init(mode: .shortBreak, length: minutes(5))]
    let session = RoomSession(revision: 4, origin: "desk-b", plan: plan, phase: 0, state: .running, elapsed: 0)
    let view = RoomView(desk: "desk-a", broker: true, clockTrusted: true, others: [])
    do {
      let h = try DeviceHarness(directory: directory, config: config)
      h.device.start()
      h.device.roomSaid(view)
      h.device.hearRoom(session, age: 0)
      XCTAssertEqual(h.device.state.room?.following, true)
      h.run(for: minutes(2))
      h.device.shutdown()
    }
    // Restarted a minute later (the session is 3 minutes old when the bridge says it again).
    let h = try DeviceHarness(directory: directory, config: config)
    h.device.start()
    XCTAssertEqual(h.device.state.phase, .paused, "restored paused, as any timer")
    XCTAssertEqual(h.device.state.room?.following, true, "still the room's")
    h.device.roomSaid(view)
    h.device.hearRoom(session, age: minutes(3))
    XCTAssertEqual(h.device.state.phase, .running)
    XCTAssertEqual(h.device.state.remaining(at: h.clock.now), minutes(22), "at the room's second")
    var paused = session
    paused.revision = 5
    paused.origin = "desk-c"
    paused.state = .paused
    paused.elapsed = minutes(4)
    h.device.hearRoom(paused, age: 0)
    XCTAssertEqual(h.device.state.phase, .paused, "the room's pause")
    XCTAssertEqual(h.device.state.remaining(at: h.clock.now), minutes(21))
    h.device.shutdown()

    // The config names no room now: the timer is the desk's own and stays paused.
    config.room = nil
    let alone = try DeviceHarness(directory: directory, config: config)
    alone.device.start()
    XCTAssertEqual(alone.device.state.phase, .paused)
    XCTAssertNil(alone.device.state.room)
  }
}
