import PomodoroCore
import XCTest

@testable import PomodoroGraphics

/// The controls on every screen, the fades back to idle, everything fitting, and the pixel shift.
final class ScreenControlsTests: XCTestCase {
  private let t0 = Instant(nanoseconds: 5_000 * nanosecondsPerSecond)

  private func step(_ s: EngineState, _ e: Event, _ at: Nanoseconds) -> EngineState {
    Engine.step(s, e, now: t0 + at).0
  }

  /// One state of each phase in `mode`, with the instant to draw it at.
  private func phases(_ mode: Mode, settings: EngineSettings = EngineSettings()) -> [(EngineState, Instant)] {
    var idle = EngineState(settings: settings, now: t0)
    while idle.mode != mode { idle = step(idle, .press(.encoder), 0) }
    let running = step(idle, .press(.start), 0)
    let paused = step(running, .press(.start), seconds(3))
    let ringing = step(running, .tick, running.duration ?? Engine.longestFlow)
    return [
      (idle, t0 + seconds(1)), (running, t0 + seconds(2)), (paused, t0 + seconds(9)),
      (ringing, t0 + (running.duration ?? Engine.longestFlow) + seconds(2)),
    ]
  }

  private func texts(_ m: ScreenModel, height: Int) -> [PlacedText] {
    var texts: [PlacedText] = []
    _ = height == 64 ? FullLayout.draw(m, texts: &texts) : CompactLayout.draw(m, texts: &texts)
    return texts
  }

  func testTheFooterSaysWhatStartDoesAndShowsCancelOnlyWhileATimerExists() {
    let expected = [
      ("Start", false, "Turn: set  Push: mode"), ("Pause", true, nil), ("Resume", true, "Turn: set"),
      ("Stop", false, "Turn: +1 min"),
    ]
    // In a flow the knob does nothing but the picker's push; the footer shows the earned break.
    let flow = [("Start", false, "Push: mode"), ("Pause", true, nil), ("Resume", true, nil), ("Stop", false, nil)]
    for mode in Mode.allCases {
      for ((state, now), (label, cancel, knob)) in zip(phases(mode), mode == .flow ? flow : expected) {
        let model = ScreenModel(state: state, now: now)
        XCTAssertEqual(model.startLabel, label)
        XCTAssertEqual(model.canCancel, cancel)
        XCTAssertEqual(model.knobHint, knob)
        let full = texts(model, height: 64).filter { $0.y >= FullLayout.footerY }.map(\.text)
        XCTAssertTrue(full.contains(label), "\(mode) \(state.phase): \(full)")
        XCTAssertEqual(full.contains(mode == .flow ? "End" : "Cancel"), cancel, "\(mode) \(state.phase): \(full)")
        if let knob { XCTAssertTrue(full.contains(knob), "\(mode) \(state.phase): \(full)") }
        let compact = texts(model, height: 32).map(\.text)
        XCTAssertTrue(compact.contains(label), "128x32 \(mode) \(state.phase): \(compact)")
      }
    }
  }

  /// With hours (H:MM:SS) too, up to the dial's 23:59:59: every phase of both heights keeps the
  /// start button's action and shows cancel exactly while a timer exists; on 128x32 the time
  /// takes the medium digits then, and the cancel mark sits on the column's second row in
  /// every phase (it was on the first while paused, the second while running).
  func testWithHoursBothHeightsKeepTheActionAndTheCancelMarkStaysOnItsRow() {
    var settings = EngineSettings()
    var checked = 0
    let presets = [minutes(25), seconds(3600 + 5 * 60), seconds(6 * 3600 + 56 * 60), seconds(12 * 3600 + 34 * 60 + 56)]
    for preset in presets + [Dial.longest] {
      for mode in Mode.allCases { settings.presets[mode] = preset }
      for mode in Mode.allCases {
        for (state, now) in phases(mode, settings: settings) {
          let model = ScreenModel(state: state, now: now)
          let what = "\(mode) \(state.phase) \(model.timeText)"
          let full = texts(model, height: 64).map(\.text)
          XCTAssertTrue(full.contains(model.startLabel), "128x64 \(what): \(full)")
          XCTAssertEqual(full.contains(model.cancelLabel), model.canCancel, "128x64 \(what): \(full)")
          let compact = texts(model, height: 32)
          XCTAssertTrue(compact.map(\.text).contains(model.startLabel), "128x32 \(what): \(compact)")
          let marks = compact.filter { $0.text == "(\(model.cancelLabel.lowercased()))" }
          XCTAssertEqual(marks.count, model.canCancel ? 1 : 0, "128x32 \(what): \(compact)")
          for mark in marks { XCTAssertEqual(mark.y, CompactLayout.secondY + 1, "128x32 \(what): the mark's row") }
          if state.phase != .ringing {
            let time = compact.first { $0.text == model.timeText }
            XCTAssertEqual(
              time?.height, model.timeText.count > 5 ? Font.mediumDigits.height : Font.bigDigits.height,
              "128x32 \(what): \(compact)")
          }
          checked += 1
        }
      }
    }
    XCTAssertEqual(checked, 5 * 7 * 4)
    XCTAssertEqual(Font.mediumDigits.width("23:59:59"), 92)
    for c in "0123456789:" { XCTAssertEqual(Font.mediumDigits.glyph(c)?.height, 21, "medium digit \(c)") }
  }

  func testEverythingDrawnFitsOnThePanelWithoutOverlapping() {
    var settings = EngineSettings()
    var checked = 0
    for preset in [seconds(5), minutes(25), seconds(3600 + 5 * 60), seconds(12 * 3600 + 34 * 60), Dial.longest] {
      for mode in Mode.allCases { settings.presets[mode] = preset }
      for mode in Mode.allCases {
        for (state, now) in phases(mode, settings: settings) {
          for dots in [0, 1, 2, 4, 5, 9, 12, 100] {
            for restored in [false, true] {
              var model = ScreenModel(state: state, now: now)
              model.dots = dots
              model.restored = restored && state.phase == .paused
              for height in [64, 32] {
                let placed = texts(model, height: height)
                for t in placed {
                  XCTAssertTrue(
                    t.x >= 0 && t.y >= 0 && t.x + t.width <= 128 && t.y + t.height <= height,
                    "128x\(height) \(mode) \(state.phase) dots \(dots): \(t) is clipped")
                }
                for (i, a) in placed.enumerated() {
                  for b in placed[(i + 1)...] where overlaps(a, b) && !contains(a, b) && !contains(b, a) {
                    XCTFail("128x\(height) \(mode) \(state.phase) dots \(dots): \(a) overlaps \(b)")
                  }
                }
                checked += 1
              }
            }
          }
        }
      }
    }
    XCTAssertGreaterThan(checked, 1000)
  }

  /// The label under the title (the widest 40 characters), the goal's count (met, and the
  /// widest), the interruptions and the label chooser fit with everything else, in every phase.
  func testLabelsGoalsInterruptionsAndTheChooserFitWithoutOverlapping() {
    let widest = String(repeating: "W", count: 40)
    let extras: [(String, (inout ScreenModel) -> Void)] = [
      ("label", { $0.sessionLabel = widest }),
      ("goal", { $0.goal = ScreenModel.Goal(today: 3, goal: 8) }),
      ("goal met wide", { $0.goal = ScreenModel.Goal(today: 99, goal: 99) }),
      ("interruptions", { $0.interruptionsText = "'999 -999" }),
      (
        "all",
        {
          $0.sessionLabel = widest
          $0.goal = ScreenModel.Goal(today: 12, goal: 8)
          $0.interruptionsText = "'3 -2"
        }
      ),
      (
        "chooser",
        {
          $0.chooser = ScreenModel.Chooser(entries: [widest, "a", widest, nil], selected: 3)
          $0.knobHint = ScreenModel.chooserHint
        }
      ),
    ]
    var settings = EngineSettings()
    var checked = 0
    for preset in [minutes(25), seconds(12 * 3600 + 34 * 60), Dial.longest] {
      for mode in Mode.allCases { settings.presets[mode] = preset }
      for mode in Mode.allCases {
        for (state, now) in phases(mode, settings: settings) {
          for (name, apply) in extras {
            var model = ScreenModel(state: state, now: now)
            apply(&model)
            for height in [64, 32] {
              let placed = texts(model, height: height)
              let what = "128x\(height) \(mode) \(state.phase) \(name)"
              for t in placed {
                XCTAssertTrue(
                  t.x >= 0 && t.y >= 0 && t.x + t.width <= 128 && t.y + t.height <= height, "\(what): \(t) is clipped")
              }
              for (i, a) in placed.enumerated() {
                for b in placed[(i + 1)...] where overlaps(a, b) && !contains(a, b) && !contains(b, a) {
                  XCTFail("\(what): \(a) overlaps \(b)")
                }
              }
              checked += 1
            }
          }
        }
      }
    }
    XCTAssertGreaterThan(checked, 500)
  }

  private func overlaps(_ a: PlacedText, _ b: PlacedText) -> Bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
  }

  private func contains(_ a: PlacedText, _ b: PlacedText) -> Bool {
    a.x <= b.x && a.y <= b.y && b.x + b.width <= a.x + a.width && b.y + b.height <= a.y + a.height
  }

  func testEveryReturnToIdleDissolvesAndResumeAndPauseCutAtOnce() {
    // Egg alarms ring until stopped by default; give them a timeout so that one can pass.
    var settings = EngineSettings()
    settings.eggAlarmTimeout = minutes(1)
    for mode in [Mode.focus, .soft] {
      let all = phases(mode, settings: settings)
      let (running, paused, ringing) = (all[1].0, all[2].0, all[3].0)
      let end = running.duration ?? Engine.longestFlow
      let returns: [(String, EngineState)] = [
        ("cancel while running", step(running, .press(.cancel), seconds(4))),
        ("cancel while paused", step(paused, .press(.cancel), seconds(20))),
        ("stop the alarm", step(ringing, .press(.start), end + seconds(3))),
        ("the alarm times out", step(ringing, .tick, end + minutes(5))),
      ]
      for (what, idle) in returns {
        XCTAssertEqual(idle.phase, .idle, what)
        let since = idle.phaseSince
        let still = renderScreen(ScreenModel(state: idle, now: since + ScreenTiming.transition))
        var before: Framebuffer?
        for k in 0..<ScreenTiming.transitionSteps {
          let now = since + Int64(k) * ScreenTiming.transitionStep
          let model = ScreenModel(state: idle, now: now)
          XCTAssertEqual(model.transition?.from, idle.previousPhase, "\(mode) \(what) step \(k)")
          XCTAssertEqual(model.transition?.step, k, "\(mode) \(what)")
          let mixed = renderScreen(model)
          XCTAssertNotEqual(mixed, still, "\(mode) \(what) step \(k) is still dissolving")
          // Every pixel comes from the screen left or the idle screen.
          var unmixed = model
          unmixed.transition = nil
          let from = renderScreen(unmixed.leaving(idle.previousPhase))
          for y in 0..<64 {
            for x in 0..<128 where mixed.pixel(x, y) != still.pixel(x, y) {
              XCTAssertEqual(mixed.pixel(x, y), from.pixel(x, y), "\(mode) \(what) (\(x),\(y))")
            }
          }
          if let before { XCTAssertNotEqual(before, mixed) }
          before = mixed
        }
        XCTAssertNil(ScreenModel(state: idle, now: since + ScreenTiming.transition).transition, what)
      }
      let resumed = step(paused, .press(.start), seconds(30))
      XCTAssertNil(ScreenModel(state: resumed, now: t0 + seconds(30)).transition, "resume cuts")
      XCTAssertNil(ScreenModel(state: paused, now: t0 + seconds(3)).transition, "pause cuts")
      XCTAssertNotNil(ScreenModel(state: running, now: t0 + ms(10)).transition, "a start from idle dissolves")
    }
  }

  func testThePixelShiftOrbitsWithinOnePixelOneStepAtATime() {
    XCTAssertEqual(PixelShift.positions.count, 8)
    XCTAssertEqual(Set(PixelShift.positions).count, 8)
    XCTAssertEqual(PixelShift.orbit(step: 0), .zero)
    for k in -20...20 {
      let a = PixelShift.orbit(step: k)
      let b = PixelShift.orbit(step: k + 1)
      XCTAssertTrue(abs(a.dx) <= 1 && abs(a.dy) <= 1)
      XCTAssertEqual(abs(a.dx - b.dx) + abs(a.dy - b.dy), 1, "step \(k) to \(k + 1) moves one pixel")
      XCTAssertEqual(PixelShift.orbit(step: k + 8), a)
    }
  }

  func testAShiftedPictureMovesEveryPixelAndDropsWhatLeaves() {
    var rng = SystemRandomNumberGenerator()
    for height in [64, 32] {
      var fb = Framebuffer(width: 128, height: height)
      for i in fb.bytes.indices { fb.bytes[i] = UInt8.random(in: 0...255, using: &rng) }
      for (dx, dy) in [
        (0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (5, -3), (-127, 2), (200, 0), (3, 9), (0, -13),
        (-2, 31), (0, 8), (1, -16), (0, 70),
      ] {
        let moved = fb.shifted(dx: dx, dy: dy)
        for y in 0..<height {
          for x in 0..<128 {
            XCTAssertEqual(moved.pixel(x, y), fb.pixel(x - dx, y - dy), "128x\(height) by (\(dx),\(dy)) at (\(x),\(y))")
          }
        }
      }
    }
    let state = Engine.step(EngineState(now: t0), .press(.start), now: t0).0
    let at = t0 + seconds(65)
    for k in 0..<8 {
      let shift = PixelShift.orbit(step: k)
      XCTAssertEqual(
        renderScreen(state: state, now: at, shift: shift),
        renderScreen(state: state, now: at).shifted(dx: shift.dx, dy: shift.dy))
    }
    XCTAssertNotEqual(
      renderScreen(state: state, now: at, shift: PixelShift.orbit(step: 1)), renderScreen(state: state, now: at))
  }

  /// In a room whose bridge spoke: "N in focus" in the footer in the picker and while following
  /// the room, "~" in front when the clock is not trusted; nothing without a bridge's word.
  func testInARoomTheFooterCountsTheDesksInFocus() {
    let t0 = Instant(nanoseconds: seconds(100))
    var s = EngineState(now: t0)
    let others = [
      RoomView.Member(desk: "b", phase: .running, mode: .focus, label: nil, following: true),
      RoomView.Member(desk: "c", phase: .idle, mode: .focus, label: nil, following: false),
    ]
    s = Engine.step(s, .setRoom(RoomIdentity(name: "team", desk: "a")), now: t0).0
    XCTAssertNil(ScreenModel(state: s, now: t0).roomText, "no bridge yet")
    s = Engine.step(s, .roomView(RoomView(desk: "a", broker: true, clockTrusted: false, others: others)), now: t0).0
    XCTAssertEqual(ScreenModel(state: s, now: t0).roomText, "~1 in focus")
    s = Engine.step(s, .roomView(RoomView(desk: "a", broker: true, clockTrusted: true, others: others)), now: t0).0
    s = Engine.step(s, .press(.start), now: t0).0
    let model = ScreenModel(state: s, now: t0 + seconds(1))
    XCTAssertEqual(model.roomText, "2 in focus")
    XCTAssertTrue(texts(model, height: 64).map(\.text).contains("2 in focus"))
    XCTAssertNil(ScreenModel(state: s, now: t0 + minutes(2)).roomText, "the bridge silent for a minute")
  }

  /// Following a room session at another desk's lengths (its profile, issue 48): where the
  /// picker shows the profile, "(room)" says the pace is the room's.
  func testFollowingAnotherDesksPaceThePanelSaysSo() {
    let t0 = Instant(nanoseconds: seconds(100))
    var s = EngineState(now: t0)
    let others = [RoomView.Member(desk: "b", phase: .running, mode: .focus, label: nil, following: true)]
    s = Engine.step(s, .setRoom(RoomIdentity(name: "team", desk: "a")), now: t0).0
    s = Engine.step(s, .roomView(RoomView(desk: "a", broker: true, clockTrusted: true, others: others)), now: t0).0
    let plan = [RoomSession.Phase(mode: .focus, length: minutes(50)), .init(mode: .shortBreak, length: minutes(10))]
    let session = RoomSession(revision: 7, origin: "b", plan: plan, phase: 0, state: .running, elapsed: 0)
    s = Engine.step(s, .roomSession(RoomHeld(session: session, anchor: t0)), now: t0).0
    XCTAssertEqual(s.remaining(at: t0), minutes(50))
    let model = ScreenModel(state: s, now: t0 + seconds(1))
    XCTAssertEqual(model.profileName, "(room)")
    XCTAssertEqual(model.roomText, "2 in focus")
    XCTAssertTrue(texts(model, height: 64).map(\.text).contains("(room)"))
    // Its own pace again (the room's lengths are its presets): the place is empty.
    let own = [RoomSession.Phase(mode: .focus, length: minutes(25)), .init(mode: .shortBreak, length: minutes(5))]
    let next = RoomSession(revision: 8, origin: "b", plan: own, phase: 0, state: .running, elapsed: 0)
    s = Engine.step(s, .roomSession(RoomHeld(session: next, anchor: t0)), now: t0).0
    XCTAssertNil(ScreenModel(state: s, now: t0 + seconds(1)).profileName)
  }
}
