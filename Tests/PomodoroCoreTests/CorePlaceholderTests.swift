import XCTest

final class CorePlaceholderTests: XCTestCase {
  func testPlaceholder() { XCTAssertEqual(1 + 1, 2) }
}
