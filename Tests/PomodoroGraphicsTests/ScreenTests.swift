import PomodoroCore
import PomodoroGraphics
import XCTest

final class ScreenTests: XCTestCase {
  private let t0 = Instant(nanoseconds: 5_000 * nanosecondsPerSecond)

  private func started(_ mode: Mode = .focus) -> EngineState {
    var s = EngineState(now: t0)
    while s.mode != mode { s = Engine.step(s, .press(.encoder), now: t0).0 }
    return Engine.step(s, .press(.start), now: t0).0
  }

  private func running(elapsed: Int64, total: Int64) -> ScreenModel {
    ScreenModel(phase: .running, title: "Focus 1/4", timeText: "12:34", elapsed: elapsed, total: total)
  }

  func testAFlowCountsUpAndItsFooterAndBarShowTheBreakItHasEarned() {
    let flow = started(.flow)
    let m = ScreenModel(state: flow, now: t0 + seconds(25 * 60 + 7) + ms(999))
    XCTAssertEqual(m.title, "Flow")
    XCTAssertEqual(m.timeText, "25:07", "whole seconds counted, rounded down")
    XCTAssertEqual(m.earnedText, "Break 5:00")
    XCTAssertEqual(m.cancelLabel, "End")
    XCTAssertNil(m.knobHint, "the knob does nothing in a flow")
    XCTAssertEqual([m.elapsed, m.total], [minutes(5), minutes(15)], "the bar: the break earned, of the long break")
    XCTAssertEqual(ScreenModel(state: flow, now: t0 + seconds(3600)).timeText, "1:00:00")
    XCTAssertEqual(ScreenModel(state: flow, now: t0 + seconds(30)).earnedText, "Break 0:00", "nothing yet")
    let idle = ScreenModel(state: Engine.step(EngineState(now: t0), .select(.flow), now: t0).0, now: t0)
    XCTAssertEqual([idle.timeText, idle.knobHint], ["00:00", "Push: mode"])
    XCTAssertNil(idle.earnedText, "no flow, nothing earned")
    XCTAssertEqual([idle.elapsed, idle.total], [0, minutes(15)], "an empty bar")
    // At its ceiling it rings with the bar full: the most a flow earns.
    let end = t0 + Engine.longestFlow
    let rung = ScreenModel(state: Engine.step(flow, .tick, now: end).0, now: end)
    XCTAssertEqual([rung.timeText, rung.title], ["24:00:00", "Flow done!"])
    XCTAssertEqual([rung.elapsed, rung.total], [minutes(15), minutes(15)], "the bar full")
  }

  func testTheProgressBarFillsRoundOfElapsedOverTotalTimesItsInnerWidth() {
    let totals: [Int64] = [1, 3, 7, 116, 232, 1_500_000_000_000, 86_399_000_000_000]
    for total in totals {
      for elapsed in Set([0, 1, total / 232, total / 2, total / 3, total - 1, total].filter { $0 >= 0 && $0 <= total })
      {
        for (height, row, firstX, inner) in [(64, 44, 6, 116), (32, 29, 0, 128)] {
          let fb = renderScreen(running(elapsed: elapsed, total: total), height: height)
          let filled = (firstX..<(firstX + inner)).filter { fb.pixel($0, row) }.count
          let expected = Int((Double(elapsed) / Double(total) * Double(inner)).rounded(.toNearestOrAwayFromZero))
          XCTAssertEqual(filled, expected, "\(elapsed)/\(total) on 128x\(height)")
        }
      }
    }
  }

  func testEveryTitleFitsOnOneLine() {
    var titles: Set<String> = []
    for mode in Mode.allCases {
      let s = started(mode)
      titles.insert(EngineState(now: t0).title)
      titles.insert(s.title)
      titles.insert(Engine.step(s, .press(.start), now: t0 + seconds(1)).0.title)  // paused
      titles.insert(Engine.step(s, .tick, now: t0 + (s.duration ?? Engine.longestFlow)).0.title)  // ringing
      var idle = EngineState(now: t0)
      while idle.mode != mode { idle = Engine.step(idle, .press(.encoder), now: t0).0 }
      titles.insert(idle.title)
    }
    XCTAssertTrue(titles.contains("How do you like your eggs?"))
    XCTAssertTrue(titles.contains("Alright, don't choke on them!"))
    for title in titles {
      XCTAssertLessThanOrEqual(Font.small.width(title), 124, title)
      XCTAssertEqual(Font.small.truncated(title, toWidth: 124), title)
    }
  }

  func testFontsCoverWhatTheScreensDraw() {
    for code in 32...126 {
      let c = Character(Unicode.Scalar(UInt8(code)))
      XCTAssertEqual(Font.small.glyph(c)?.height, 9, "small font glyph for \(c)")
    }
    for c in "0123456789:" { XCTAssertEqual(Font.bigDigits.glyph(c)?.height, 28, "big digit \(c)") }
    XCTAssertGreaterThanOrEqual(Font.bigDigits.height, 24)
    // H:MM:SS fits with the 16-pixel icon; HH:MM:SS fits alone.
    XCTAssertLessThanOrEqual(16 + 6 + Font.bigDigits.width(formatClock(9 * 3600 + 59 * 60 + 59)), 128)
    XCTAssertLessThanOrEqual(Font.bigDigits.width(formatClock(23 * 3600 + 59 * 60 + 59)), 128)
    XCTAssertEqual(
      Font.small.wrapped("So you like it Soft huh?", toWidth: 50).joined(separator: " "), "So you like it Soft huh?")
  }

  func testASpinStepChangesOnlyTheTomatoAndATickOnlyTheDigitsThatChange() {
    let s = started()
    let base = t0 + seconds(65) + ms(100)  // shows 23:55 (remaining 23:54.9 rounded up)
    let a = renderScreen(state: s, now: base)
    let spun = renderScreen(state: s, now: base + ScreenTiming.spinStep)
    let changed = diffBox(a, spun)
    XCTAssertNotNil(changed)
    XCTAssertLessThanOrEqual(changed!.width, 16)
    XCTAssertLessThanOrEqual(changed!.height, 16)
    // One second later (same spin frame: 4 steps of 250 ms): only the last digit changes.
    let tick = renderScreen(state: s, now: base + seconds(1))
    let box = diffBox(a, tick)!
    XCTAssertLessThanOrEqual(box.width, 16, "one digit is 16 pixels wide")
    XCTAssertGreaterThanOrEqual(box.minY, 12)
    XCTAssertLessThanOrEqual(box.minY + box.height, 40)
  }

  func testAnimationWakesAreOnlyWhenSomethingMoves() {
    let s = started()
    // The dissolve first: steps of 62.5 ms.
    XCTAssertEqual(nextFrameTime(state: s, now: t0 + ms(10)), t0 + ScreenTiming.transitionStep)
    // Then the spin: every 250 ms, half way between the second boundaries.
    XCTAssertEqual(nextFrameTime(state: s, now: t0 + ms(600)), t0 + ms(625))
    XCTAssertEqual(nextFrameTime(state: s, now: t0 + ms(625)), t0 + ms(875))
    XCTAssertEqual(ScreenModel(state: s, now: t0 + ms(624)).icon, .tomato(frame: 2))
    XCTAssertEqual(ScreenModel(state: s, now: t0 + ms(625)).icon, .tomato(frame: 3))
    let paused = Engine.step(s, .press(.start), now: t0 + ms(700)).0
    XCTAssertNil(nextFrameTime(state: paused, now: t0 + seconds(3)))
    XCTAssertNil(nextFrameTime(state: EngineState(now: t0), now: t0 + seconds(3)))
    let egg = started(.soft)
    XCTAssertNil(nextFrameTime(state: egg, now: t0 + seconds(1)), "the egg does not spin")
    let ringing = Engine.step(egg, .tick, now: t0 + minutes(5)).0
    XCTAssertEqual(nextFrameTime(state: ringing, now: t0 + minutes(5) + ms(20)), t0 + minutes(5) + ms(500))
    // The flash really alternates on those instants.
    let on = renderScreen(state: ringing, now: t0 + minutes(5) + ms(20))
    let off = renderScreen(state: ringing, now: t0 + minutes(5) + ms(520))
    XCTAssertNotEqual(on, off)
    XCTAssertEqual(on, renderScreen(state: ringing, now: t0 + minutes(5) + ms(1020)))
    // Between wakes the picture does not change.
    let mid = renderScreen(state: s, now: t0 + seconds(10) + ms(130))
    XCTAssertEqual(mid, renderScreen(state: s, now: t0 + seconds(10) + ms(370)))
    // A pause keeps the spin where it was.
    let resumed = Engine.step(paused, .press(.start), now: t0 + seconds(9)).0
    XCTAssertEqual(
      ScreenModel(state: resumed, now: t0 + seconds(9) + ms(600)).icon,
      ScreenModel(state: s, now: t0 + ms(700) + ms(600)).icon)
  }

  func testTheDissolveMixesTheTwoScreensAndEndsOnTheNewOne() {
    let s = started()
    let idleLook = renderScreen(state: EngineState(now: t0), now: t0)
    let runningLook = renderScreen(state: s, now: t0 + ScreenTiming.transition)
    var previousNew = -1
    for step in 0..<ScreenTiming.transitionSteps {
      let at = t0 + Int64(step) * ScreenTiming.transitionStep
      var fromFrame = ScreenModel(state: s, now: at)
      fromFrame.transition = nil
      let target = renderScreen(fromFrame)
      let mixed = renderScreen(state: s, now: at)
      var fromNew = 0
      for y in 0..<64 {
        for x in 0..<128 {
          let p = mixed.pixel(x, y)
          XCTAssertTrue(p == target.pixel(x, y) || p == idleLook.pixel(x, y), "(\(x),\(y)) at step \(step)")
          if p == target.pixel(x, y) && p != idleLook.pixel(x, y) { fromNew += 1 }
        }
      }
      XCTAssertGreaterThan(fromNew, previousNew, "more of the new screen each step")
      previousNew = fromNew
    }
    XCTAssertNil(ScreenModel(state: s, now: t0 + ScreenTiming.transition).transition)
    XCTAssertNotEqual(idleLook, runningLook)
  }

  func testPausedAndRestoredScreensKeepTheTimeAndShowABadge() {
    let s = started()
    let paused = Engine.step(s, .press(.start), now: t0 + seconds(90)).0
    let model = ScreenModel(state: paused, now: t0 + seconds(500))
    XCTAssertEqual(model.timeText, "23:30")
    XCTAssertEqual(model.icon, .pause)
    let fb = renderScreen(model)
    XCTAssertGreaterThan((53..<64).filter { fb.pixel(1, $0) }.count, 5, "the inverted PAUSED pill")
    let restored = EngineState(
      restoring: SavedTimer(
        phase: .running, mode: .focus, duration: minutes(25), remaining: minutes(3), focusDoneInCycle: 0),
      settings: EngineSettings(), now: t0)
    XCTAssertTrue(ScreenModel(state: restored, now: t0).restored)
    XCTAssertNotEqual(
      renderScreen(state: restored, now: t0), renderScreen(ScreenModel(state: restored, now: t0).unrestored))
  }

  private func diffBox(_ a: Framebuffer, _ b: Framebuffer) -> (minX: Int, minY: Int, width: Int, height: Int)? {
    var minX = Int.max
    var minY = Int.max
    var maxX = -1
    var maxY = -1
    for y in 0..<a.height {
      for x in 0..<a.width where a.pixel(x, y) != b.pixel(x, y) {
        minX = min(minX, x)
        minY = min(minY, y)
        maxX = max(maxX, x)
        maxY = max(maxY, y)
      }
    }
    return maxX < 0 ? nil : (minX, minY, maxX - minX + 1, maxY - minY + 1)
  }
}

extension ScreenModel {
  fileprivate var unrestored: ScreenModel {
    var m = self
    m.restored = false
    return m
  }
}
