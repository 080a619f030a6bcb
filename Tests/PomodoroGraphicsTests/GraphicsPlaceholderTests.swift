import XCTest

final class GraphicsPlaceholderTests: XCTestCase {
  func testPlaceholder() { XCTAssertEqual(1 + 1, 2) }
}
