import PomodoroCore
import XCTest

/// What a session was for (its label), the knob's label chooser, interruptions marked without
/// stopping the timer, and the daily goal.
final class LabelTests: XCTestCase {
  func label(_ text: String) throws -> SessionLabel { try XCTUnwrap(SessionLabel.parse(text).get()) }

  // MARK: - The label's rules

  func testALabelIsAtMostFortyCharactersWithoutControlCharactersAndEmptyIsNone() throws {
    XCTAssertEqual(try SessionLabel.parse("  Report  ").get()?.text, "Report")
    XCTAssertNil(try SessionLabel.parse("   ").get())
    XCTAssertNil(try SessionLabel.parse("").get())
    // Forty characters as a person counts them (an accented letter, an emoji with its modifier).
    let forty = String(repeating: "é", count: 39) + "👍🏽"
    XCTAssertEqual(try SessionLabel.parse(forty).get()?.text, forty)
    guard case .failure(let long) = SessionLabel.parse(forty + "x") else { return XCTFail("41 characters taken") }
    XCTAssertTrue(
      long.message.contains("at most 40 characters and 160 bytes of UTF-8, got 41 characters"), long.message)
    // Forty characters that stack marks: within the characters, over the bytes (every message
    // that carries a label is sized for 160).
    let stacked = String(repeating: "e\u{301}\u{301}", count: 40)
    XCTAssertEqual(stacked.count, 40)
    guard case .failure(let heavy) = SessionLabel.parse(stacked) else { return XCTFail("200 bytes taken") }
    XCTAssertEqual(
      heavy.message,
      "a label is at most 40 characters and 160 bytes of UTF-8, got 40 characters and 200 bytes; shorten it")
    let full = String(repeating: "\u{1F345}", count: 40)
    XCTAssertEqual(try SessionLabel.parse(full).get()?.text, full, "40 four-byte letters: 160 bytes, taken")
    for bad in ["a\tb", "line\nbreak", "esc\u{1B}[31m", "del\u{7F}", "c1\u{85}", "sep\u{2028}"] {
      guard case .failure(let refusal) = SessionLabel.parse(bad) else {
        XCTFail("\(bad.debugDescription) taken")
        continue
      }
      XCTAssertTrue(refusal.message.contains("control characters"), refusal.message)
    }
    // Printable ASCII (read without counting characters one by one) follows the same rules.
    XCTAssertEqual(try SessionLabel.parse(String(repeating: "a", count: 40)).get()?.text.count, 40)
    guard case .failure = SessionLabel.parse(String(repeating: "a", count: 41)) else {
      return XCTFail("41 ASCII characters taken")
    }
    XCTAssertEqual(try SessionLabel.parse("a b").get()?.text, "a b")
    // Markup is text like any other: the page shows it as typed.
    XCTAssertEqual(try SessionLabel.parse("<img src=x onerror=alert(1)>").get()?.text, "<img src=x onerror=alert(1)>")
  }

  func testRecentLabelsKeepTheNewestFirstOnceEachAndAtMostEight() throws {
    var recent: [SessionLabel] = []
    for n in 1...10 { recent = SessionLabel.remembering(try label("L\(n)"), in: recent) }
    XCTAssertEqual(recent.map(\.text), ["L10", "L9", "L8", "L7", "L6", "L5", "L4", "L3"])
    recent = SessionLabel.remembering(try label("L6"), in: recent)
    XCTAssertEqual(recent.map(\.text), ["L6", "L10", "L9", "L8", "L7", "L5", "L4", "L3"])
  }

  // MARK: - A label on the sessions

  func testALabelSetWhileRunningIsTheRunningSessionsAndStaysForTheNextOnes() throws {
    var h = Harness()
    h.send(.press(.start))
    h.advance(minutes(5))
    h.send(.setLabel(try label("Report")))
    h.advance(minutes(20))  // Rings.
    h.send(.press(.start))  // Acknowledged: recorded.
    h.send(.press(.start))  // The short break, still labelled.
    h.send(.press(.cancel))
    XCTAssertEqual(h.records.map(\.label?.text), ["Report", "Report"])
    XCTAssertEqual(h.state.label?.text, "Report")
    h.send(.setLabel(nil))
    h.send(.press(.start))
    h.send(.press(.cancel))
    XCTAssertEqual(h.records.last?.label, nil, "cleared: the next session has none")
    XCTAssertEqual(h.state.recentLabels.map(\.text), ["Report"], "clearing keeps the recent ones")
  }

  // MARK: - The knob's label chooser

  func testPastTheLastModeTheKnobOpensTheLabelChooserOnlyWhenThereAreLabels() throws {
    var h = Harness(settings: EngineSettings(modes: [.focus, .shortBreak]))
    h.send(.press(.encoder))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .focus, "no labels: the cycle wraps as it always did")
    XCTAssertNil(h.state.labelChoice)
    h.send(.setLabel(try label("Mail")))
    h.send(.setLabel(try label("Report")))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.mode, .shortBreak)
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.labelChoice, 0, "opens on the label in use")
    XCTAssertEqual(h.state.labelChoices.map { $0?.text }, ["Report", "Mail", nil])
    XCTAssertEqual(h.state.title, "Label for what next?")
    h.send(.turn(1))
    XCTAssertEqual(h.state.labelChoice, 1)
    h.send(.turn(5))
    XCTAssertEqual(h.state.labelChoice, 2, "stops at no label")
    h.send(.turn(-1))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.label?.text, "Mail")
    XCTAssertNil(h.state.labelChoice)
    XCTAssertEqual(h.state.mode, .focus, "the push goes on to the cycle's first mode")
    XCTAssertEqual(h.state.recentLabels.map(\.text), ["Mail", "Report"])
  }

  func testInTheChooserStartTakesTheLabelAndStartsAndCancelChangesNothing() throws {
    var h = Harness(settings: EngineSettings(modes: [.focus]))
    h.send(.setLabel(try label("Report")))
    h.send(.press(.encoder))
    h.send(.turn(1))  // No label.
    h.send(.press(.cancel))
    XCTAssertNil(h.state.labelChoice)
    XCTAssertEqual(h.state.label?.text, "Report", "cancel leaves the label")
    XCTAssertEqual(h.state.phase, .idle)
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.startLabel, "Start")
    h.send(.turn(1))
    h.send(.press(.start))
    XCTAssertNil(h.state.label, "no label chosen")
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.state.mode, .focus)
  }

  func testACommandClosesTheChooser() throws {
    var h = Harness(settings: EngineSettings(modes: [.focus]))
    h.send(.setLabel(try label("Report")))
    h.send(.press(.encoder))
    XCTAssertNotNil(h.state.labelChoice)
    h.send(.select(.shortBreak))
    XCTAssertNil(h.state.labelChoice)
    XCTAssertEqual(h.state.mode, .shortBreak)
  }

  // MARK: - Interruptions

  func testTheKnobsPushDuringAFocusMarksAnInterruptionAndTheTimerRunsOn() throws {
    var h = Harness()
    h.send(.press(.start))
    h.advance(minutes(3))
    let before = h.state.remaining(at: h.now)
    XCTAssertTrue(Engine.actsAtPressDown(.encoder, in: h.state), "marked at press-down, short or long alike")
    h.send(.press(.encoder))
    h.send(.longPress(.encoder))
    h.send(.interrupt(.external))
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.state.mode, .focus)
    XCTAssertEqual(h.state.remaining(at: h.now), before, "the timer is untouched")
    XCTAssertEqual(h.state.interruptions, Interruptions(internal: 2, external: 1))
    XCTAssertEqual(h.state.interruptionAcknowledged(at: h.now), .external)
    XCTAssertNil(h.state.interruptionAcknowledged(at: h.now + EngineState.interruptionShown), "a short while")
    h.advance(minutes(22))
    h.send(.press(.start))
    XCTAssertEqual(h.records.first?.interruptions, Interruptions(internal: 2, external: 1))
    XCTAssertNil(h.state.interruptions, "no timer, no count")
  }

  func testInterruptionsAreForARunningFocusOnly() throws {
    var h = Harness()
    h.send(.interrupt(.internal))  // Idle.
    h.send(.select(.shortBreak))
    h.send(.press(.start))
    h.send(.press(.encoder))  // A break: ignored, as the knob's push always was under a timer.
    h.send(.interrupt(.external))
    XCTAssertEqual(h.state.interruptions, Interruptions())
    h.send(.press(.cancel))
    h.send(.select(.focus))
    h.send(.press(.start))
    h.send(.press(.start))  // Paused.
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.interruptions, Interruptions(), "a paused focus is not interrupted")
    h.send(.press(.start))
    h.send(.select(.flow))  // Ignored under a timer.
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.interruptions, Interruptions(internal: 1))
    h.send(.press(.cancel))
    h.send(.select(.flow))
    h.send(.press(.start))
    h.send(.interrupt(.external))
    XCTAssertEqual(h.state.interruptions, Interruptions(external: 1), "a flow is focus too")
  }

  func testInterruptionsSurviveARestart() throws {
    var h = Harness()
    h.send(.setLabel(try label("Report")))
    h.send(.press(.start))
    h.send(.interrupt(.internal))
    h.send(.interrupt(.external))
    let saved = h.state.saved(at: h.now)
    let (back, _) = Engine.restore(saved, settings: EngineSettings(), now: Instant(nanoseconds: 5))
    XCTAssertEqual(back.interruptions, Interruptions(internal: 1, external: 1))
    XCTAssertEqual(back.label?.text, "Report")
    XCTAssertEqual(back.recentLabels.map(\.text), ["Report"])
  }

  // MARK: - The daily goal

  func testTheGoalIsMetAtTodaysCountAndNeverWhenOff() throws {
    var h = Harness(settings: EngineSettings(dailyGoal: 2))
    h.send(.setCompletedToday(1))
    XCTAssertFalse(h.state.goalMet)
    h.send(.press(.start))
    h.advance(minutes(25))
    XCTAssertTrue(h.state.goalMet)
    h.send(.configure(EngineSettings(dailyGoal: 0)))
    XCTAssertFalse(h.state.goalMet, "0 turns it off")
  }
}
