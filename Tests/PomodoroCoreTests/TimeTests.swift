import PomodoroCore
import XCTest

/// The unit conversions of Time.swift: the only place that spells out the factors.
final class TimeTests: XCTestCase {
  func testWholeSecondsRoundedGoesToTheNearestSecond() {
    XCTAssertEqual(wholeSecondsRounded(0), 0)
    XCTAssertEqual(wholeSecondsRounded(ms(499)), 0)
    XCTAssertEqual(wholeSecondsRounded(ms(500)), 1, "a half rounds up")
    XCTAssertEqual(wholeSecondsRounded(ms(1499)), 1)
    XCTAssertEqual(wholeSecondsRounded(seconds(1740) - 1), 1740)
    XCTAssertEqual(wholeSecondsRounded(minutes(25)), 1500)
    XCTAssertEqual(wholeSecondsRounded(ms(-499)), 0)
    XCTAssertEqual(wholeSecondsRounded(ms(-500)), -1, "a half rounds away from zero")
    XCTAssertEqual(wholeSecondsRounded(ms(-1501)), -2)
    XCTAssertEqual(wholeSeconds(ms(1999)), 1, "wholeSeconds still truncates")
  }
}
