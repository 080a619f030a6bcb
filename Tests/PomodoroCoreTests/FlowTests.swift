import PomodoroCore
import XCTest

/// Flow: a timer that counts up until it is ended, and the break it earns.
final class FlowTests: XCTestCase {
  /// A harness on flow's picker (the knob's seventh mode by default).
  func flow(_ settings: EngineSettings = EngineSettings()) -> Harness {
    var h = Harness(settings: settings)
    h.send(.select(.flow))
    return h
  }

  func testTheKnobsPushReachesFlowAfterTheEggsAndGoesOnToFocus() {
    var h = Harness()
    var seen: [Mode] = []
    for _ in 0..<7 {
      h.send(.press(.encoder))
      seen.append(h.state.mode)
    }
    XCTAssertEqual(seen, [.shortBreak, .longBreak, .soft, .medium, .hard, .flow, .focus])
  }

  func testTheModesSettingIsTheKnobsCycleInItsOrderAndAModeLeftOutStepsToItsFirst() {
    var h = Harness(settings: EngineSettings(modes: [.flow, .shortBreak, .focus]))
    var seen: [Mode] = []
    for _ in 0..<4 {
      h.send(.press(.encoder))
      seen.append(h.state.mode)
    }
    // Focus is listed last: its push goes to the first, flow.
    XCTAssertEqual(seen, [.flow, .shortBreak, .focus, .flow])
    h.send(.select(.hard))  // A command can still choose a mode the cycle leaves out.
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .flow)
  }

  func testThePickerShowsZeroAndTheTitleFlowAndTheKnobDoesNothingThere() {
    var h = flow()
    XCTAssertEqual(h.state.clockText(at: h.now), "00:00")
    XCTAssertEqual(h.state.title, "Flow")
    XCTAssertEqual(h.state.cancelLabel, "End")
    let before = h.state
    h.send(.turn(5))
    h.send(.turn(-3))
    h.send(.setDuration(minutes(10)))
    XCTAssertEqual(h.state.clockText(at: h.now), "00:00")
    XCTAssertEqual(h.state, before)
    XCTAssertNil(h.state.duration, "a flow has no duration")
    XCTAssertNil(h.state.remaining(at: h.now), "nor a time left")
  }

  func testItCountsUpInWholeSecondsRoundedDownEachDrawnOnItsBoundary() {
    var h = flow()
    h.send(.press(.start))
    let start = h.now
    XCTAssertEqual(h.state.clockText(at: h.now), "00:00")
    XCTAssertEqual(h.state.clockText(at: h.now + ms(999)), "00:00", "the first second shows 00:00")
    XCTAssertEqual(Engine.nextWake(h.state, now: h.now), start + seconds(1))
    h.advance(ms(1_300))
    XCTAssertEqual(h.state.clockText(at: h.now), "00:01")
    XCTAssertEqual(Engine.nextWake(h.state, now: h.now), start + seconds(2), "the next second's boundary")
    XCTAssertEqual(h.state.clockText(at: start + seconds(12 * 60 + 34) + ms(500)), "12:34")
    XCTAssertEqual(h.state.clockText(at: start + seconds(3600) - 1), "59:59")
    XCTAssertEqual(h.state.clockText(at: start + seconds(3600)), "1:00:00")
  }

  func testPauseAndResumeKeepTheCountToTheNanosecond() {
    var h = flow()
    h.send(.press(.start))
    h.advance(seconds(95) + ms(437) + 123)
    h.send(.press(.start))
    XCTAssertEqual(h.state.phase, .paused)
    h.advance(minutes(30))
    h.send(.turn(4))
    XCTAssertEqual(h.state.elapsed(at: h.now), seconds(95) + ms(437) + 123, "paused time and the knob do not count")
    h.send(.press(.start))
    h.advance(seconds(4) + ms(563) - 123)
    XCTAssertEqual(h.state.elapsed(at: h.now), seconds(100))
    XCTAssertEqual(h.state.clockText(at: h.now), "01:40")
  }

  func testEndingAfterTheFirstMinuteCompletesItAndPreselectsTheBreakItEarned() {
    var h = flow()
    h.send(.press(.start))
    h.advance(minutes(25))
    XCTAssertEqual(h.state.statusLine(at: h.now), "running  flow  25:00, break 5:00 earned")
    h.send(.press(.cancel))
    XCTAssertEqual(h.records.count, 1)
    XCTAssertEqual(h.records[0].mode, .flow)
    XCTAssertEqual(h.records[0].outcome, .completed)
    XCTAssertEqual(h.records[0].planned, 0)
    XCTAssertEqual(h.records[0].actual, minutes(25))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertEqual(h.state.duration, minutes(5))
  }

  func testTheEarnedBreakIsTheFlowOverTheRatioToTheNearestMinuteFromOneToTheLongBreak() {
    let settings = EngineSettings(flowBreakRatio: 5)
    XCTAssertEqual(settings.earnedBreak(seconds(59)), 0, "nothing within the first minute")
    XCTAssertEqual(settings.earnedBreak(minutes(1)), minutes(1), "at least a minute")
    XCTAssertEqual(settings.earnedBreak(seconds(12 * 60 + 29)), minutes(2), "2:29.8 rounds down")
    XCTAssertEqual(settings.earnedBreak(seconds(12 * 60 + 30)), minutes(3), "2:30 rounds up")
    XCTAssertEqual(settings.earnedBreak(minutes(25)), minutes(5))
    XCTAssertEqual(settings.earnedBreak(minutes(80)), minutes(15), "at most the long break's preset")
    XCTAssertEqual(EngineSettings(flowBreakRatio: 3).earnedBreak(minutes(30)), minutes(10))
    var shortLong = EngineSettings()
    shortLong.presets[.longBreak] = minutes(4)
    XCTAssertEqual(shortLong.earnedBreak(minutes(50)), minutes(4))
  }

  func testEndingWithinTheFirstMinuteCancelsItBackToThePicker() {
    var h = flow()
    h.send(.press(.start))
    h.advance(seconds(59) + ms(999))
    h.send(.press(.cancel))
    XCTAssertEqual(h.records.map(\.outcome), [.cancelled])
    XCTAssertEqual(h.records[0].planned, 0)
    XCTAssertEqual(h.records[0].actual, seconds(59) + ms(999))
    XCTAssertEqual(h.state.mode, .flow)
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.clockText(at: h.now), "00:00")
  }

  /// A completed flow is completed focus (`ModeKind.isFocus`, docs/history.md): today's count
  /// takes it, the cycle's does not (a flow earns its own break).
  func testAFlowCountsNothingTowardTheLongBreakButCountsInTodaysFocusSessions() {
    var h = Harness(settings: EngineSettings(longBreakEvery: 2))
    for _ in 0..<3 {
      h.send(.select(.flow))
      h.send(.press(.start))
      h.advance(minutes(30))
      h.send(.press(.cancel))
      XCTAssertEqual(h.state.mode, .shortBreak, "a flow earns a short break, never the long one")
    }
    XCTAssertEqual(h.state.focusDoneInCycle, 0)
    XCTAssertEqual(h.state.completedToday, 3)
    // One ended within its first minute is cancelled: not counted.
    h.send(.select(.flow))
    h.send(.press(.start))
    h.advance(seconds(59))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.completedToday, 3)
    // The cycle's count is focus's alone: one focus before, flows between, one after: the long break.
    h.send(.select(.focus))
    h.send(.press(.start))
    h.advance(minutes(25))
    h.send(.press(.start))
    h.send(.select(.flow))
    h.send(.press(.start))
    h.advance(minutes(30))
    h.send(.press(.cancel))
    h.send(.select(.focus))
    h.send(.press(.start))
    h.advance(minutes(25))
    h.send(.press(.start))
    XCTAssertEqual(h.state.mode, .longBreak)
  }

  func testAfterADayItStopsCountingAndRingsAndTheAlarmPreselectsTheEarnedBreak() {
    var h = flow()
    h.send(.press(.start))
    let start = h.now
    h.advance(Engine.longestFlow + seconds(5))
    XCTAssertEqual(h.state.phase, .ringing)
    XCTAssertEqual(h.alarmsOn, [start + Engine.longestFlow])
    XCTAssertEqual(h.state.clockText(at: h.now), "24:00:00")
    XCTAssertEqual(h.state.title, "Flow done!")
    h.send(.turn(3))
    XCTAssertEqual(h.state.phase, .ringing, "no snooze: nothing is left to count")
    h.send(.press(.start))
    XCTAssertEqual(h.records.map(\.outcome), [.completed])
    XCTAssertEqual(h.records[0].planned, 0)
    XCTAssertEqual(h.records[0].actual, Engine.longestFlow)
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertEqual(h.state.duration, minutes(15), "the long break's preset caps it")
  }

  func testARestartBringsARunningFlowBackPausedWithItsCountLosingAtMostTheSaveInterval() {
    var h = flow()
    h.send(.press(.start))
    var saved: SavedTimer?
    var savedAt = h.now
    for _ in 0..<(12 * 60 + 34) {
      h.advance(seconds(1) + ms(3))
      if h.effects.last.map({ $0.1 == .persist && $0.0 > savedAt }) ?? false {
        saved = h.state.saved(at: h.now)
        savedAt = h.now
      }
    }
    let counted = h.state.elapsed(at: h.now)
    let (back, _) = Engine.restore(saved!, settings: EngineSettings(), now: .zero)
    XCTAssertEqual(back.phase, .paused)
    XCTAssertEqual(back.mode, .flow)
    XCTAssertTrue(back.restored)
    let lost = counted - back.elapsed(at: .zero)
    XCTAssertTrue(lost >= 0 && lost <= Engine.persistInterval, "lost \(lost) ns")
    // A file that gives a flow a countdown's fields cannot give it a duration or an end.
    var crafted = saved!
    crafted.count = .down(remaining: minutes(1), total: minutes(20))
    let craftedBack = Engine.restore(crafted, settings: EngineSettings(), now: .zero).0
    XCTAssertNil(craftedBack.duration)
    XCTAssertNil(craftedBack.remaining(at: .zero))
  }

  func testAfterTheBreakAFlowEarnedFlowComesAgainEvenAcrossARestart() {
    var h = flow()
    h.send(.press(.start))
    h.advance(minutes(20))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertTrue(h.state.breakAfterFlow)
    XCTAssertEqual(h.state.title, "Earned break")
    h.send(.press(.start))
    h.advance(minutes(1))
    // A power cut in the break: it comes back paused, still the flow's.
    let (back, _) = Engine.restore(h.state.saved(at: h.now), settings: EngineSettings(), now: h.now)
    h.state = back
    XCTAssertTrue(h.state.breakAfterFlow)
    h.send(.press(.start))
    h.advance(minutes(3) + seconds(1))
    XCTAssertEqual(h.state.phase, .ringing)
    h.send(.press(.start))
    XCTAssertEqual(h.state.mode, .flow, "flow again, not focus")
    XCTAssertFalse(h.state.breakAfterFlow)
    // A short break chosen by hand is the cycle's: focus follows it.
    h.send(.select(.shortBreak))
    h.send(.press(.start))
    h.advance(minutes(5))
    h.send(.press(.start))
    XCTAssertEqual(h.state.mode, .focus)
    // Skipping the earned break goes to flow too; choosing another mode forgets it.
    h.send(.select(.flow))
    h.send(.press(.start))
    h.advance(minutes(10))
    h.send(.press(.cancel))
    h.send(.skip)
    XCTAssertEqual(h.state.mode, .flow)
    h.send(.press(.start))
    h.advance(minutes(10))
    h.send(.press(.cancel))
    h.send(.press(.encoder))
    h.send(.select(.shortBreak))
    XCTAssertFalse(h.state.breakAfterFlow)
  }

  func testCommandsCannotExtendAFlowAndSkippingOneEndsItOnTheBreakItEarned() {
    var h = flow()
    h.send(.press(.start))
    h.advance(minutes(10))
    let before = h.state
    h.send(.extend(minutes(5)))
    XCTAssertEqual(h.state, before)
    h.send(.skip)
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertEqual(h.state.duration, minutes(2))
    XCTAssertEqual(h.records.map(\.outcome), [.completed])
  }
}
