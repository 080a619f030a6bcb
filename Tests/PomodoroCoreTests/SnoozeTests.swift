import PomodoroCore
import XCTest

/// The knob while ringing snoozes; while paused it sets the time left; a session is recorded
/// once, when it ends for good, with its extensions.
final class SnoozeTests: XCTestCase {
  /// A focus that has just started ringing.
  static func ringing(_ settings: EngineSettings = EngineSettings()) -> Harness {
    var h = Harness(settings: settings)
    h.send(.press(.start))
    h.advance(h.state.duration!)
    XCTAssertEqual(h.state.phase, .ringing)
    return h
  }

  func testClockwiseWhileRingingSnoozesAndTheSessionCountsOnAtOnce() {
    var h = Self.ringing()
    let rang = h.now
    h.advance(seconds(5))
    h.send(.turn(1))
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.effects.last { $0.1 == .alarm(false) }?.0, h.now, "the alarm stops")
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(1))
    XCTAssertEqual(h.state.duration, minutes(26), "the total grows by the minute added")
    XCTAssertEqual(h.state.elapsed(at: h.now), minutes(25))
    XCTAssertEqual(h.state.title, "Focus 1/4", "still the first focus")
    XCTAssertTrue(h.records.isEmpty, "recorded when it ends, not before")
    h.advance(minutes(1))
    XCTAssertEqual(h.alarmsOn, [rang, rang + seconds(5) + minutes(1)])
    XCTAssertEqual(h.state.completedToday, 1, "counted once, at the first zero")
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.mode, .shortBreak)
    XCTAssertEqual(
      h.records,
      [
        SessionRecord(
          mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(26), extended: minutes(1),
          endedAt: rang + seconds(5) + minutes(1))
      ])
  }

  func testASpinAddsAMinutePerDetentAcceleratingAndARestEndsIt() {
    var h = Self.ringing()
    h.send(.turn(1))
    h.advance(ms(150))
    h.send(.turn(1))  // A slow detent: one more minute.
    h.advance(ms(30))
    h.send(.turn(2))  // Fast: five minutes a detent.
    XCTAssertEqual(h.state.duration, minutes(25 + 1 + 1 + 10))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(12) - ms(180))
    h.advance(ms(300))
    h.send(.turn(-3))  // Counter-clockwise neither adds nor takes away.
    XCTAssertEqual(h.state.duration, minutes(37))
    h.advance(seconds(1))
    h.send(.turn(1))  // After a rest the running timer ignores the knob again.
    XCTAssertEqual(h.state.duration, minutes(37))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(12) - ms(180) - ms(300) - seconds(1))
  }

  func testABumpedKnobNeverChangesATimerStartedWithTheButton() {
    var h = Harness()
    h.send(.press(.start))
    h.send(.turn(1))
    h.advance(ms(10))
    h.send(.turn(5))
    XCTAssertEqual(h.state.duration, minutes(25))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(25) - ms(10))
  }

  func testTheTotalStaysWithinTheDialsRange() {
    var h = Self.ringing(EngineSettings(presets: [.focus: Dial.longest - seconds(30)]))
    h.send(.turn(3))
    XCTAssertEqual(h.state.duration, Dial.longest)
    XCTAssertEqual(h.state.remaining(at: h.now), seconds(30))
    h.advance(seconds(30))
    XCTAssertEqual(h.state.phase, .ringing)
    h.send(.turn(1))
    XCTAssertEqual(h.state.phase, .ringing, "nothing left to add: it keeps ringing")
  }

  func testCancellingASnoozedTimerRecordsOneCompletedSession() {
    var h = Self.ringing()
    h.send(.turn(1))
    h.advance(seconds(20))
    h.send(.press(.start))  // Pause and resume: the same session.
    h.advance(seconds(3))
    h.send(.press(.start))
    h.advance(seconds(2))
    h.send(.press(.cancel))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.state.duration, minutes(25), "back to the dialed duration")
    XCTAssertEqual(
      h.records,
      [
        SessionRecord(
          mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(25) + seconds(22),
          extended: minutes(1), endedAt: h.now)
      ])
    XCTAssertEqual(h.state.completedToday, 1)
  }

  func testASessionThatTimesOutIsRecordedWhenTheAlarmStops() {
    var h = Self.ringing()
    let rang = h.now
    XCTAssertTrue(h.records.isEmpty)
    h.advance(minutes(1))
    XCTAssertEqual(h.state.phase, .idle)
    XCTAssertEqual(h.records.count, 1)
    XCTAssertEqual(h.records.first?.endedAt, rang)
    XCTAssertEqual(h.records.first?.extended, 0)
  }

  func testWhilePausedTurningSetsTheTimeLeft() {
    var h = Harness()
    h.send(.press(.start))
    h.advance(minutes(3) + ms(250))
    h.send(.press(.start))
    h.advance(seconds(2))
    h.send(.turn(1))
    XCTAssertEqual(h.state.phase, .paused)
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(23) - ms(250))
    XCTAssertEqual(h.state.duration, minutes(26), "the total is what counted plus what is left")
    XCTAssertEqual(h.effects.last?.1, .persist)
    for _ in 0..<400 {
      h.advance(ms(5))
      h.send(.turn(-1))
    }
    XCTAssertEqual(h.state.remaining(at: h.now), seconds(5))
    XCTAssertEqual(h.state.clockText(at: h.now), "00:05")
    for _ in 0..<400 {
      h.advance(ms(5))
      h.send(.turn(1))
    }
    // Up to 23:59:59 left, as the dial goes, whatever has run: the total passes the dial's top.
    XCTAssertEqual(h.state.remaining(at: h.now), Dial.longest)
    XCTAssertEqual(h.state.clockText(at: h.now), "23:59:59")
    XCTAssertEqual(h.state.duration, Dial.longest + minutes(3) + ms(250), "what counted plus what is left")
    h.send(.press(.start))
    let resumed = h.now
    h.advance(h.state.remaining(at: h.now)!)
    XCTAssertEqual(h.alarmsOn, [resumed + Dial.longest])
    h.send(.press(.start))
    XCTAssertEqual(
      h.records.map(\.planned), [Dial.longest + minutes(3) + ms(250)], "dialed before it reached zero: the plan itself")
    XCTAssertEqual(h.records.map(\.actual), [Dial.longest + minutes(3) + ms(250)])
    XCTAssertEqual(h.records.map(\.extended), [0])
  }

  /// Paused and turned up to 23:59:59 again and again, a timer's total stops at
  /// `Engine.longestTotal` (twice the dial's top); the time left never passes 23:59:59, and a
  /// snooze or an extension adds nothing past the dial's top, as before.
  func testTurnedUpWhilePausedTheTotalStaysWithinTwiceTheDialsTop() {
    var h = Harness()
    h.send(.press(.start))
    h.advance(seconds(1))
    h.send(.press(.start))
    var lefts: [Nanoseconds] = []
    for _ in 0..<3 {
      XCTAssertEqual(h.state.phase, .paused)
      for _ in 0..<30 {
        h.advance(ms(5))
        h.send(.turn(10))
      }
      lefts.append(h.state.remaining(at: h.now)!)
      XCTAssertLessThanOrEqual(h.state.duration!, Engine.longestTotal)
      h.send(.extend(minutes(5)))
      XCTAssertEqual(h.state.remaining(at: h.now), lefts.last, "no extension past the dial's top")
      h.send(.press(.start))
      h.advance(h.state.remaining(at: h.now)! - minutes(1))
      h.send(.press(.start))
    }
    var cancelled = h
    cancelled.send(.press(.cancel))
    XCTAssertEqual(cancelled.state.phase, .idle)
    XCTAssertEqual(cancelled.state.duration, Dial.longest, "the picker keeps at most the dial's top")
    XCTAssertEqual(cancelled.records.map(\.planned), [h.state.duration], "recorded with the plan it had")
    XCTAssertEqual(lefts[0], Dial.longest)
    XCTAssertEqual(lefts[1], Dial.longest, "a day run: still 23:59:59 left")
    XCTAssertLessThan(lefts[2], Dial.longest, "at the top: only what the total has room for")
    XCTAssertEqual(h.state.duration, Engine.longestTotal, "the total stopped at twice the dial's top")
    h.send(.press(.start))
    h.advance(minutes(1))
    XCTAssertEqual(h.state.phase, .ringing)
    h.send(.turn(1))
    XCTAssertEqual(h.state.phase, .ringing, "nothing left to add: it keeps ringing")
    h.send(.press(.start))
    XCTAssertEqual(h.records.map(\.actual), [Engine.longestTotal])
    XCTAssertEqual(h.records.map(\.outcome), [.completed])
  }

  func testDialingWhilePausedAfterASnoozeChangesTheExtension() {
    var h = Self.ringing()
    h.send(.turn(1))
    h.advance(seconds(10))
    h.send(.press(.start))
    h.advance(seconds(1))
    h.send(.turn(1))  // 0:50 left: 5 s steps below 1:00, stopping at 1:00, then minutes.
    XCTAssertEqual(h.state.remaining(at: h.now), seconds(55))
    h.advance(seconds(1))
    h.send(.turn(1))
    h.advance(seconds(1))
    h.send(.turn(1))
    XCTAssertEqual(h.state.remaining(at: h.now), minutes(2))
    XCTAssertEqual(h.state.duration, minutes(27) + seconds(10))
    h.send(.press(.start))
    h.advance(minutes(2))
    h.send(.press(.encoder))
    XCTAssertEqual(h.records.map(\.extended), [minutes(2) + seconds(10)])
    XCTAssertEqual(h.records.map(\.actual), [minutes(27) + seconds(10)])
    XCTAssertEqual(h.records.map(\.planned), [minutes(25)])
  }

  func testAnEggSnoozesToo() {
    var h = Harness()
    for _ in 0..<4 { h.send(.press(.encoder)) }
    XCTAssertEqual(h.state.mode, .medium)
    h.send(.press(.start))
    h.advance(minutes(7))
    h.send(.turn(1))
    XCTAssertEqual(h.state.title, "So you like it Medium huh?")
    h.advance(minutes(1))
    XCTAssertEqual(h.state.title, "Alright, don't choke on them!")
    h.send(.longPress(.start))
    XCTAssertEqual(h.records.map(\.actual), [minutes(8)])
    XCTAssertEqual(h.state.completedToday, 0)
  }
}

final class RestoreTests: XCTestCase {
  /// A paused timer turned up past the dial's top comes back whole after a restart; what no
  /// engine writes is held within bounds (an idle duration at the dial's top, a timer's total
  /// at `Engine.longestTotal`, the time left at 23:59:59).
  func testATotalAboveTheDialsTopIsRestoredWhole() {
    let now = Instant(nanoseconds: 42)
    func restored(_ phase: Phase, duration: Nanoseconds, remaining: Nanoseconds) -> EngineState {
      Engine.restore(
        SavedTimer(phase: phase, mode: .focus, duration: duration, remaining: remaining, focusDoneInCycle: 0),
        settings: EngineSettings(), now: now
      ).0
    }
    let turnedUp = restored(.paused, duration: Dial.longest + minutes(3), remaining: Dial.longest)
    XCTAssertEqual(turnedUp.duration, Dial.longest + minutes(3))
    XCTAssertEqual(turnedUp.remaining(at: now), Dial.longest)
    XCTAssertEqual(turnedUp.elapsed(at: now), minutes(3))
    let wild = restored(.running, duration: .max, remaining: .max)
    XCTAssertEqual(wild.duration, Engine.longestTotal)
    XCTAssertEqual(wild.remaining(at: now), Dial.longest)
    XCTAssertEqual(restored(.idle, duration: Dial.longest + 1, remaining: 0).duration, Dial.longest)
  }

  func testRestoringARingingTimerRecordsItsSessionThere() {
    let saved = SavedTimer(
      phase: .ringing, mode: .focus, duration: minutes(27), remaining: 0, focusDoneInCycle: 1, extended: minutes(2))
    let now = Instant(nanoseconds: 42)
    let (state, effects) = Engine.restore(saved, settings: EngineSettings(), now: now)
    XCTAssertEqual(state.phase, .idle)
    XCTAssertEqual(state.mode, .shortBreak)
    let records = effects.compactMap { effect -> SessionRecord? in
      if case .record(let r) = effect { return r }
      return nil
    }
    XCTAssertEqual(
      records,
      [
        SessionRecord(
          mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(27), extended: minutes(2),
          endedAt: now)
      ])
    XCTAssertTrue(effects.contains(.persist), "saved at once, so a second restart does not record it again")
    XCTAssertEqual(state.saved(at: now).phase, .idle)
    XCTAssertEqual(EngineState(restoring: saved, settings: EngineSettings(), now: now), state)
  }

  func testASnoozedTimerSurvivesARestartAsTheSameSession() {
    for pauseFirst in [false, true] {
      var h = SnoozeTests.ringing()
      h.send(.turn(1))
      h.advance(seconds(10))
      if pauseFirst { h.send(.press(.start)) }
      let saved = h.state.saved(at: h.now)
      XCTAssertEqual(saved.extended, minutes(1))
      XCTAssertEqual(saved.duration, minutes(26))
      let (after, effects) = Engine.restore(saved, settings: EngineSettings(), now: Instant(nanoseconds: 5))
      XCTAssertTrue(effects.isEmpty)
      var r = Harness(start: Instant(nanoseconds: 5))
      r.state = after
      XCTAssertEqual(r.state.phase, .paused)
      XCTAssertEqual(r.state.title, "Focus 1/4")
      r.send(.press(.start))
      r.advance(seconds(50))
      XCTAssertEqual(r.state.phase, .ringing)
      XCTAssertEqual(r.state.focusDoneInCycle, 1, "not counted again")
      r.send(.press(.start))
      XCTAssertEqual(r.state.mode, .shortBreak)
      XCTAssertEqual(r.records.map(\.planned), [minutes(25)])
      XCTAssertEqual(r.records.map(\.actual), [minutes(26)])
      XCTAssertEqual(r.records.map(\.extended), [minutes(1)])
    }
  }
}
