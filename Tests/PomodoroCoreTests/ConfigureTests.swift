import PomodoroCore
import XCTest

/// New settings (SIGHUP's reload) and the picker: a new preset shows at once where the picker
/// shows that mode's preset, and Start runs it; a time the owner dialed, a running timer and a
/// flow's earned break are kept.
final class ConfigureTests: XCTestCase {
  func settings(focus: Nanoseconds, shortBreak: Nanoseconds = minutes(5)) -> EngineSettings {
    var settings = EngineSettings()
    settings.presets[.focus] = focus
    settings.presets[.shortBreak] = shortBreak
    return settings
  }

  func testANewPresetShowsOnTheIdlePickerAndStartRunsIt() {
    var h = Harness()
    h.send(.configure(settings(focus: minutes(30))))
    XCTAssertEqual(h.state.duration, minutes(30))
    XCTAssertEqual(h.state.clockText(at: h.now), "30:00")
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertTrue(h.effects.isEmpty, "nothing to save or sound: the picker is not saved")
    h.send(.press(.start))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(30))
    h.advance(seconds(90))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.duration, minutes(30), "Cancel comes back to the preset")
    XCTAssertEqual(h.records.last?.planned, minutes(30))
  }

  func testAKnobTurnedSinceKeepsTheDialedTime() {
    var h = Harness()
    h.send(.turn(1))
    h.send(.configure(settings(focus: minutes(30))))
    XCTAssertEqual(h.state.duration, minutes(26), "the owner's dialed 26:00 stays")
    h.send(.longPress(.encoder))
    XCTAssertEqual(h.state.mode, .focus)
    XCTAssertEqual(h.state.duration, minutes(30), "a long push dials the preset, which follows it again")
    h.send(.configure(settings(focus: minutes(40))))
    XCTAssertEqual(h.state.duration, minutes(40))
    h.send(.setDuration(minutes(12)))
    h.send(.configure(settings(focus: minutes(45))))
    XCTAssertEqual(h.state.duration, minutes(12), "a command's duration is dialed too")
  }

  func testOnlyThePresetOfTheModeOnThePickerMovesIt() {
    var h = Harness()
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .shortBreak)
    h.send(.configure(settings(focus: minutes(30))))
    XCTAssertEqual(h.state.duration, minutes(5))
    h.send(.configure(settings(focus: minutes(30), shortBreak: minutes(7))))
    XCTAssertEqual(h.state.duration, minutes(7))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .longBreak)
    XCTAssertEqual(h.state.duration, minutes(15))
  }

  func testARunningTimerKeepsItsLengthAndAPausedOneTooUntilCancel() {
    var h = Harness()
    h.send(.press(.start))
    h.advance(minutes(1))
    h.send(.configure(settings(focus: minutes(30))))
    XCTAssertEqual(h.state.duration, minutes(25))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(24))
    h.send(.press(.start))
    h.send(.configure(settings(focus: minutes(35))))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(24), "paused: kept")
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.duration, minutes(35), "the next session is the new preset")
    // Turned while paused: dialed, so Cancel comes back to that.
    h.send(.press(.start))
    h.send(.press(.start))
    h.send(.turn(2))
    h.send(.configure(settings(focus: minutes(20))))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.duration, minutes(37), "dialed while paused: kept")
  }

  func testAFlowsEarnedBreakIsKept() {
    var s = EngineSettings()
    s.modes = [.flow, .focus]
    var h = Harness(settings: s)
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .flow)
    h.send(.press(.start))
    h.advance(minutes(20))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertEqual(h.state.duration, minutes(4))
    s.presets[.shortBreak] = minutes(9)
    h.send(.configure(s))
    XCTAssertEqual(h.state.duration, minutes(4), "the break a flow earned is not a preset")
  }

  /// The file does not say whether a time was dialed: a picker restored at its mode's preset
  /// follows a new one; another time, and a timer, are kept.
  func testARestoredPickerFollowsThePresetOnlyWhenItShowsIt() {
    let now = Instant(nanoseconds: 1)
    let atPreset = SavedTimer(
      phase: .idle, mode: .focus, duration: minutes(25), remaining: minutes(25), focusDoneInCycle: 0)
    var state = EngineState(restoring: atPreset, settings: EngineSettings(), now: now)
    state = Engine.step(state, .configure(settings(focus: minutes(30))), now: now).0
    XCTAssertEqual(state.duration, minutes(30))
    let dialed = SavedTimer(
      phase: .idle, mode: .focus, duration: minutes(26), remaining: minutes(26), focusDoneInCycle: 0)
    state = EngineState(restoring: dialed, settings: EngineSettings(), now: now)
    state = Engine.step(state, .configure(settings(focus: minutes(30))), now: now).0
    XCTAssertEqual(state.duration, minutes(26))
  }
}
