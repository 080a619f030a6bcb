import XCTest

final class LinuxPlaceholderTests: XCTestCase {
  func testPlaceholder() { XCTAssertEqual(1 + 1, 2) }
}
