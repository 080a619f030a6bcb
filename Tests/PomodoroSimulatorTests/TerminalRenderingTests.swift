import PomodoroCore
import PomodoroGraphics
import PomodoroRuntime
import PomodoroSimulator
import XCTest

final class TerminalRenderingTests: XCTestCase {
  func testHalfBlocksPairPixelRows() {
    var image = Framebuffer(width: 4, height: 8)
    image.setPixel(0, 0)  // upper only
    image.setPixel(1, 1)  // lower only
    image.setPixel(2, 0)  // both
    image.setPixel(2, 1)
    image.setPixel(3, 7)  // last row's lower half
    let rows = TerminalPanel.halfBlocks(image)
    XCTAssertEqual(rows, ["\u{2580}\u{2584}\u{2588} ", "    ", "    ", "   \u{2584}"])
  }

  func testBrailleDotsFollowUnicodeNumbering() {
    var image = Framebuffer(width: 4, height: 8)
    // Cell (0,0): dots 1 (0,0), 5 (1,1) and 8 (1,3).
    image.setPixel(0, 0)
    image.setPixel(1, 1)
    image.setPixel(1, 3)
    // Cell (1,1): every dot.
    for y in 4..<8 {
      for x in 2..<4 { image.setPixel(x, y) }
    }
    let rows = TerminalPanel.braille(image)
    XCTAssertEqual(rows, ["\u{2891}\u{2800}", "\u{2800}\u{28FF}"])
  }

  func testRenderersCoverTheWholePanel() {
    var image = Framebuffer(width: 128, height: 64)
    image.clear(true)
    let half = TerminalPanel.rows(image, style: .halfBlocks)
    XCTAssertEqual(half.count, 32)
    XCTAssertTrue(half.allSatisfy { $0 == String(repeating: "\u{2588}", count: 128) })
    let braille = TerminalPanel.rows(image, style: .braille)
    XCTAssertEqual(braille.count, 16)
    XCTAssertTrue(braille.allSatisfy { $0 == String(repeating: "\u{28FF}", count: 64) })
  }

  func testLayoutUsesHalfBlocksWhenTheyFitAndBrailleOtherwise() {
    var view = SimulatorView(
      image: Framebuffer(width: 128, height: 64), label: "SSD1306 128x64", status: "idle  focus 1/4  25:00")
    view.buzzing = true
    let big = TerminalLayout.rows(view, in: TerminalSize(columns: 150, rows: 40))
    XCTAssertEqual(big.count, 32 + 2 + 1 + TerminalLayout.keyLines.count)
    XCTAssertEqual(big[0].count, 130)
    XCTAssertTrue(big[0].contains("SSD1306 128x64"))
    XCTAssertTrue(big[2].hasSuffix("BZZZ )))"), "the buzzer beside the panel")
    view.note = "C#6"
    XCTAssertTrue(
      TerminalLayout.rows(view, in: TerminalSize(columns: 150, rows: 40))[2].hasSuffix("|((( C#6 )))".dropFirst()),
      "the passive buzzer's note beside the panel")
    view.note = nil
    XCTAssertEqual(big[34], "idle  focus 1/4  25:00")
    XCTAssertEqual(Array(big[35...]), TerminalLayout.keyLines)

    let small = TerminalLayout.rows(view, in: TerminalSize(columns: 80, rows: 24))
    XCTAssertEqual(small.count, 16 + 2 + 1 + TerminalLayout.keyLines.count)
    XCTAssertEqual(small[0].count, 66)
    XCTAssertEqual(small[18], "idle  focus 1/4  25:00")
    XCTAssertTrue(small[1].unicodeScalars.contains { (0x2800...0x28FF).contains($0.value) })
  }

  func testLayoutPutsTheMarksInTheFrameWhenThereIsNoRoomBeside() {
    var view = SimulatorView(image: Framebuffer(width: 128, height: 32), label: "SH1106 128x32", status: "s")
    view.buzzing = true
    view.fastForward = true
    let rows = TerminalLayout.rows(view, in: TerminalSize(columns: 130, rows: 30))
    XCTAssertEqual(rows.count, 16 + 2 + 1 + TerminalLayout.keyLines.count)
    XCTAssertTrue(rows[17].contains("BZZZ") && rows[17].contains(">> 60x"), rows[17])
    XCTAssertEqual(rows[17].count, 130)
  }

  func testTinyTerminalStillShowsTheStatusLine() {
    let view = SimulatorView(
      image: Framebuffer(width: 128, height: 64), label: "x", status: "running  focus 1/4  24:59")
    let rows = TerminalLayout.rows(view, in: TerminalSize(columns: 40, rows: 10))
    XCTAssertEqual(rows.count, 10)
    XCTAssertEqual(rows[0], "running  focus 1/4  24:59")
    XCTAssertTrue(rows.allSatisfy { $0.count <= 40 })
  }

  func testCanvasRedrawsOnlyChangedRows() {
    var canvas = TerminalCanvas()
    let first = canvas.update(["aaa", "bbb", "ccc"], columns: 10)
    XCTAssertTrue(first.hasPrefix("\u{1B}[H\u{1B}[2J"))
    XCTAssertTrue(first.contains("\u{1B}[3;1Hccc\u{1B}[K"))
    XCTAssertEqual(canvas.update(["aaa", "bbb", "ccc"], columns: 10), "")
    XCTAssertEqual(canvas.update(["aaa", "BBB", "ccc"], columns: 10), "\u{1B}[2;1HBBB")
    // Only the changed span of a row: columns 2 to 3 here, then a shorter row erased after it.
    XCTAssertEqual(canvas.update(["aaa", "BxyB", "ccc"], columns: 10), "\u{1B}[2;2HxyB\u{1B}[K")
    XCTAssertEqual(canvas.update(["aaa", "BzyB", "ccc"], columns: 10), "\u{1B}[2;2Hz")
    XCTAssertEqual(canvas.update(["aaa", "Bz", "ccc"], columns: 10), "\u{1B}[2;3H\u{1B}[K")
    XCTAssertEqual(canvas.update(["aaa"], columns: 10), "\u{1B}[2;1H\u{1B}[K\u{1B}[3;1H\u{1B}[K")
    // A full-width row is not followed by an erase (it would eat the last cell).
    XCTAssertEqual(canvas.update(["0123456789"], columns: 10), "\u{1B}[1;1H0123456789")
    canvas.invalidate()
    XCTAssertTrue(canvas.update(["0123456789"], columns: 10).hasPrefix("\u{1B}[H\u{1B}[2J"))
  }
}
