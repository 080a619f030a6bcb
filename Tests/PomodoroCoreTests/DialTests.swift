import PomodoroCore
import XCTest

final class DialTests: XCTestCase {
  func testSlowDetentsMoveOneMinute() {
    var h = Harness()
    h.send(.turn(1))
    h.advance(ms(150))
    h.send(.turn(1))
    XCTAssertEqual(h.state.clockText(at: h.now), "27:00")
    h.advance(ms(150))
    h.send(.turn(-1))
    h.advance(ms(150))
    h.send(.turn(-1))
    XCTAssertEqual(h.state.clockText(at: h.now), "25:00")
  }

  func testBelowOneMinuteStepsAreFiveSeconds() {
    var h = Harness(settings: EngineSettings(presets: [.focus: minutes(2)]))
    var shown: [String] = []
    for _ in 0..<4 {
      h.advance(ms(200))
      h.send(.turn(-1))
      shown.append(h.state.clockText(at: h.now))
    }
    XCTAssertEqual(shown, ["01:00", "00:55", "00:50", "00:45"])
    for _ in 0..<3 {
      h.advance(ms(200))
      h.send(.turn(1))
    }
    XCTAssertEqual(h.state.clockText(at: h.now), "01:00")
    h.advance(ms(200))
    h.send(.turn(1))
    XCTAssertEqual(h.state.clockText(at: h.now), "02:00")
  }

  func testClampedAtBothEndsNeverWrapping() {
    var h = Harness()
    for _ in 0..<400 {
      h.advance(ms(5))
      h.send(.turn(-1))
    }
    XCTAssertEqual(h.state.duration, seconds(5))
    XCTAssertEqual(h.state.clockText(at: h.now), "00:05")
    for _ in 0..<400 {
      h.advance(ms(5))
      h.send(.turn(1))
    }
    XCTAssertEqual(h.state.duration, Dial.longest)
    XCTAssertEqual(h.state.clockText(at: h.now), "23:59:59")
  }

  func testFastTurningAcceleratesSoTwoHoursIsAFewSecondsAway() {
    var h = Harness()
    var detents = 0
    while h.state.duration! < minutes(120) {
      h.advance(ms(20))
      h.send(.turn(1))
      detents += 1
    }
    XCTAssertEqual(h.state.duration, minutes(126), "one slow first detent, then steps of 10 minutes")
    XCTAssertLessThanOrEqual(detents, 20, "a quick spin of under a second")
    // And down to 0:05 from 25:00: slow turning, 35 detents at 150 ms, about 5 s.
    h = Harness()
    detents = 0
    while h.state.duration! > seconds(5) {
      h.advance(ms(150))
      h.send(.turn(-1))
      detents += 1
    }
    XCTAssertEqual(detents, 24 + 11)
  }

  func testMultiplierGrades() {
    XCTAssertEqual(Dial.multiplier(sincePrevious: nil), 1)
    XCTAssertEqual(Dial.multiplier(sincePrevious: ms(100)), 1)
    XCTAssertEqual(Dial.multiplier(sincePrevious: ms(99)), 2)
    XCTAssertEqual(Dial.multiplier(sincePrevious: ms(30)), 5)
    XCTAssertEqual(Dial.multiplier(sincePrevious: ms(10)), 10)
  }

  func testSampledDurationsFromFiveSecondsToTheTopRunAndShowCorrectly() {
    // Every 5 s step below 1:00; then whole minutes from 2:00 to 23:59 in strides of 37 (39 of
    // them, a sample across both clock formats; every minute would wake the harness for ~60
    // million seconds); then the top and the odd seconds around the one-hour format change.
    var durations: [Nanoseconds] = stride(from: 5, through: 60, by: 5).map { seconds(Int64($0)) }
    durations += stride(from: 2, through: 23 * 60 + 59, by: 37).map { minutes(Int64($0)) }
    durations += [Dial.longest, seconds(3599), seconds(3600), seconds(3601)]
    for d in durations {
      var h = Harness(settings: EngineSettings(presets: [.focus: d], alarmTimeout: seconds(1)))
      let start = h.now
      h.send(.press(.start))
      XCTAssertEqual(h.state.shownSeconds(at: h.now), wholeSeconds(d))
      h.advance(d - 1)
      XCTAssertEqual(h.state.clockText(at: h.now), "00:01", "d=\(d)")
      h.advance(1)
      XCTAssertEqual(h.alarmsOn, [start + d])
    }
  }

  func testClockTextFormats() {
    XCTAssertEqual(formatClock(25 * 60), "25:00")
    XCTAssertEqual(formatClock(59 * 60 + 59), "59:59")
    XCTAssertEqual(formatClock(3600), "1:00:00")
    XCTAssertEqual(formatClock(2 * 3600 + 5 * 60 + 7), "2:05:07")
    XCTAssertEqual(shownSeconds(1), 1)
    XCTAssertEqual(shownSeconds(seconds(1)), 1)
    XCTAssertEqual(shownSeconds(seconds(1) + 1), 2)
    XCTAssertEqual(shownSeconds(0), 0)
  }
}
