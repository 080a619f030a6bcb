import PomodoroCore
import PomodoroSystem
import XCTest

/// The one back-off, as the display keeper and the bridge use it.
final class BackoffTests: XCTestCase {
  func testItStartsAtFirstDoublesToLastAndStartsAgainAfterAReset() {
    var b = Backoff(first: seconds(1), last: seconds(30))
    XCTAssertEqual((0..<7).map { _ in wholeSeconds(b.next()) }, [1, 2, 4, 8, 16, 30, 30])
    b.reset()
    XCTAssertEqual(b.next(), seconds(1))
    var quick = Backoff(first: ms(250), last: seconds(5))
    XCTAssertEqual((0..<6).map { _ in wholeMilliseconds(quick.next()) }, [250, 500, 1000, 2000, 4000, 5000])
  }
}
