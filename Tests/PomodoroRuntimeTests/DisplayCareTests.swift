import PomodoroConfig
import PomodoroCore
import PomodoroGraphics
import PomodoroRuntime
import XCTest

/// OLED care as a table: phase and time since the last input -> lit, contrast, shift.
final class DisplayCareTests: XCTestCase {
  let care = DisplayCare(
    dimAfter: minutes(2), blankAfter: minutes(10), shiftEvery: minutes(3), contrast: 207, dimContrast: 16)
  let origin = Instant.zero

  func look(_ phase: Phase, idleFor: Nanoseconds, at now: Nanoseconds) -> DisplayCare.Look {
    care.look(phase: phase, activeAt: origin + (now - idleFor), origin: origin, now: origin + now)
  }

  func testTheTable() {
    let rows: [(Phase, Nanoseconds, Nanoseconds, Bool, UInt8, PixelShift.Offset)] = [
      // phase, idle for, since start, on, contrast, shift
      (.idle, 0, 0, true, 207, .zero),
      (.idle, minutes(2) - 1, minutes(2) - 1, true, 207, .zero),
      (.idle, minutes(2), minutes(2), true, 16, .zero),
      (.paused, minutes(2), minutes(2), true, 16, .zero),
      (.running, minutes(20), minutes(20), true, 207, PixelShift.orbit(step: 6)),
      (.idle, minutes(3), minutes(3), true, 16, PixelShift.orbit(step: 1)),
      (.idle, minutes(10) - 1, minutes(10) - 1, true, 16, PixelShift.orbit(step: 3)),
      // Off: the shift it had (the orbit stands still), however long it stays off.
      (.idle, minutes(10), minutes(10), false, 16, PixelShift.orbit(step: 3)),
      (.idle, minutes(70), minutes(70), false, 16, PixelShift.orbit(step: 3)),
      (.idle, minutes(61), minutes(71), false, 16, PixelShift.orbit(step: 6)),
      (.paused, minutes(60), minutes(60), true, 16, PixelShift.orbit(step: 20)),
      (.ringing, minutes(60), minutes(60), true, 207, .zero),
    ]
    for (phase, idleFor, now, on, contrast, shift) in rows {
      let l = look(phase, idleFor: idleFor, at: now)
      let what = "\(phase) idle \(wholeSeconds(idleFor)) s at \(wholeSeconds(now)) s"
      XCTAssertEqual(l.on, on, what)
      XCTAssertEqual(l.contrast, contrast, what)
      XCTAssertEqual(l.shift, shift, what)
    }
  }

  func testBlanksOnlyThePickerAfterBlankAfter() {
    XCTAssertEqual(care.blanksAt(phase: .idle, activeAt: origin + minutes(1)), origin + minutes(11))
    for phase in [Phase.running, .paused, .ringing] { XCTAssertNil(care.blanksAt(phase: phase, activeAt: origin)) }
    let never = DisplayCare(dimAfter: nil, blankAfter: nil, shiftEvery: minutes(3), contrast: 207, dimContrast: 16)
    XCTAssertNil(never.blanksAt(phase: .idle, activeAt: origin))
  }

  func testNeverSwitchesEachOff() {
    let never = DisplayCare(dimAfter: nil, blankAfter: nil, shiftEvery: nil, contrast: 207, dimContrast: 16)
    let l = never.look(phase: .idle, activeAt: origin, origin: origin, now: origin + minutes(600))
    XCTAssertEqual(l, DisplayCare.Look(on: true, contrast: 207, shift: .zero))
    XCTAssertNil(never.nextChange(phase: .idle, activeAt: origin, origin: origin, now: origin + minutes(1)))
  }

  func testNextChangeIsTheNearestOfDimBlankAndShiftAndNothingWhileBlankOrRinging() {
    let at = { (phase: Phase, now: Nanoseconds) in
      self.care.nextChange(phase: phase, activeAt: self.origin, origin: self.origin, now: self.origin + now)
    }
    XCTAssertEqual(at(.idle, 0), origin + minutes(2))
    XCTAssertEqual(at(.idle, minutes(2)), origin + minutes(3))
    XCTAssertEqual(at(.idle, minutes(9)), origin + minutes(10))
    XCTAssertNil(at(.idle, minutes(10)), "blank: the loop sleeps until an input")
    XCTAssertEqual(at(.running, minutes(2)), origin + minutes(3), "running never dims")
    XCTAssertNil(at(.ringing, minutes(2)))
  }

  /// Quiet hours as a table: the picker goes off (or to contrast 0) once untouched for dim_after
  /// or when the hours begin, whichever is later; every other phase looks as by day.
  func testQuietHoursTable() {
    var quietCare = care
    quietCare.shiftEvery = nil
    let since = origin + minutes(30)  // the hours began 30 minutes in
    let rows: [(QuietPanel, Phase, Nanoseconds, Nanoseconds, Bool, UInt8)] = [
      // panel, phase, idle for, since start, on, contrast
      (.off, .idle, minutes(1), minutes(29), true, 207),  // before the hours: by day
      (.off, .idle, minutes(5), minutes(30), false, 16),  // untouched 5 min when they begin: off at once
      (.off, .idle, minutes(1), minutes(31), true, 207),  // a touch a minute ago: lit
      (.off, .idle, minutes(2), minutes(40), false, 16),  // dim_after after it: off
      (.off, .running, minutes(60), minutes(90), true, 207),
      (.off, .paused, minutes(60), minutes(90), true, 16),
      (.off, .ringing, minutes(60), minutes(90), true, 207),
      (.dim, .idle, minutes(5), minutes(30), true, 0),
      (.dim, .idle, minutes(1), minutes(31), true, 207),
      (.dim, .idle, minutes(10), minutes(40), false, 0),  // blank_after still blanks
      (.dim, .running, minutes(60), minutes(90), true, 207),
    ]
    for (panel, phase, idleFor, now, on, contrast) in rows {
      quietCare.quietPanel = panel
      let active = origin + (now - idleFor)
      let quiet = origin + now >= since ? since : nil
      let l = quietCare.look(phase: phase, activeAt: active, origin: origin, now: origin + now, quietSince: quiet)
      let what = "\(panel) \(phase) idle \(wholeSeconds(idleFor)) s at \(wholeSeconds(now)) s"
      XCTAssertEqual(l.on, on, what)
      XCTAssertEqual(l.contrast, contrast, what)
    }
    // The next change of a lit picker in quiet hours is its quiet look.
    quietCare.quietPanel = .off
    XCTAssertEqual(
      quietCare.nextChange(
        phase: .idle, activeAt: origin + minutes(31) + seconds(30), origin: origin, now: origin + minutes(32),
        quietSince: since),
      origin + minutes(33) + seconds(30))
  }
}
