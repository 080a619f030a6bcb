import XCTest

final class DriversPlaceholderTests: XCTestCase {
  func testPlaceholder() { XCTAssertEqual(1 + 1, 2) }
}
