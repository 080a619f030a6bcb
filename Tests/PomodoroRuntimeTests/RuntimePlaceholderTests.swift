import XCTest

final class RuntimePlaceholderTests: XCTestCase {
  func testPlaceholder() { XCTAssertEqual(1 + 1, 2) }
}
