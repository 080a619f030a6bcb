import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// Whole-device scenarios: edges in through the mock lines, the transcript out.
final class ScenarioTests: XCTestCase {
  func testDial25To27AndBack() throws {
    let s = try Scenario("turn +2\nwait 1s\nturn -2\n")
    XCTAssertEqual(s.totals, [1_500_000, 1_560_000, 1_620_000, 1_560_000, 1_500_000])
    XCTAssertEqual(s.phases, ["idle", "idle", "idle", "idle", "idle"])
    let shown = s.events("frame").map { $0["shown"]!.string! }
    XCTAssertEqual(shown.first, "25:00")
    XCTAssertTrue(shown.contains("27:00"))
    XCTAssertEqual(shown.last, "25:00")
  }

  func testStartPauseAtAFractionalSecondResumeAndTheAlarmIsExact() throws {
    let s = try Scenario(
      """
      press start
      wait 10.37s
      press start   # pause
      wait 7.5s
      press start   # resume
      wait 26m
      """)
    XCTAssertEqual(s.phases, ["idle", "running", "paused", "running", "ringing", "idle"])
    let st = s.states
    guard st.count == 6 else { return }
    // Start/pause acts at the press-down: the instant each press line starts (the contact
    // closes then; the press is known once it has settled, 20 ms later).
    XCTAssertEqual(s.t(st[1]), 0)
    let pausedAt = s.t(st[2])
    let resumedAt = s.t(st[3])
    XCTAssertEqual(pausedAt, 160 + 10_370)
    XCTAssertEqual(resumedAt, pausedAt + 160 + 7_500)
    XCTAssertEqual(st[2]["remaining_ms"]!.int!, 1_500_000 - pausedAt)
    let expectedAlarm = 1_500_000 + (resumedAt - pausedAt)
    XCTAssertEqual(s.t(st[4]), expectedAlarm)
    let buzzer = s.events("buzzer")
    XCTAssertEqual(buzzer.first.map(s.t), expectedAlarm, "the buzzer sounds at the deadline")
    XCTAssertEqual(buzzer.first?["on"], .bool(true))
    XCTAssertEqual(buzzer.last?["on"], .bool(false))
    // Nobody acknowledged: the alarm stopped by itself after 60 s.
    XCTAssertEqual(s.t(st[5]), expectedAlarm + 60_000)
  }

  func testCancelKeepsTheDialedDuration() throws {
    let s = try Scenario("turn +3\npress start\nwait 5s\npress cancel\n")
    XCTAssertEqual(s.phases.suffix(2), ["running", "idle"])
    XCTAssertEqual(s.states.last?["total_ms"], .int(28 * 60_000))
    XCTAssertEqual(s.states.last?["remaining_ms"], .int(28 * 60_000))
    let history = s.events("history")
    XCTAssertEqual(history.count, 1)
    XCTAssertEqual(history[0]["outcome"], .string("cancelled"))
  }

  func testFullFocusAcknowledgedThenShortBreakPreselected() throws {
    let s = try Scenario("press start\nwait 25m\nwait 3s\npress encoder\n")
    let last = s.states.last!
    XCTAssertEqual(last["phase"], .string("idle"))
    XCTAssertEqual(last["mode"], .string("short"))
    XCTAssertEqual(last["total_ms"], .int(300_000))
    let history = s.events("history")
    XCTAssertEqual(history.map { $0["outcome"]!.string! }, ["completed"])
    XCTAssertEqual(s.events("buzzer").last?["on"], .bool(false), "acknowledged: the buzzer is off")
    let summary = s.objects.last!
    XCTAssertEqual(summary["event"], .string("summary"))
    XCTAssertGreaterThan(summary["buzzer_on_ms"]!.int!, 0)
    XCTAssertLessThan(summary["buzzer_on_ms"]!.int!, 3_100)
  }

  func testEggPresetsAndPresetPressesIgnoredWhileRunning() throws {
    let s = try Scenario("press encoder\npress encoder\npress encoder\npress start\npress encoder\nwait 5m\n")
    let modes = s.states.map { $0["mode"]!.string! }
    XCTAssertEqual(Array(modes.prefix(4)), ["focus", "short", "long", "soft"])
    XCTAssertEqual(s.states[4]["phase"], .string("running"))
    XCTAssertEqual(s.states[4]["total_ms"], .int(300_000))
    XCTAssertEqual(s.states[5]["phase"], .string("ringing"), "the encoder press while running changed nothing")
    XCTAssertEqual(s.states[5]["mode"], .string("soft"))
  }

  func testBounceOnEveryEdgeChangesNothing() throws {
    let clean = try Scenario("turn +5\nturn -2 fast\npress start\nwait 2s\n")
    let bouncy = try Scenario("turn +5 bounce\nturn -2 fast bounce\npress start\nwait 2s\n")
    XCTAssertEqual(clean.totals, bouncy.totals)
    XCTAssertEqual(clean.phases, bouncy.phases)
  }

  func testHoldIsALongPress() throws {
    let s = try Scenario("turn +4\nhold encoder 1.5s\n")
    XCTAssertEqual(s.totals.last, 1_500_000, "a long push restores the preset")
  }

  func testClickSoundsOnEveryPressButNeverOverTheAlarm() throws {
    var config = DeviceConfig()
    config.click = true
    config.engine.presets[.focus] = seconds(5)
    let s = try Scenario("press cancel\nwait 1s\npress start\nwait 10s\npress encoder\n", config: config)
    let buzzer = s.events("buzzer").map { (s.t($0), $0["on"]!.bool!) }
    // Each click: on when the press settles (20 ms after it begins), off 15 ms later; the
    // first press (cancel: nothing to cancel, but it clicks) starts at 0, the second at 1160.
    XCTAssertEqual(Array(buzzer.prefix(4)).map { $0.0 }, [20, 35, 1180, 1195])
    XCTAssertEqual(Array(buzzer.prefix(4)).map { $0.1 }, [true, false, true, false])
    // The ring starts at its deadline; the acknowledging press does not click over it.
    let ringing = s.states.first { $0["phase"] == .string("ringing") }.map(s.t)
    XCTAssertEqual(buzzer.dropFirst(4).first?.0, ringing)
    XCTAssertEqual(buzzer.last?.1, false, "silent at the end")
  }

  func testBadScriptLineNamesItsNumberAndNothingRuns() {
    XCTAssertThrowsError(try ScriptParser.parse("press start\n\n# ok\nturn 5\n", file: "x.pomo")) { e in
      let e = e as! ScriptError
      XCTAssertEqual(e.line, 4)
      XCTAssertTrue(e.description.hasPrefix("x.pomo:4: expected `turn +N` or `turn -N`"), e.description)
    }
    let bad = ["jump", "press foot", "hold start", "wait 5", "turn +3 slow", "press", "wait 1m1m"]
    for line in bad {
      XCTAssertThrowsError(try ScriptParser.parse(line, file: "x"), line)
    }
  }

  /// `clock HH:MM` and `set KEY VALUE`: a bad one is refused before anything runs, with the
  /// config file's message for a bad value and the keys `set` takes for a key it does not.
  func testClockAndSetLinesAreCheckedBeforeAnythingRuns() throws {
    let ok = try ScriptParser.parse("clock 21:58\nset quiet_hours 22:00-07:00\nset quiet_hours\n", file: "x")
    XCTAssertEqual(
      ok.lines.map(\.step),
      [
        .clock(minuteOfDay: 21 * 60 + 58), .set(key: "quiet_hours", value: "22:00-07:00"),
        .set(key: "quiet_hours", value: ""),
      ])
    let cases = [
      ("clock 24:00", "x:2: expected `clock HH:MM`, a local time of day like 21:58, found '24:00'"),
      ("clock", "x:2: expected `clock HH:MM`"),
      ("set quiet_hours 22-07", "x:2: bad value '22-07' for 'quiet_hours': '22' is no time of day"),
      ("set controller sh1106", "x:2: 'controller' is no key `set` takes; it takes "),
      ("set", "x:2: expected `set KEY VALUE`"),
    ]
    for (line, message) in cases {
      XCTAssertThrowsError(try ScriptParser.parse("wait 1s\n\(line)\n", file: "x"), line) { e in
        XCTAssertTrue("\(e)".hasPrefix(message), "\(line): \(e)")
      }
    }
  }

  func testTranscriptKeysAreInTheDocumentedOrder() throws {
    let s = try Scenario("press start\nwait 1s\n")
    XCTAssertTrue(
      s.lines[0].hasPrefix(
        #"{"t":0,"event":"state","phase":"idle","mode":"focus","remaining_ms":1500000,"total_ms":1500000}"#), s.lines[0]
    )
    XCTAssertTrue(s.lines.contains { $0.hasPrefix(#"{"t":"#) && $0.contains(#","event":"frame","bytes":"#) })
    XCTAssertTrue(s.lines.last!.hasPrefix(#"{"event":"summary","t":1160,"frames":"#), s.lines.last!)
  }
}
