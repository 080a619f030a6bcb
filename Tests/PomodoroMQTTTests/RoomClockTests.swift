import PomodoroCore
import XCTest

@testable import PomodoroMQTT

/// The room's clock rule at its edges: the expiry-age A is whole seconds (true age in (A-1, A+1)),
/// the wall-age W is taken only inside [A-1 s, A+1 s] from a synced sender on a trusted clock,
/// and a synced sender 2 s off makes the own clock untrusted for 10 minutes.
final class RoomClockTests: XCTestCase {
  let t0 = Instant(nanoseconds: 1_000_000_000)
  let wall: Int64 = 1_796_000_000_000

  /// A message published with expiry 1620 s, delivered with 1610 left (A = 10 s), sent `w` ms
  /// ago by the sender's clock.
  func age(_ clock: inout RoomClock, w: Int64, synced: Bool = true, left: Int? = 1610, retained: Bool = false)
    -> RoomClock.Age
  {
    clock.age(
      expiry: 1620, expiryLeft: left, sentMs: wall - w, synced: synced, retained: retained, wallMs: wall, at: t0)
  }

  func testTheWallAgeIsTakenOnlyWithinOneSecondOfTheExpiryAge() {
    for (w, expected) in [
      (Int64(9000), RoomClock.Age(ms: 9000, source: .wall)), (11000, .init(ms: 11000, source: .wall)),
      (10_400, .init(ms: 10_400, source: .wall)), (8999, .init(ms: 10000, source: .expiry)),
      (11001, .init(ms: 10000, source: .expiry)),
    ] {
      var clock = RoomClock(flag: true)
      XCTAssertEqual(age(&clock, w: w), expected, "W = \(w) ms, A = 10 s")
    }
  }

  func testASyncedSenderMoreThanTwoSecondsOffMakesTheOwnClockUntrustedForTenMinutes() {
    var clock = RoomClock(flag: true)
    _ = age(&clock, w: 12000)
    XCTAssertTrue(clock.trusted(at: t0), "2 s off is within the rule")
    _ = age(&clock, w: 8000)
    XCTAssertTrue(clock.trusted(at: t0))
    _ = age(&clock, w: 12001)
    XCTAssertFalse(clock.trusted(at: t0), "2.001 s off")
    XCTAssertFalse(clock.trusted(at: t0 + seconds(600) - 1))
    XCTAssertTrue(clock.trusted(at: t0 + seconds(600)))
  }

  /// A sender whose clock is 90 s behind (its sent_ms says the message is 95 s old, the broker
  /// 5 s): the broker's count wins, and the own clock is doubted (one of the two is wrong).
  func testASender90SecondsOffIsCountedByTheBroker() {
    var clock = RoomClock(flag: true)
    let a = clock.age(
      expiry: 1620, expiryLeft: 1615, sentMs: wall - 95_000, synced: true, retained: true, wallMs: wall, at: t0)
    XCTAssertEqual(a, .init(ms: 5000, source: .expiry))
    XCTAssertFalse(clock.trusted(at: t0))
    // Even a right sender is then counted by the broker until the 10 minutes are over.
    XCTAssertEqual(age(&clock, w: 10_300), .init(ms: 10000, source: .expiry))
  }

  func testAnUntrustedOwnClockOrAnUnsyncedSenderCountsByTheBrokerAndDoubtsNothing() {
    var untrusted = RoomClock(flag: false)
    XCTAssertFalse(untrusted.trusted(at: t0))
    XCTAssertEqual(age(&untrusted, w: 10_300), .init(ms: 10000, source: .expiry))
    var clock = RoomClock(flag: true)
    XCTAssertEqual(age(&clock, w: 10_300, synced: false), .init(ms: 10000, source: .expiry))
    XCTAssertEqual(age(&clock, w: 100_000, synced: false), .init(ms: 10000, source: .expiry))
    XCTAssertTrue(clock.trusted(at: t0), "an unsynced sender's clock says nothing of the own")
  }

  /// A broker that forwards no expiry: the wall-age when both clocks are trusted, else 0 (a live
  /// message is fresh; a retained one's age is unknown).
  func testNoExpiryForwarded() {
    var clock = RoomClock(flag: true)
    XCTAssertEqual(age(&clock, w: 4321, left: nil), .init(ms: 4321, source: .wall))
    XCTAssertEqual(age(&clock, w: 4321, synced: false, left: nil), .init(ms: 0, source: .live))
    var untrusted = RoomClock(flag: false)
    XCTAssertEqual(age(&untrusted, w: 4321, left: nil), .init(ms: 0, source: .live))
    XCTAssertEqual(age(&untrusted, w: 4321, left: nil, retained: true), .init(ms: 0, source: .unknown))
    // A sender ahead of the own clock: never a negative age.
    XCTAssertEqual(age(&clock, w: -5000, left: nil), .init(ms: 0, source: .wall))
  }

  func testHostileNumbersNeverTrapAndStayInBounds() {
    var clock = RoomClock(flag: true)
    for (expiry, left, sent) in [
      (Int64.max, Int.max, Int64.min), (Int64.min, 0, Int64.max), (0, Int(Int32.max), 0), (10, 100, wall),
      (86400, -5, wall + 1), (1 << 53, 0, 1 << 53),
    ] {
      let a = clock.age(
        expiry: expiry, expiryLeft: left, sentMs: sent, synced: true, retained: true, wallMs: wall, at: t0)
      XCTAssertGreaterThanOrEqual(a.ms, 0)
      XCTAssertLessThanOrEqual(a.ms, max(0, min(expiry, 1 << 32)) * 1000)
    }
    // More left than published (a forged expiry field): age 0, not negative.
    XCTAssertEqual(
      clock.age(expiry: 10, expiryLeft: 100, sentMs: wall, synced: false, retained: true, wallMs: wall, at: t0),
      .init(ms: 0, source: .expiry))
  }

  func testTheFlagPathIsSystemdsUnlessTheTestHookMovesIt() {
    XCTAssertEqual(RoomClock.flagPath(environment: [:]), "/run/systemd/timesync/synchronized")
    XCTAssertEqual(RoomClock.flagPath(environment: ["POMODORO_TIMESYNC_FLAG": ""]), RoomClock.defaultFlag)
    XCTAssertEqual(RoomClock.flagPath(environment: ["POMODORO_TIMESYNC_FLAG": "/tmp/flag"]), "/tmp/flag")
  }
}
