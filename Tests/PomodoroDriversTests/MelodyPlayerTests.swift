import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

final class MelodyPlayerTests: XCTestCase {
  private let t0 = Instant(nanoseconds: 10_000_000_000)
  private let tune = try! RTTTL.parse("t:d=4,o=6,b=120:c,c,p,8e").get()

  func testNotesAreHeldLessTheirArticulationAndRestsAreSilent() {
    var player = MelodyPlayer()
    player.start(tune, gap: nil, at: t0)
    // 500 ms notes: sound 470 ms, silent 30 ms; the rest 500 ms; the eighth 250 ms less 30.
    XCTAssertEqual(player.pitch(at: t0), 84)
    XCTAssertEqual(player.pitch(at: t0 + ms(469)), 84)
    XCTAssertNil(player.pitch(at: t0 + ms(470)))
    XCTAssertEqual(player.pitch(at: t0 + ms(500)), 84)
    XCTAssertNil(player.pitch(at: t0 + ms(1200)))
    XCTAssertEqual(player.pitch(at: t0 + ms(1500)), 88)
    XCTAssertNil(player.pitch(at: t0 + ms(1720)))
    XCTAssertNil(player.pitch(at: t0 + seconds(60)))
  }

  func testEachChangeIsADeadline() {
    var player = MelodyPlayer()
    player.start(tune, gap: nil, at: t0)
    var changes: [Int64] = []
    var t = t0
    while let next = player.nextChange(after: t) {
      changes.append(wholeMilliseconds(next - t0))
      t = next
    }
    XCTAssertEqual(changes, [470, 500, 970, 1500, 1720])
  }

  func testARepeatingTuneStartsAgainAfterTheGap() {
    var player = MelodyPlayer()
    player.start(tune, gap: ms(800), at: t0)
    // One pass: 1750 ms of tune and 800 ms of gap.
    XCTAssertNil(player.pitch(at: t0 + ms(2549)))
    XCTAssertEqual(player.pitch(at: t0 + ms(2550)), 84)
    XCTAssertEqual(player.nextChange(after: t0 + ms(1720)), t0 + ms(2550))
    XCTAssertEqual(player.pitch(at: t0 + ms(2550) * 40 + ms(1500)), 88)
  }

  /// esphome/issues#6249: a stop that did not stop. After `silence` nothing sounds, no deadline is
  /// left, and the output was told at once.
  func testStopStopsAtOnce() throws {
    let clock = VirtualClock(start: t0)
    let pwm = RecordingPWM(now: { clock.now })
    var player = MelodyPlayer()
    player.start(tune, gap: ms(800), at: t0)
    try player.drive(pwm, duty: 0.25, at: t0)
    XCTAssertTrue(pwm.sounding)
    clock.advance(by: ms(100))
    try player.silence(pwm)
    XCTAssertFalse(pwm.sounding)
    XCTAssertNil(player.pitch(at: clock.now + ms(500)))
    XCTAssertNil(player.nextChange(after: clock.now))
    try player.drive(pwm, duty: 0.25, at: clock.now + ms(500))
    XCTAssertFalse(pwm.sounding)
    XCTAssertEqual(pwm.entries.last, .init(at: t0 + ms(100), write: .enable(false)))
  }

  func testDriveWritesOnlyChanges() throws {
    let clock = VirtualClock(start: t0)
    let pwm = RecordingPWM(now: { clock.now })
    var player = MelodyPlayer()
    player.start(tune, gap: nil, at: t0)
    for step in 0..<200 { try player.drive(pwm, duty: 0.5, at: t0 + ms(Int64(step) * 10)) }
    // c on, off, c on (same period and duty: only enable), off, e on (a higher pitch: a shorter
    // period, the duty lowered first), off.
    XCTAssertEqual(
      pwm.entries.map(\.write),
      [
        .period(955_564), .dutyCycle(477_782), .enable(true), .enable(false), .enable(true), .enable(false),
        .dutyCycle(379_216), .period(758_432), .enable(true), .enable(false),
      ])
  }
}

final class PWMPlanTests: XCTestCase {
  /// Whatever the settings, in whatever order, no write leaves the duty above the period.
  func testTheDutyNeverPassesThePeriod() {
    var rng = SplitMix64(seed: 7)
    var plan = PWMPlan()
    var period: Int64 = 0
    var duty: Int64 = 0
    for _ in 0..<10_000 {
      let writes: [PWMWrite]
      if rng.next() % 5 == 0 {
        writes = plan.silence()
      } else {
        let f = Double(rng.next() % 8_000) + 20
        let d = Double(rng.next() % 51) / 100
        writes = plan.set(frequencyHz: f, duty: d)
        XCTAssertEqual(writes.last == .enable(true), writes.contains(.enable(true)))
      }
      for write in writes {
        switch write {
        case .period(let p): period = p
        case .dutyCycle(let d): duty = d
        case .enable: break
        }
        XCTAssertLessThanOrEqual(duty, period, "\(writes)")
      }
      XCTAssertEqual(period, plan.period)
      XCTAssertEqual(duty, plan.duty)
    }
  }

  func testVolumeIsTheDuty() {
    XCTAssertEqual(Volume.duty(10), 0.5)
    XCTAssertEqual(Volume.duty(1), 0.01)
    XCTAssertEqual(Volume.duty(0), 0.01)
    XCTAssertEqual(Volume.duty(99), 0.5)
    XCTAssertEqual((1...10).map(Volume.duty), (1...10).map(Volume.duty).sorted())
  }
}
