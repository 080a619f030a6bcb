import PomodoroCore
import XCTest

/// Desks of a room on one virtual timeline with a broker that hands every revision a desk makes
/// to the others at once (its age 0), in order, as one broker does.
private struct Room {
  var desks: [String: Harness] = [:]
  var said: [String: RoomSession] = [:]
  var delivered: [(to: String, session: RoomSession)] = []

  init(_ names: [String], settings: EngineSettings = EngineSettings()) {
    for name in names {
      var h = Harness(settings: settings)
      h.send(.setRoom(RoomIdentity(name: "team", desk: name)))
      desks[name] = h
    }
  }

  var now: Instant { desks.values.first!.now }

  /// Sends `event` to `desk` and passes on any revision it made.
  mutating func send(_ event: Event, to desk: String) {
    desks[desk]!.send(event)
    publish(desk)
  }

  mutating func publish(_ desk: String) {
    guard let held = desks[desk]!.state.room?.held, held.session.origin == desk, said[desk] != held.session else {
      return
    }
    said[desk] = held.session
    let message = held.said(at: desks[desk]!.now)
    for other in desks.keys.sorted() where other != desk { deliver(message, to: other) }
  }

  mutating func deliver(_ session: RoomSession, to desk: String, age: Nanoseconds = 0) {
    delivered.append((desk, session))
    desks[desk]!.send(.roomSession(RoomHeld(session: session, anchor: desks[desk]!.now - age)))
    publish(desk)
  }

  mutating func advance(_ span: Nanoseconds) {
    let end = now + span
    for name in desks.keys.sorted() {
      desks[name]!.run(until: end)
      publish(name)
    }
  }

  func deadline(_ desk: String) -> Nanoseconds? { desks[desk]!.state.remaining(at: now) }
}

final class RoomTests: XCTestCase {
  func testAStartOnOneDeskRunsTheSameFocusOnEveryIdleDesk() {
    var room = Room(["a", "b", "c"])
    room.advance(seconds(3))
    room.send(.press(.start), to: "b")
    for desk in ["a", "b", "c"] {
      XCTAssertEqual(room.desks[desk]!.state.phase, .running, desk)
      XCTAssertEqual(room.desks[desk]!.state.mode, .focus, desk)
      XCTAssertEqual(room.deadline(desk), minutes(25), desk)
      XCTAssertEqual(room.desks[desk]!.state.room?.following, true, desk)
    }
    XCTAssertEqual(room.desks["a"]!.state.room?.held?.session.plan.map(\.mode), [.focus, .shortBreak])
  }

  func testPauseResumeAndSkipOnAnyDeskActForTheRoom() {
    var room = Room(["a", "b", "c"])
    room.send(.press(.start), to: "a")
    room.advance(minutes(5))
    room.send(.press(.start), to: "b")  // Pause, on another desk.
    for desk in ["a", "b", "c"] {
      XCTAssertEqual(room.desks[desk]!.state.phase, .paused, desk)
      XCTAssertEqual(room.deadline(desk), minutes(20), desk)
    }
    room.advance(minutes(1))
    room.send(.press(.start), to: "c")  // Resume, on a third.
    room.advance(minutes(2))
    for desk in ["a", "b", "c"] {
      XCTAssertEqual(room.desks[desk]!.state.phase, .running, desk)
      XCTAssertEqual(room.deadline(desk), minutes(18), desk)
    }
    room.send(.skip, to: "c")
    for desk in ["a", "b", "c"] {
      XCTAssertEqual(room.desks[desk]!.state.mode, .shortBreak, desk)
      XCTAssertEqual(room.desks[desk]!.state.phase, .running, desk)
      XCTAssertEqual(room.deadline(desk), minutes(5), desk)
      XCTAssertEqual(room.desks[desk]!.state.room?.following, true, desk)
    }
    XCTAssertEqual(room.desks["a"]!.records.last?.outcome, .cancelled)
    XCTAssertEqual(room.desks["a"]!.records.last?.room, "team")
  }

  func testCancelTakesOnlyThatDeskOutAndItFollowsAgainFromTheNextPhase() {
    var room = Room(["a", "b", "c"])
    room.send(.press(.start), to: "a")
    room.advance(minutes(10))
    room.send(.press(.cancel), to: "b")
    XCTAssertEqual(room.desks["b"]!.state.phase, .idle)
    XCTAssertEqual(room.desks["b"]!.records.last?.outcome, .cancelled)
    XCTAssertEqual(room.desks["b"]!.records.last?.room, "team")
    XCTAssertEqual(room.desks["a"]!.state.phase, .running)
    XCTAssertEqual(room.desks["c"]!.state.phase, .running)
    room.advance(minutes(15))
    // The focus ended on a and c at the same instant; b follows the break from that instant.
    XCTAssertEqual(room.desks["a"]!.alarmsOn, room.desks["c"]!.alarmsOn)
    XCTAssertEqual(room.desks["a"]!.alarmsOn.count, 1)
    XCTAssertEqual(room.desks["b"]!.state.mode, .shortBreak)
    XCTAssertEqual(room.desks["b"]!.state.phase, .running)
    XCTAssertEqual(room.deadline("b"), minutes(5))
    // a acknowledges two minutes late: it joins the break with the room's time left.
    room.advance(minutes(2))
    room.send(.press(.start), to: "a")
    XCTAssertEqual(room.desks["a"]!.state.mode, .shortBreak)
    XCTAssertEqual(room.deadline("a"), minutes(3))
    XCTAssertEqual(room.desks["a"]!.records.last?.outcome, .completed)
    XCTAssertEqual(room.desks["a"]!.records.last?.room, "team")
  }

  func testTwoStartsInTheSameSecondEndWithOneSessionOnEveryDesk() {
    var room = Room(["a", "b", "c"])
    // a and b both start before either hears the other; the broker then delivers both.
    room.desks["a"]!.send(.press(.start))
    room.desks["b"]!.advance(ms(300))
    room.desks["b"]!.send(.press(.start))
    let fromA = room.desks["a"]!.state.room!.held!.session
    let fromB = room.desks["b"]!.state.room!.held!.session
    XCTAssertEqual(fromA.revision, fromB.revision)
    room.desks["a"]!.advance(ms(300))
    room.desks["c"]!.advance(ms(300))
    room.deliver(fromA, to: "c")
    room.deliver(fromB, to: "c")
    room.deliver(fromB, to: "a")
    room.deliver(fromA, to: "b")
    for desk in ["a", "b", "c"] {
      XCTAssertEqual(room.desks[desk]!.state.room?.held?.session.origin, "b", desk)
      XCTAssertEqual(room.deadline(desk), minutes(25), desk)
    }
    XCTAssertTrue(room.desks["a"]!.records.isEmpty, "adopting the winner ends nothing")
  }

  func testAnOlderRevisionNeverUndoesANewerOne() {
    var room = Room(["a", "b"])
    room.send(.press(.start), to: "a")
    let started = room.desks["a"]!.state.room!.held!.session
    room.advance(minutes(1))
    room.send(.press(.start), to: "a")  // Paused: revision 2.
    room.deliver(started, to: "b")  // Replayed.
    XCTAssertEqual(room.desks["b"]!.state.phase, .paused)
    XCTAssertEqual(room.desks["b"]!.state.room?.held?.session.revision, 2)
  }

  func testALateJoinerComesInAtTheRightSecond() {
    var room = Room(["a"])
    room.send(.press(.start), to: "a")
    room.advance(minutes(7))
    var late = Harness(start: room.now)
    late.send(.setRoom(RoomIdentity(name: "team", desk: "z")))
    // The retained message, made at the start and 7 minutes old when it arrives.
    late.send(.roomSession(RoomHeld(session: room.said["a"]!, anchor: late.now - minutes(7))))
    XCTAssertEqual(late.state.remaining(at: late.now), minutes(18))
    XCTAssertEqual(late.state.phase, .running)
  }

  func testADeskBusyWithItsOwnTimerJoinsAtItsNextIdle() {
    var room = Room(["a", "b"])
    room.send(.select(.soft), to: "b")
    room.send(.press(.start), to: "b")
    XCTAssertNil(room.desks["b"]!.state.room?.held, "an egg is the desk's own")
    room.send(.press(.start), to: "a")
    XCTAssertEqual(room.desks["b"]!.state.mode, .soft)
    XCTAssertEqual(room.desks["b"]!.state.room?.following, false)
    room.advance(minutes(2))
    room.send(.press(.cancel), to: "b")
    XCTAssertEqual(room.desks["b"]!.state.mode, .focus)
    XCTAssertEqual(room.deadline("b"), minutes(23))
    XCTAssertEqual(room.desks["b"]!.records.last?.room, nil)
  }

  func testAStartOnADeskThatCancelledOutRejoinsTheRunningPhase() {
    var room = Room(["a", "b"])
    room.send(.press(.start), to: "a")
    room.advance(minutes(4))
    room.send(.press(.cancel), to: "b")
    room.advance(minutes(1))
    let revision = room.desks["a"]!.state.room!.held!.session.revision
    room.send(.press(.start), to: "b")
    XCTAssertEqual(room.deadline("b"), minutes(20))
    XCTAssertEqual(room.desks["a"]!.state.room!.held!.session.revision, revision, "a rejoin is no new revision")
  }

  func testTurningAFollowingTimerWhilePausedMakesItTheDesksOwn() {
    var room = Room(["a", "b"])
    room.send(.press(.start), to: "a")
    room.send(.press(.start), to: "b")  // Pause for the room.
    room.send(.turn(3), to: "b")
    XCTAssertEqual(room.desks["b"]!.state.room?.following, false)
    XCTAssertEqual(room.deadline("a"), minutes(25))
    room.send(.press(.start), to: "a")  // Resume: b's own timer stays paused.
    XCTAssertEqual(room.desks["b"]!.state.phase, .paused)
  }

  /// A room session keeps the lengths of the desk that started it (issue 48): its profile's. A
  /// desk that follows it at lengths not its own says so; the starting desk does not.
  func testARoomSessionFollowsTheStartingDesksProfile() {
    let deep = Profile(name: "deep", presets: [.focus: minutes(50), .shortBreak: minutes(10)])!
    var room = Room(["a", "b"], settings: EngineSettings(profiles: [deep]))
    room.send(.setProfile("deep"), to: "b")
    room.send(.press(.start), to: "b")
    XCTAssertEqual(room.deadline("a"), minutes(50), "a's own focus is 25 minutes; it follows b's")
    XCTAssertEqual(room.desks["a"]!.state.room?.held?.session.plan.map(\.length), [minutes(50), minutes(10)])
    XCTAssertTrue(room.desks["a"]!.state.followsRoomPace)
    XCTAssertFalse(room.desks["b"]!.state.followsRoomPace, "b's own pace")
    // A pause from a keeps the plan: still b's pace for a, and b's own for b.
    room.send(.press(.start), to: "a")
    XCTAssertEqual(room.desks["a"]!.state.room?.held?.session.origin, "a")
    XCTAssertTrue(room.desks["a"]!.state.followsRoomPace)
    XCTAssertFalse(room.desks["b"]!.state.followsRoomPace)
    // At the same pace (a chooses deep too) nothing is said.
    room.send(.setProfile("deep"), to: "a")
    XCTAssertFalse(room.desks["a"]!.state.followsRoomPace)
  }

  /// A length dialed on the desk that starts the room's plan is its own pace, not the room's.
  func testTheDeskThatDialedThePlanKeepsItsOwnPace() {
    var room = Room(["a", "b"])
    room.send(.turn(3), to: "a")
    room.send(.press(.start), to: "a")
    XCTAssertEqual(room.deadline("b"), room.deadline("a"))
    XCTAssertNotEqual(room.deadline("a"), minutes(25), "dialed")
    XCTAssertFalse(room.desks["a"]!.state.followsRoomPace, "a started it")
    XCTAssertTrue(room.desks["b"]!.state.followsRoomPace)
    room.send(.press(.start), to: "b")  // b pauses: a revision of b's, a's plan still.
    XCTAssertFalse(room.desks["a"]!.state.followsRoomPace)
  }

  func testLeavingTheRoomKeepsTheTimer() {
    var room = Room(["a"])
    room.send(.press(.start), to: "a")
    room.send(.setRoom(nil), to: "a")
    XCTAssertEqual(room.desks["a"]!.state.phase, .running)
    XCTAssertNil(room.desks["a"]!.state.room)
  }

  func testWhatAMemberDoesInWords() {
    func doing(_ phase: Phase, _ mode: Mode, following: Bool = true) -> String {
      RoomView.Member(desk: "d", phase: phase, mode: mode, label: nil, following: following).doing
    }
    XCTAssertEqual(doing(.idle, .focus), "idle")
    XCTAssertEqual(doing(.running, .focus), "Focus")
    XCTAssertEqual(doing(.paused, .shortBreak), "Short break, paused")
    XCTAssertEqual(doing(.ringing, .longBreak), "Long break done")
    XCTAssertEqual(doing(.running, .soft, following: false), "Soft, own timer")
    XCTAssertEqual(doing(.paused, .flow, following: false), "Flow, paused, own timer")
  }
}
