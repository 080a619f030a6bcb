import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import XCTest

final class InteractiveScaledClockTests: XCTestCase {
  func testRunsAtTheBaseRateUntilFastForward() {
    let base = VirtualClock(start: Instant(nanoseconds: 1_000))
    let clock = ScaledClock(base: base)
    XCTAssertEqual(clock.now, base.now)
    base.advance(by: seconds(2))
    XCTAssertEqual(clock.now, base.now)
    clock.setRate(60)
    base.advance(by: seconds(1))
    XCTAssertEqual(clock.now - base.now, seconds(59))
    clock.setRate(1)
    base.advance(by: seconds(1))
    XCTAssertEqual(clock.now - base.now, seconds(59), "back to 1x keeps the time gained, never jumps back")
  }

  func testDeadlinesConvertBackToTheEarliestBaseInstant() {
    let base = VirtualClock(start: Instant(nanoseconds: 5))
    let clock = ScaledClock(base: base)
    clock.setRate(60)
    for span in [Nanoseconds(1), 59, 60, 61, seconds(1) + 7] {
      let deadline = clock.now + span
      let wake = clock.baseInstant(for: deadline)
      base.advance(to: wake)
      XCTAssertGreaterThanOrEqual(clock.now, deadline, "waking at the converted instant reaches the deadline")
      XCTAssertLessThan(clock.now - deadline, 60, "and not later than one base nanosecond after it")
    }
  }

  func testPinnedHoldsTheReading() {
    let base = VirtualClock()
    let clock = ScaledClock(base: base)
    clock.setRate(60)
    clock.pinned {
      let held = clock.now
      base.advance(by: ms(5))
      XCTAssertEqual(clock.now, held)
    }
    XCTAssertEqual(clock.now, Instant(nanoseconds: ms(300)))
  }
}
