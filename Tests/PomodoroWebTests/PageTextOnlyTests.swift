import PomodoroWeb
import XCTest

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
    // Every element the script makes with text (the week by label's cells, the room's desks and
    // labels) gets it through `el`, which sets `textContent`.
    XCTAssertTrue(script.contains("e.textContent = text"), "el's text is text")
    XCTAssertTrue(script.contains("el('td', "), "the week by label's cells are made by el")
  }
}
