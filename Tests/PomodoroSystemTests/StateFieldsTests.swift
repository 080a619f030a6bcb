import PomodoroControl
import PomodoroCore
import PomodoroSystem
import XCTest

/// The state's fields are built once (StateFields) for the transcript, the journal, the control
/// socket and the bridge.
final class StateFieldsTests: XCTestCase {
  func running() -> (EngineState, Instant) {
    let t0 = Instant(nanoseconds: seconds(100))
    let label = try? SessionLabel.parse("Report").get()
    let (labelled, _) = Engine.step(EngineState(now: t0), .setLabel(label), now: t0)
    let (state, _) = Engine.step(labelled, .press(.start), now: t0)
    return (state, t0 + seconds(90))
  }

  func testFullGivesEveryNamedFieldInOrderWhileRunningWithASyncedClock() {
    // In a room, with the bridge heard and a session held: the room's fields too.
    let t0 = Instant(nanoseconds: seconds(100))
    let label = try? SessionLabel.parse("Report").get()
    var state = EngineState(now: t0)
    for event: Event in [
      .setLabel(label), .setRoom(RoomIdentity(name: "team", desk: "desk-a")),
      .roomView(RoomView(desk: "desk-a", broker: true, clockTrusted: true, others: [])), .setPresent(false),
      .press(.start),
    ] {
      state = Engine.step(state, event, now: t0).0
    }
    let now = t0 + seconds(90)
    let full = StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: true))
    let flowOnly = ["elapsed_ms", "earned_break_ms", "earned_break_next_ms"]
    let idleOnly = ["picker", "picker_names", "picker_presets_ms", "dial_min_ms", "dial_max_ms"]
    XCTAssertEqual(full.map(\.0), StateFields.names.filter { !(flowOnly + idleOnly).contains($0) })
    XCTAssertEqual(Array(full.prefix(4)).map(\.0), StateFields.core(state, at: now).map(\.0), "core leads")
    XCTAssertEqual(full.first { $0.0 == "remaining" }?.1, .string("23:30"))
    XCTAssertEqual(full.first { $0.0 == "ends_at" }?.1.string?.isEmpty, false)
    XCTAssertEqual(full.first { $0.0 == "present" }?.1, .bool(false), "a desk with a presence sensor says it")
    XCTAssertNil(
      StateFields.full(running().0, at: now, wall: nil).first { $0.0 == "present" }, "a desk without one does not")
    XCTAssertNil(
      StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: false)).first {
        $0.0 == "ends_at"
      }, "no end without a synchronised clock")
  }

  func testAFlowCarriesItsCountAndItsEarnedBreakAndNoEnd() {
    let t0 = Instant(nanoseconds: seconds(100))
    var state = Engine.step(EngineState(now: t0), .select(.flow), now: t0).0
    XCTAssertEqual(
      StateFields.logText(StateFields.core(state, at: t0)),
      "phase=idle mode=flow elapsed_ms=0 earned_break_ms=0", "a flow has no time left and no length: it counts up")
    state = Engine.step(state, .press(.start), now: t0).0
    let now = t0 + seconds(12 * 60 + 34) + ms(567)
    let full = StateFields.full(state, at: now, wall: WallTime(epochSeconds: 1_796_040_000, synced: true))
    XCTAssertEqual(
      full.map(\.0),
      [
        "phase", "mode", "elapsed_ms", "earned_break_ms", "remaining", "title", "today", "goal", "goal_met",
        "interruptions", "interruptions_internal", "interruptions_external", "profile", "profiles", "kind", "start",
        "cancel", "can_extend",
        "can_skip", "can_interrupt", "progress_ms", "progress_total_ms", "earned_break_next_ms", "recent_labels",
      ])
    XCTAssertEqual(full.first { $0.0 == "title" }?.1, .string(state.title), "the panel's title")
    XCTAssertEqual(full.first { $0.0 == "today" }?.1, .int(0))
    XCTAssertEqual(full.first { $0.0 == "elapsed_ms" }?.1, .int(754_567))
    XCTAssertEqual(full.first { $0.0 == "earned_break_ms" }?.1, .int(180_000), "12:34.567 / 5 is 2:31: 3 min")
    XCTAssertEqual(full.first { $0.0 == "remaining" }?.1, .string("12:34"), "the time counted, as on the panel")
    XCTAssertEqual(
      ControlProtocol.text(Dictionary(full, uniquingKeysWith: { a, _ in a })), "running  flow  12:34, break 3:00 earned"
    )
  }

  /// `can_interrupt` says what the device takes: in every phase of every mode, true exactly where
  /// `interrupt` (either kind) is taken.
  func testCanInterruptIsWhereTheDeviceTakesAnInterruption() {
    let t0 = Instant(nanoseconds: seconds(100))
    var seen = 0
    for mode in Mode.allCases {
      var state = Engine.step(EngineState(now: t0), .select(mode), now: t0).0
      var states = [state]
      state = Engine.step(state, .press(.start), now: t0).0
      states.append(state)
      states.append(Engine.step(state, .press(.start), now: t0 + seconds(1)).0)
      for s in states {
        let field = StateFields.full(s, at: t0 + seconds(2), wall: nil).first { $0.0 == "can_interrupt" }?.1
        for kind in Interruption.allCases {
          let taken = (try? ControlProtocol.events(for: .interrupt(kind), in: s.phase, mode: s.mode).get()) != nil
          XCTAssertEqual(field, .bool(taken), "\(mode) \(s.phase) \(kind)")
          if taken { seen += 1 }
        }
      }
    }
    XCTAssertEqual(seen, 4, "a running focus and a running flow, both kinds")
  }

  func testTheJournalsFormAndTheBridgesOrder() {
    let (state, now) = running()
    XCTAssertEqual(
      StateFields.logText(StateFields.core(state, at: now)),
      "phase=running mode=focus remaining_ms=1410000 total_ms=1500000")
    let full = StateFields.full(state, at: now, wall: nil)
    let shuffled = Dictionary(
      full.reversed().map { ($0.0, $0.1) } + [("other", .int(1))], uniquingKeysWith: { a, _ in a })
    XCTAssertEqual(StateFields.ordered(shuffled).map(\.0), full.map(\.0), "names order, unknown keys dropped")
  }

  /// What a view draws beside the time comes from the engine's own rules: the buttons' labels
  /// and what they offer in each phase, the bar, and while idle the picker from `modes` with the
  /// presets the settings give (a changed preset or list reaches the page with no change to it).
  func testTheViewFieldsFollowTheEngine() throws {
    let t0 = Instant(nanoseconds: seconds(100))
    let settings = EngineSettings(
      presets: EngineSettings.defaultPresets.merging([.focus: minutes(30), .soft: minutes(6)]) { $1 },
      modes: [.soft, .focus, .flow])
    var state = EngineState(settings: settings, now: t0)
    func view(_ s: EngineState, _ at: Instant) -> [String: JSONValue] {
      Dictionary(StateFields.view(s, at: at), uniquingKeysWith: { a, _ in a })
    }
    var v = view(state, t0)
    XCTAssertEqual(v["kind"], .string("focus"))
    XCTAssertEqual(v["start"], .string("Start"))
    XCTAssertNil(v["cancel"], "no timer: no cancel")
    XCTAssertEqual(v["can_extend"], .bool(false))
    XCTAssertEqual(v["can_skip"], .bool(true))
    XCTAssertEqual(v["picker"], .list([.string("soft"), .string("focus"), .string("flow")]), "the knob's modes")
    XCTAssertEqual(v["picker_names"], .list([.string("Soft"), .string("Focus"), .string("Flow")]))
    XCTAssertEqual(v["picker_presets_ms"], .list([.int(360_000), .int(1_800_000), .null]), "a flow has no preset")
    XCTAssertEqual(v["dial_min_ms"], .int(5000))
    XCTAssertEqual(v["progress_ms"], .int(0))
    XCTAssertEqual(v["progress_total_ms"], .int(1_800_000))

    state = Engine.step(state, .press(.start), now: t0).0
    v = view(state, t0 + minutes(3))
    XCTAssertEqual(v["start"], .string("Pause"))
    XCTAssertEqual(v["cancel"], .string("Cancel"))
    XCTAssertEqual(v["can_extend"], .bool(true))
    XCTAssertEqual(v["progress_ms"], .int(180_000), "the time counted of the length")
    XCTAssertNil(v["picker"], "the picker is the idle screen's")
    state = Engine.step(state, .press(.start), now: t0 + minutes(3)).0
    XCTAssertEqual(view(state, t0 + minutes(4))["start"], .string("Resume"))
    state = Engine.step(state, .press(.start), now: t0 + minutes(4)).0
    state = Engine.step(state, .tick, now: t0 + minutes(31)).0
    XCTAssertEqual(state.phase, .ringing)
    v = view(state, t0 + minutes(31))
    XCTAssertEqual(v["start"], .string("Stop"))
    XCTAssertNil(v["cancel"])
    XCTAssertEqual(v["can_skip"], .bool(false))
    XCTAssertEqual(v["can_extend"], .bool(true), "a snooze")

    var flow = Engine.step(EngineState(settings: settings, now: t0), .select(.flow), now: t0).0
    flow = Engine.step(flow, .press(.start), now: t0).0
    v = view(flow, t0 + minutes(12))
    XCTAssertEqual(v["kind"], .string("flow"))
    XCTAssertEqual(v["cancel"], .string("End"))
    XCTAssertEqual(v["can_extend"], .bool(false), "a flow has no end to move")
    XCTAssertEqual(v["progress_ms"], .int(120_000), "the bar is the break earned: 12 min / 5")
    XCTAssertEqual(v["progress_total_ms"], .int(wholeMilliseconds(settings.longBreak)))
    XCTAssertEqual(v["earned_break_next_ms"], .int(750_000), "3 min from 12:30 (2:30 x 5)")
  }

  /// The time at which a flow's earned break next changes is where `earnedBreak` changes: the
  /// same value up to it, another from it, at every second of three hours, at two ratios.
  func testTheEarnedBreakChangesWhereItSays() {
    for ratio in [5, 3] {
      let settings = EngineSettings(flowBreakRatio: ratio)
      var elapsed: Nanoseconds = 0
      while elapsed < hours(3) {
        let value = settings.earnedBreak(elapsed)
        guard let next = settings.earnedBreakChanges(after: elapsed) else {
          XCTAssertEqual(value, settings.longBreak, "nil only at the ceiling")
          XCTAssertEqual(settings.earnedBreak(hours(10)), value)
          break
        }
        XCTAssertGreaterThan(next, elapsed)
        XCTAssertEqual(settings.earnedBreak(next - 1), value, "ratio \(ratio), at \(elapsed): unchanged before")
        XCTAssertNotEqual(settings.earnedBreak(next), value, "ratio \(ratio), at \(elapsed): changed at \(next)")
        elapsed += seconds(1)
      }
    }
  }
}
