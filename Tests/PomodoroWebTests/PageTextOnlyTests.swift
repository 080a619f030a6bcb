import XCTest

@testable import PomodoroWeb

/// Issue 35: a label is always text on the page, never markup. The script puts what the desk
/// says into the page with `textContent` only: no call that parses HTML is in it.
final class PageTextOnlyTests: XCTestCase {
  func testTheScriptNeverParsesMarkup() {
    let script = String(decoding: PageAssets.files["/app.js"]?.body ?? [], as: UTF8.self)
    XCTAssertFalse(script.isEmpty)
    for call in [
      "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment",
    ] {
      XCTAssertFalse(script.contains(call), "app.js uses \(call): a label would be read as markup")
    }
    XCTAssertTrue(script.contains("td.textContent = "), "the week by label's cells are text")
  }
}
