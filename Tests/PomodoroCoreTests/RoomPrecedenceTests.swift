import PomodoroCore
import PomodoroMock
import XCTest

/// No revision wins for good (docs/room.md, "Which session wins"): revisions are 32-bit serial
/// numbers (RFC 1982), so whatever a desk holds, a forged revision at any value included, its
/// next press supersedes it; and a held session ends with its message's expiry.
final class RoomPrecedenceTests: XCTestCase {
  func session(_ rev: Int64, by: String = "desk-b", state: RoomSession.State = .running) -> RoomSession {
    RoomSession(
      revision: rev, origin: by, plan: [.init(mode: .focus, length: minutes(25))], phase: 0, state: state, elapsed: 0)
  }

  func testTheNextRevisionFromAnyValueIsNewerThanIt() {
    let top = RoomSession.revisions - 1
    for rev: Int64 in [0, 1, 2, 1 << 31, (1 << 31) - 1, top - 1, top, 7, 1_000_000] {
      let next = RoomSession.next(after: rev)
      XCTAssertTrue((0...top).contains(next))
      // The next press, from a desk whose id sorts first: newer all the same.
      XCTAssertTrue(
        session(next, by: "a").supersedes(session(rev, by: "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")), "\(rev)")
      XCTAssertFalse(session(rev, by: "zzzz").supersedes(session(next, by: "a")), "\(rev)")
    }
    XCTAssertEqual(RoomSession.next(after: top), 0, "after the last serial comes 0")
    XCTAssertEqual(RoomSession.next(after: nil), 1)
  }

  /// The cap of the first wire (2^53) and Int64's extremes are taken modulo 2^32: none is a last
  /// word, and the order stays antisymmetric.
  func testExtremesAndTheOldCapWinNothingForGood() {
    for rev: Int64 in [1 << 53, Int64.max, Int64.min, -1, 1 << 32] {
      let held = session(rev, by: "zzzz")
      let next = RoomSession.next(after: rev & (RoomSession.revisions - 1))
      XCTAssertTrue(session(next, by: "a").supersedes(held), "\(rev)")
    }
    var r = SplitMix64(seed: 44)
    for _ in 0..<10_000 {
      let a = session(Int64(r.next() >> 32), by: r.next() % 2 == 0 ? "a" : "b")
      let b = session(Int64(r.next() >> 32), by: r.next() % 2 == 0 ? "a" : "b")
      if a == b { continue }
      XCTAssertNotEqual(a.supersedes(b), b.supersedes(a), "exactly one wins: \(a.revision)/\(b.revision)")
    }
    // Half the space apart (RFC 1982 leaves it undefined): the origin decides, as for a tie.
    XCTAssertTrue(session(1 << 31, by: "b").supersedes(session(0, by: "a")))
    XCTAssertFalse(session(0, by: "a").supersedes(session(1 << 31, by: "b")))
    XCTAssertTrue(session(0, by: "b").supersedes(session(1 << 31, by: "a")))
  }

  /// Revisions a quarter of the space apart or more (a forger's jump) are ordered by time, the
  /// later anchor winning; closer ones (a replay included, however fresh) by their revision.
  func testFarApartRevisionsGoByTimeAndCloseOnesByRevision() {
    let t = Instant(nanoseconds: seconds(1000))
    let old = RoomHeld(session: session(6, by: "desk-b", state: .paused), anchor: t)
    let forged = RoomHeld(session: session(6 + (1 << 31) - 1, by: "zzzz"), anchor: t + seconds(60))
    let next = RoomHeld(session: session(6 + (1 << 31), by: "desk-a"), anchor: t + seconds(65))
    XCTAssertTrue(forged.supersedes(old))
    XCTAssertTrue(next.supersedes(forged))
    XCTAssertTrue(next.supersedes(old), "half the space apart: the later wins, not the author's name")
    XCTAssertFalse(old.supersedes(next))
    // Within the same moment the revisions decide, as for two desks that started together.
    let sameMoment = RoomHeld(session: session(6, by: "desk-b"), anchor: t + seconds(64))
    XCTAssertEqual(
      next.supersedes(sameMoment), session(next.session.revision, by: "desk-a").supersedes(session(6, by: "desk-b")))
    // A replay: fresh, but one revision back.
    let replay = RoomHeld(session: session(6 + (1 << 31) - 1, by: "desk-a"), anchor: t + seconds(3600))
    XCTAssertFalse(replay.supersedes(next))
    XCTAssertTrue(next.supersedes(replay))
  }

  /// A held session that expired is forgotten, its revision is not: the desk's next start follows
  /// it (its bridge takes only revisions newer than the ones it published).
  func testAfterAHeldSessionExpiresTheNextRevisionFollowsTheLast() {
    var h = Harness()
    h.send(.setRoom(RoomIdentity(name: "team", desk: "desk-a")))
    h.send(.roomSession(RoomHeld(session: session(41, state: .ended), anchor: h.now, life: seconds(5))))
    XCTAssertEqual(h.state.room?.held?.session.revision, 41)
    h.run(until: h.now + seconds(6))
    h.send(.press(.start))
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.state.room?.held?.session.revision, 42)
    XCTAssertEqual(h.state.room?.held?.session.origin, "desk-a")
  }

  func testAHeldSessionExpiresWithItsLife() {
    let running = RoomHeld(session: session(3), anchor: Instant(nanoseconds: 0))
    XCTAssertEqual(running.expires, Instant(nanoseconds: 0) + minutes(25) + seconds(120))
    XCTAssertEqual(RoomHeld(session: session(3, state: .paused), anchor: .zero).expires, .zero + seconds(86_400))
    XCTAssertEqual(RoomHeld(session: session(3, state: .ended), anchor: .zero).expires, .zero + minutes(10))
    let forged = RoomHeld(session: session(3), anchor: .zero, life: seconds(5))
    XCTAssertFalse(forged.expired(at: .zero + seconds(4)))
    XCTAssertTrue(forged.expired(at: .zero + seconds(5)))
    XCTAssertEqual(RoomHeld(session: session(3), anchor: .zero, life: Int64.max).expires, .zero + seconds(86_400))
  }
}
