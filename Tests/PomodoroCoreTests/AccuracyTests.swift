import PomodoroCore
import PomodoroMock
import XCTest

final class AccuracyTests: XCTestCase {
  /// A 25-minute focus with 10 pauses at random sub-second instants rings at exactly
  /// start + 25 min + the time spent paused.
  func testTenRandomPausesRingAtTheExactInstant() {
    for seed in UInt64(1)...20 {
      var rng = SplitMix64(seed: seed)
      var h = Harness()
      let start = h.now
      h.send(.press(.start))
      var pausedTotal: Nanoseconds = 0
      for _ in 0..<10 {
        h.advance(Nanoseconds.random(in: 1..<seconds(120), using: &rng))
        h.send(.press(.start))
        XCTAssertEqual(h.state.phase, .paused)
        let pause = Nanoseconds.random(in: 1..<seconds(30), using: &rng)
        pausedTotal += pause
        h.advance(pause)
        h.send(.press(.start))
      }
      h.advance(minutes(30))
      XCTAssertEqual(h.alarmsOn, [start + minutes(25) + pausedTotal], "seed \(seed)")
    }
  }

  func testPauseKeepsTheSubSecondRemainder() {
    var h = Harness()
    h.send(.press(.start))
    h.advance(ms(1_250))
    h.send(.press(.start))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(25) - ms(1_250))
    XCTAssertEqual(h.state.clockText(at: h.now), "24:59")
  }

  func testWakesExactlyWhenTheShownSecondChanges() {
    var h = Harness()
    h.send(.press(.start))
    h.advance(ms(300))
    h.send(.press(.start))
    h.advance(ms(777))
    h.send(.press(.start))
    // 24:59.7 left: the display shows 25:00 until 0.7 s from now.
    let wake = Engine.nextWake(h.state, now: h.now)!
    XCTAssertEqual(wake - h.now, ms(700))
    XCTAssertEqual(h.state.clockText(at: wake - 1), "25:00")
    XCTAssertEqual(h.state.clockText(at: wake), "24:59")
    // Idle and paused need no wake-ups.
    h.send(.press(.start))
    XCTAssertNil(Engine.nextWake(h.state, now: h.now))
  }

  func testALateTickStillRingsAtTheDeadlineAndPressAfterItAcknowledges() {
    var h = Harness()
    let start = h.now
    h.send(.press(.start))
    h.now = start + minutes(25) + ms(40)  // The shell was late; no tick in between.
    h.send(.press(.start))
    XCTAssertEqual(h.alarmsOn.count, 1)
    XCTAssertEqual(h.records.map(\.endedAt), [start + minutes(25)], "completed at the deadline, not when noticed")
    XCTAssertEqual(h.state.phase, .idle, "the press acknowledged the alarm that was due")
  }

  func testPersistsOnPhaseChangesAndEveryTenSecondsWhileRunning() {
    var h = Harness()
    h.send(.press(.start))
    let started = h.now
    h.advance(seconds(35))
    let persists = h.effects.filter { $0.1 == .persist }.map { $0.0 - started }
    XCTAssertEqual(persists, [0, seconds(10), seconds(20), seconds(30)])
  }

  func testSavedAndRestoredComesBackPausedWithTheTimeItHad() {
    var h = Harness()
    h.send(.press(.start))
    h.advance(seconds(100) + ms(500))
    let saved = h.state.saved(at: h.now)
    XCTAssertEqual(saved.remaining, minutes(25) - seconds(100) - ms(500))
    let after = EngineState(restoring: saved, settings: EngineSettings(), now: Instant(nanoseconds: 7))
    XCTAssertEqual(after.phase, .paused)
    XCTAssertTrue(after.restored)
    XCTAssertEqual(after.remaining(at: Instant(nanoseconds: 999_999_999_999)), saved.remaining)
    XCTAssertEqual(after.mode, .focus)
    // A button clears the note.
    let (resumed, _) = Engine.step(after, .press(.start), now: Instant(nanoseconds: 10))
    XCTAssertFalse(resumed.restored)
    XCTAssertEqual(resumed.phase, .running)
  }

  func testRestoringARingingTimerPreselectsTheNextSession() {
    let saved = SavedTimer(phase: .ringing, mode: .focus, duration: minutes(25), remaining: 0, focusDoneInCycle: 4)
    let after = EngineState(restoring: saved, settings: EngineSettings(), now: .zero)
    XCTAssertEqual(after.phase, .idle)
    XCTAssertEqual(after.mode, .longBreak)
  }
}

final class RestoreBoundsTests: XCTestCase {
  /// A crafted state file's focus count is held to the cycle.
  func testAHugeFocusCountIsHeldToTheCycle() {
    for count in [Int.max, 99, -5] {
      let saved = SavedTimer(
        phase: .paused, mode: .focus, duration: minutes(25), remaining: minutes(3), focusDoneInCycle: count)
      let state = EngineState(restoring: saved, settings: EngineSettings(), now: .zero)
      XCTAssertTrue((0...4).contains(state.focusDoneInCycle), "\(count) -> \(state.focusDoneInCycle)")
      XCTAssertNotEqual(state.cycleText, "\(count)/4")
    }
  }
}
