import PomodoroGraphics
import XCTest

final class FramebufferTests: XCTestCase {
  func testPixelsLiveInPagesWithBitZeroOnTop() {
    var fb = Framebuffer()
    fb.setPixel(5, 0)
    fb.setPixel(5, 7)
    fb.setPixel(6, 8)
    XCTAssertEqual(fb.bytes[5], 0b1000_0001)
    XCTAssertEqual(fb.bytes[128 + 6], 0b0000_0001)
    XCTAssertTrue(fb.pixel(5, 7))
    fb.setPixel(5, 7, false)
    XCTAssertFalse(fb.pixel(5, 7))
    XCTAssertEqual(fb.litCount, 2)
  }

  func testDrawingClipsAtTheEdges() {
    var fb = Framebuffer(width: 128, height: 32)
    fb.setPixel(-1, 0)
    fb.setPixel(128, 0)
    fb.setPixel(0, 32)
    XCTAssertEqual(fb.litCount, 0)
    fb.fillRect(x: -10, y: -10, width: 15, height: 12)
    XCTAssertEqual(fb.litCount, 5 * 2)
    fb.fillRect(x: 120, y: 30, width: 50, height: 50)
    XCTAssertEqual(fb.litCount, 10 + 8 * 2)
    fb.line(from: (-5, -5), to: (200, 200))
    XCTAssertTrue(fb.pixel(31, 31))
    XCTAssertFalse(fb.pixel(32, 32))
  }

  func testFillsAcrossPageBoundariesTouchOnlyTheirRows() {
    var fb = Framebuffer()
    fb.fillRect(x: 10, y: 5, width: 3, height: 14)  // rows 5...18: pages 0, 1, 2
    for y in 0..<64 {
      XCTAssertEqual(fb.pixel(10, y), (5...18).contains(y), "row \(y)")
      XCTAssertFalse(fb.pixel(13, y))
    }
    fb.fillRect(x: 10, y: 8, width: 3, height: 8, false)
    XCTAssertEqual(fb.litCount, 3 * 6)
  }

  func testInvertTwiceRestoresAndStrokeDrawsAnOutline() {
    var fb = Framebuffer()
    fb.line(from: (0, 0), to: (127, 63))
    let before = fb
    fb.invert(x: 20, y: 3, width: 50, height: 30)
    XCTAssertNotEqual(fb, before)
    fb.invert(x: 20, y: 3, width: 50, height: 30)
    XCTAssertEqual(fb, before)
    var box = Framebuffer()
    box.strokeRect(x: 2, y: 2, width: 10, height: 5)
    XCTAssertEqual(box.litCount, 2 * 10 + 2 * 3)
    XCTAssertFalse(box.pixel(5, 4))
  }

  func testLinesIncludeBothEnds() {
    var fb = Framebuffer()
    fb.line(from: (3, 60), to: (9, 57))
    XCTAssertTrue(fb.pixel(3, 60))
    XCTAssertTrue(fb.pixel(9, 57))
    XCTAssertEqual(fb.litCount, 7)
  }

  func testBlitModes() {
    let dot = Bitmap(rows: ["##", "#."])
    var fb = Framebuffer()
    fb.blit(dot, x: 126, y: 62)  // in the corner: (126, 62), (127, 62), (126, 63)
    XCTAssertEqual(fb.litCount, 3)
    fb.blit(dot, x: 126, y: 62, mode: .xor)
    XCTAssertEqual(fb.litCount, 0)
    fb.fillRect(x: 0, y: 0, width: 2, height: 2)
    fb.blit(dot, x: 0, y: 0, mode: .clear)
    XCTAssertEqual(fb.litCount, 1)
    fb.blit(dot, x: 0, y: 0, mode: .copy)
    XCTAssertEqual(fb.litCount, 3)
    XCTAssertFalse(fb.pixel(1, 1))
  }

  func testBitmapRotationsComposeToIdentity() {
    let b = Bitmap(rows: ["##.", "#..", "..#", "...", "#.#"])
    XCTAssertEqual(b.rotatedQuarterTurns(1).width, 5)
    XCTAssertEqual(b.rotatedQuarterTurns(1)[4, 0], true)  // (0,0) goes to the top right
    XCTAssertEqual(b.rotatedQuarterTurns(1).rotatedQuarterTurns(3), b)
    XCTAssertEqual(b.rotatedQuarterTurns(2).rotatedQuarterTurns(2), b)
  }

  func testRotated180TwiceIsIdentity() {
    var fb = Framebuffer(width: 128, height: 32)
    fb.fillRect(x: 0, y: 0, width: 3, height: 2)
    let r = fb.rotated180()
    XCTAssertTrue(r.pixel(127, 31))
    XCTAssertEqual(r.rotated180(), fb)
  }
}
