import PomodoroCore
import PomodoroSystem
import XCTest

final class SystemClockTests: XCTestCase {
  func testSystemClockIsMonotonic() {
    let clock = SystemClock()
    var last = clock.now
    XCTAssertGreaterThan(last.nanoseconds, 0)
    for _ in 0..<1000 {
      let now = clock.now
      XCTAssertGreaterThanOrEqual(now, last)
      last = now
    }
  }
}
