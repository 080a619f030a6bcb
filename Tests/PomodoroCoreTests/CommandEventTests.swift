import PomodoroCore
import XCTest

/// The events the control socket sends (skip, extend, select, setDuration), in every phase.
final class CommandEventTests: XCTestCase {
  /// A harness in `phase`: a focus started, paused after 1 min, or run to its alarm.
  static func harness(in phase: Phase) -> Harness {
    var h = Harness()
    switch phase {
    case .idle: break
    case .running:
      h.send(.press(.start))
      h.advance(minutes(1))
    case .paused:
      h.send(.press(.start))
      h.advance(minutes(1))
      h.send(.press(.start))
    case .ringing:
      h.send(.press(.start))
      h.advance(minutes(25))
    }
    XCTAssertEqual(h.state.phase, phase)
    return h
  }

  struct Expected {
    var phase: Phase
    var mode: Mode
    var duration: Nanoseconds
    var remaining: Nanoseconds
  }

  /// The table: every command event in every phase, and what it leaves.
  func testEveryCommandEventInEveryPhase() {
    let m = minutes
    let table: [(Event, Phase, Expected)] = [
      (.skip, .idle, Expected(phase: .idle, mode: .shortBreak, duration: m(5), remaining: m(5))),
      (.skip, .running, Expected(phase: .idle, mode: .shortBreak, duration: m(5), remaining: m(5))),
      (.skip, .paused, Expected(phase: .idle, mode: .shortBreak, duration: m(5), remaining: m(5))),
      (.skip, .ringing, Expected(phase: .idle, mode: .shortBreak, duration: m(5), remaining: m(5))),
      (.extend(m(5)), .idle, Expected(phase: .idle, mode: .focus, duration: m(25), remaining: m(25))),
      (.extend(m(5)), .running, Expected(phase: .running, mode: .focus, duration: m(30), remaining: m(29))),
      (.extend(m(5)), .paused, Expected(phase: .paused, mode: .focus, duration: m(30), remaining: m(29))),
      (.extend(m(5)), .ringing, Expected(phase: .running, mode: .focus, duration: m(30), remaining: m(5))),
      (.select(.soft), .idle, Expected(phase: .idle, mode: .soft, duration: m(5), remaining: m(5))),
      (.select(.soft), .running, Expected(phase: .running, mode: .focus, duration: m(25), remaining: m(24))),
      (.select(.soft), .paused, Expected(phase: .paused, mode: .focus, duration: m(25), remaining: m(24))),
      (.select(.soft), .ringing, Expected(phase: .ringing, mode: .focus, duration: m(25), remaining: 0)),
      (.setDuration(m(42)), .idle, Expected(phase: .idle, mode: .focus, duration: m(42), remaining: m(42))),
      (.setDuration(m(42)), .running, Expected(phase: .running, mode: .focus, duration: m(25), remaining: m(24))),
      (.setDuration(m(42)), .paused, Expected(phase: .paused, mode: .focus, duration: m(25), remaining: m(24))),
      (.setDuration(m(42)), .ringing, Expected(phase: .ringing, mode: .focus, duration: m(25), remaining: 0)),
    ]
    for (event, phase, want) in table {
      var h = Self.harness(in: phase)
      h.send(event)
      let got = Expected(
        phase: h.state.phase, mode: h.state.mode, duration: h.state.duration!, remaining: h.state.remaining(at: h.now)!)
      XCTAssertEqual(got.phase, want.phase, "\(event) in \(phase)")
      XCTAssertEqual(got.mode, want.mode, "\(event) in \(phase)")
      XCTAssertEqual(got.duration, want.duration, "\(event) in \(phase)")
      XCTAssertEqual(got.remaining, want.remaining, "\(event) in \(phase)")
    }
  }

  func testExtendWhileRunningMovesTheAlarmByExactlyThatMuch() {
    var h = Self.harness(in: .running)
    let started = h.now - minutes(1)
    h.send(.extend(minutes(5)))
    h.advance(minutes(29))
    XCTAssertEqual(h.alarmsOn, [started + minutes(30)])
    h.send(.press(.cancel))
    XCTAssertEqual(h.records.first?.planned, minutes(30), "added before the first zero: planned, not extended")
    XCTAssertEqual(h.records.first?.extended, 0)
  }

  func testExtendWhileRingingIsASnoozeSilencingTheAlarmAndCountedAsExtended() {
    var h = Self.harness(in: .ringing)
    h.send(.extend(minutes(5)))
    XCTAssertEqual(h.effects.last { $0.1 == .alarm(false) }?.0, h.now)
    h.advance(ms(300))
    h.send(.turn(1))
    XCTAssertEqual(h.state.duration, minutes(30), "a command's snooze is no knob spin: a later detent is ignored")
    h.advance(minutes(5))
    h.send(.press(.start))
    XCTAssertEqual(h.records.map(\.extended), [minutes(5)])
  }

  func testSkipEndsARunningTimerAsACancelAndNeverAutoStarts() {
    var settings = EngineSettings()
    settings.autoStart = true
    var h = Harness(settings: settings)
    h.send(.press(.start))
    h.advance(minutes(3))
    h.send(.skip)
    XCTAssertEqual(h.records.map(\.outcome), [.cancelled])
    XCTAssertEqual(h.state.phase, .idle)
    h.send(.press(.start))
    h.advance(minutes(5))
    h.send(.skip)
    XCTAssertEqual(h.state.phase, .idle, "skipping an alarm does not auto-start what follows")
    XCTAssertEqual(h.state.mode, .focus)
  }

  func testSkipStepsEggPresetsAndTheLongBreakAfterTheFourth() {
    var h = Harness()
    h.send(.select(.hard))
    h.send(.skip)
    XCTAssertEqual(h.state.mode, .focus)
    h.send(.select(.soft))
    h.send(.skip)
    XCTAssertEqual(h.state.mode, .medium)
    h.send(.select(.focus))
    for _ in 0..<3 {
      h.send(.press(.start))
      h.advance(h.state.duration!)
      h.send(.press(.start))  // Acknowledge: a break is preselected.
      h.send(.skip)  // Skip the break.
    }
    XCTAssertEqual(h.state.mode, .focus)
    h.send(.press(.start))
    h.advance(h.state.duration!)
    h.send(.press(.start))
    XCTAssertEqual(h.state.mode, .longBreak, "skipped breaks do not reset the cycle")
  }

  func testSetDurationClampsToTheDial() {
    var h = Harness()
    h.send(.setDuration(seconds(1)))
    XCTAssertEqual(h.state.duration, Dial.shortest)
    h.send(.setDuration(minutes(60 * 30)))
    XCTAssertEqual(h.state.duration, Dial.longest)
    h.send(.extend(minutes(5)))
    XCTAssertEqual(h.state.duration, Dial.longest, "ignored while idle")
  }
}
