import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

final class BuzzerPlayerTests: XCTestCase {
  private let t0 = Instant(nanoseconds: 10_000_000_000)

  func testAlarmIsThreeBeepsAPauseAndRepeats() {
    var player = BuzzerPlayer()
    player.start(.alarm, at: t0)
    let on = stride(from: 0, to: 2400, by: 50).filter { player.level(at: t0 + ms(Int64($0))) }
    XCTAssertEqual(on, [0, 50, 200, 250, 400, 450, 1200, 1250, 1400, 1450, 1600, 1650])
    XCTAssertEqual(BuzzerPattern.alarm.period, ms(1200))
  }

  func testNextChangeWalksTheSegmentEdges() {
    var player = BuzzerPlayer()
    player.start(.alarm, at: t0)
    var changes: [Int64] = []
    var t = t0
    while let next = player.nextChange(after: t), next < t0 + ms(1300) {
      changes.append(wholeMilliseconds(next - t0))
      t = next
    }
    XCTAssertEqual(changes, [100, 200, 300, 400, 500, 1200])
  }

  func testClickPlaysOnceThenStaysSilent() {
    var player = BuzzerPlayer()
    player.start(.click, at: t0)
    XCTAssertTrue(player.level(at: t0))
    XCTAssertEqual(player.nextChange(after: t0), t0 + ms(15))
    XCTAssertFalse(player.level(at: t0 + ms(15)))
    XCTAssertNil(player.nextChange(after: t0 + ms(15)))
    XCTAssertFalse(player.level(at: t0 + seconds(100)))
  }

  func testStopSilencesAtOnce() {
    var player = BuzzerPlayer()
    player.start(.alarm, at: t0)
    player.stop()
    XCTAssertFalse(player.level(at: t0))
    XCTAssertNil(player.nextChange(after: t0))
  }

  func testNothingSoundsBeforeTheStart() {
    var player = BuzzerPlayer()
    player.start(.click, at: t0)
    XCTAssertFalse(player.level(at: t0 - 1))
    XCTAssertEqual(player.nextChange(after: t0 - ms(5)), t0)
  }

  func testDriveWritesTheLineOnlyOnChangesAndSilenceLeavesItOff() throws {
    let clock = VirtualClock(start: t0)
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let line = try chip.requestOutput(line: "GPIO25", activeHigh: false, consumer: "test")
    var player = BuzzerPlayer()
    player.start(.alarm, at: clock.now)
    while let next = player.nextChange(after: clock.now), next <= t0 + ms(1200) {
      try player.drive(line, at: clock.now)
      try player.drive(line, at: clock.now)  // no change, no write
      clock.advance(to: next)
    }
    try player.silence(line)
    line.release()
    let history = chip.outputHistory("GPIO25")
    XCTAssertEqual(history.map(\.active), [false, true, false, true, false, true, false, false, false])
    XCTAssertEqual(history.first.map { ($0.time, $0.high) }?.1, true)  // active-low: inactive is high
    XCTAssertEqual(history.last?.high, true)
    XCTAssertEqual(history[1].time, t0)
    XCTAssertEqual(history[2].time, t0 + ms(100))
    XCTAssertNil(chip.holder(of: "GPIO25"))
  }
}
