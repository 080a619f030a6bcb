import PomodoroCore
import XCTest

final class TransitionTests: XCTestCase {
  func testFreshDeviceIsIdleOnFocusAt25Minutes() {
    let h = Harness()
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.mode, .focus)
    XCTAssertEqual(h.state.duration, minutes(25))
    XCTAssertEqual(h.state.clockText(at: h.now), "25:00")
    XCTAssertFalse(h.state.hasTimer, "cancel is enabled only while a timer exists")
    XCTAssertEqual(h.state.startLabel, "Start")
  }

  func testStartPauseResumeToggleAndLabelFollows() {
    var h = Harness()
    h.send(.press(.start))
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.state.startLabel, "Pause")
    XCTAssertTrue(h.state.hasTimer)
    h.advance(seconds(3))
    h.send(.press(.start))
    XCTAssertEqual(h.state.phase, .paused)
    XCTAssertEqual(h.state.startLabel, "Resume")
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(25) - seconds(3))
    h.advance(minutes(10))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(25) - seconds(3), "paused time does not count")
    h.send(.press(.start))
    XCTAssertEqual(h.state.phase, .running)
  }

  func testCancelReturnsToIdleKeepingTheDialedDurationAndRecords() {
    var h = Harness()
    h.send(.turn(1))
    XCTAssertEqual(h.state.duration, minutes(26))
    h.send(.press(.start))
    h.advance(seconds(90))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.duration, minutes(26))
    XCTAssertEqual(h.records.count, 1)
    XCTAssertEqual(h.records[0].outcome, .cancelled)
    XCTAssertEqual(h.records[0].actual, seconds(90))
    XCTAssertEqual(h.records[0].planned, minutes(26))
  }

  func testCancelFromPausedAndCancelInIdleIsHarmless() {
    var h = Harness()
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.duration, minutes(25))
    XCTAssertTrue(h.effects.isEmpty, "cancel in idle does nothing")
    h.send(.press(.start))
    h.send(.press(.start))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.phase, .idle)
  }

  func testUnacknowledgedAlarmStopsAfterTheDefaultMinuteWithTheBreakPreselected() {
    var h = Harness()
    let start = h.now
    h.send(.press(.start))
    h.advance(minutes(30))
    XCTAssertEqual(h.alarmsOn, [start + minutes(25)])
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.mode, .shortBreak)
  }

  func testEveryButtonAcknowledgesOnly() {
    for button in Button.allCases {
      var h = Harness()
      h.send(.press(.start))
      h.advance(minutes(25))
      XCTAssertEqual(h.state.phase, .ringing)
      XCTAssertEqual(h.state.clockText(at: h.now), "00:00")
      h.advance(seconds(5))
      h.send(.press(button))
      XCTAssertEqual(h.state.phase, .idle, "\(button) acknowledges")
      XCTAssertEqual(h.state.mode, .shortBreak, "the break is preselected")
      XCTAssertEqual(h.state.duration, minutes(5))
      XCTAssertEqual(h.effects.last?.1, .persist)
      XCTAssertTrue(h.effects.contains { $0.1 == .alarm(false) })
    }
  }

  func testTurningWhileRingingDoesNotAcknowledge() {
    // Counter-clockwise is ignored; clockwise snoozes (SnoozeTests): neither acknowledges.
    var h = Harness()
    h.send(.press(.start))
    h.advance(minutes(25))
    h.send(.turn(-3))
    XCTAssertEqual(h.state.phase, .ringing)
    h.send(.turn(3))
    XCTAssertNotEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.mode, .focus)
  }

  func testAlarmTimesOutToIdleAfterConfiguredTimeout() {
    var h = Harness(settings: EngineSettings(alarmTimeout: seconds(20)))
    let start = h.now
    h.send(.press(.start))
    h.advance(minutes(25) + seconds(19))
    XCTAssertEqual(h.state.phase, .ringing)
    h.advance(seconds(1))
    XCTAssertEqual(h.state.phase, .idle)
    let offs = h.effects.filter { $0.1 == .alarm(false) }.map(\.0)
    XCTAssertEqual(offs, [start + minutes(25) + seconds(20)])
  }

  func testAutoStartStartsTheBreakOnAcknowledge() {
    var h = Harness(settings: EngineSettings(autoStart: true))
    h.send(.press(.start))
    h.advance(minutes(25) + seconds(2))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(5))
  }

  func testFourthFocusLeadsToTheLongBreakThenTheCycleStartsAgain() {
    var h = Harness()
    var breaks: [Mode] = []
    for _ in 0..<5 {
      XCTAssertEqual(h.state.mode, .focus)
      h.send(.press(.start))
      h.advance(minutes(25))
      h.send(.press(.start))
      breaks.append(h.state.mode)
      h.send(.press(.start))
      h.advance(h.state.duration!)
      h.send(.press(.start))
    }
    XCTAssertEqual(breaks, [.shortBreak, .shortBreak, .shortBreak, .longBreak, .shortBreak])
    XCTAssertEqual(h.state.completedToday, 5)
    XCTAssertEqual(h.state.cycleText, "2/4")
  }

  func testCycleTextFollowsTheFocusPosition() {
    var h = Harness()
    XCTAssertEqual(h.state.title, "Focus 1/4")
    h.send(.press(.start))
    XCTAssertEqual(h.state.statusLine(at: h.now), "running  focus 1/4  25:00")
    h.advance(minutes(25))
    XCTAssertEqual(h.state.title, "Focus done!")
    XCTAssertEqual(h.state.cycleText, "1/4")
    h.send(.press(.start))
    XCTAssertEqual(h.state.title, "Short break")
    XCTAssertNil(h.state.cycleText)
  }

  func testEncoderPushStepsThroughModesWhileIdleOnly() {
    var h = Harness()
    var seen: [Mode] = []
    for _ in 0..<7 {
      seen.append(h.state.mode)
      h.send(.press(.encoder))
    }
    XCTAssertEqual(seen, [.focus, .shortBreak, .longBreak, .soft, .medium, .hard, .flow])
    XCTAssertEqual(h.state.mode, .focus)
    h.send(.press(.start))
    h.send(.press(.encoder))
    h.send(.longPress(.encoder))
    h.send(.turn(5))
    XCTAssertEqual(h.state.mode, .focus, "presets are ignored while a timer runs")
    XCTAssertEqual(h.state.duration, minutes(25))
  }

  func testEggPresetsAndTheirTitles() {
    var h = Harness()
    for _ in 0..<3 { h.send(.press(.encoder)) }
    let expected: [(Mode, Nanoseconds)] = [(.soft, minutes(5)), (.medium, minutes(7)), (.hard, minutes(12))]
    for (mode, duration) in expected {
      XCTAssertEqual(h.state.mode, mode)
      XCTAssertEqual(h.state.duration, duration)
      XCTAssertEqual(h.state.title, "How do you like your eggs?")
      h.send(.press(.encoder))
    }
    h = Harness()
    for _ in 0..<3 { h.send(.press(.encoder)) }
    h.send(.press(.start))
    XCTAssertEqual(h.state.title, "So you like it Soft huh?")
    h.advance(minutes(5))
    XCTAssertEqual(h.state.title, "Alright, don't choke on them!")
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.mode, .soft, "the egg timer stays on its preset")
    XCTAssertEqual(h.state.completedToday, 0, "eggs are not focus sessions")
  }

  func testLongPressEncoderRestoresThePresetAndLongCancelSkipsToFocus() {
    var h = Harness()
    h.send(.turn(7))
    XCTAssertNotEqual(h.state.duration, minutes(25))
    h.send(.longPress(.encoder))
    XCTAssertEqual(h.state.duration, minutes(25))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .shortBreak)
    h.send(.longPress(.cancel))
    XCTAssertEqual(h.state.mode, .focus)
  }

  func testSetCompletedTodayIsShown() {
    var h = Harness()
    h.send(.setCompletedToday(3))
    XCTAssertEqual(h.state.completedToday, 3)
    h.send(.press(.start))
    h.advance(minutes(25))
    XCTAssertEqual(h.state.completedToday, 4)
  }
}

final class AlarmTimeoutTests: XCTestCase {
  func testEggsRingUntilStoppedByDefaultAndPomodoroModesTimeOut() {
    var h = Harness()
    for _ in 0..<3 { h.send(.press(.encoder)) }
    XCTAssertEqual(h.state.mode, .soft)
    let start = h.now
    h.send(.press(.start))
    h.advance(minutes(5))
    XCTAssertEqual(h.state.phase, .ringing)
    XCTAssertNil(Engine.nextWake(h.state, now: h.now), "nothing is due while an egg rings")
    h.advance(minutes(90))
    h.send(.tick)
    XCTAssertEqual(h.state.phase, .ringing, "an egg rings until stopped")
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.effects.filter { $0.1 == .alarm(false) }.map(\.0), [start + minutes(95)])
  }

  func testBothTimeoutsAreConfigurableAndNeverIsAccepted() {
    var h = Harness(settings: EngineSettings(alarmTimeout: nil, eggAlarmTimeout: seconds(30)))
    h.send(.press(.start))
    h.advance(minutes(25))
    XCTAssertNil(Engine.nextWake(h.state, now: h.now))
    h.advance(minutes(60))
    h.send(.tick)
    XCTAssertEqual(h.state.phase, .ringing, "focus rings until stopped with alarm_timeout never")
    h.send(.press(.start))
    for _ in 0..<2 { h.send(.press(.encoder)) }  // From the preselected short break: long break, soft.
    XCTAssertEqual(h.state.mode, .soft)
    h.send(.press(.start))
    let rang = h.now + minutes(5)
    h.advance(minutes(5))
    XCTAssertEqual(Engine.nextWake(h.state, now: h.now), rang + seconds(30))
    h.advance(seconds(30))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.effects.last { $0.1 == .alarm(false) }?.0, rang + seconds(30))
  }

  func testDefaults() {
    XCTAssertEqual(EngineSettings().alarmTimeout, seconds(60))
    XCTAssertNil(EngineSettings().eggAlarmTimeout)
    XCTAssertEqual(EngineSettings().alarmTimeout(for: .longBreak), seconds(60))
    XCTAssertNil(EngineSettings().alarmTimeout(for: .hard))
  }
}
