import PomodoroDrivers
import XCTest

/// The init sequences byte for byte, as the datasheets and the modules want them.
final class OLEDInitSequenceTests: XCTestCase {
  private func bytes(_ c: OLEDController, height: Int, rotated: Bool = false, inverted: Bool = false, on: Bool = true)
    -> [UInt8]
  {
    c.initSequence(height: height, rotated: rotated, contrast: 0xCF, inverted: inverted, displayOn: on)
  }

  func testSSD1306128x64() {
    XCTAssertEqual(
      bytes(.ssd1306, height: 64),
      [
        0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00, 0x2E, 0xA1, 0xC8, 0xDA, 0x12,
        0x81, 0xCF, 0xD9, 0xF1, 0xDB, 0x40, 0xA4, 0xA6, 0xAF,
      ])
  }

  func testSSD1306128x32() {
    XCTAssertEqual(
      bytes(.ssd1306, height: 32),
      [
        0xAE, 0xD5, 0x80, 0xA8, 0x1F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00, 0x2E, 0xA1, 0xC8, 0xDA, 0x02,
        0x81, 0xCF, 0xD9, 0xF1, 0xDB, 0x40, 0xA4, 0xA6, 0xAF,
      ])
  }

  func testSH1106128x64() {
    XCTAssertEqual(
      bytes(.sh1106, height: 64),
      [
        0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0xAD, 0x8B, 0x32, 0xA1, 0xC8, 0xDA, 0x12, 0x81, 0xCF,
        0xD9, 0x22, 0xDB, 0x35, 0xA4, 0xA6, 0xAF,
      ])
  }

  func testRotationInversionAndOffChangeOnlyTheirOwnBytes() {
    for c in OLEDController.allCases {
      let upright = bytes(c, height: 64)
      var expected = upright
      expected[expected.firstIndex(of: 0xA1)!] = 0xA0
      expected[expected.firstIndex(of: 0xC8)!] = 0xC0
      XCTAssertEqual(bytes(c, height: 64, rotated: true), expected, "\(c) upside down")
      XCTAssertEqual(bytes(c, height: 64, inverted: true), upright.dropLast(2) + [0xA7, 0xAF], "\(c) inverted")
      XCTAssertEqual(bytes(c, height: 64, on: false), Array(upright.dropLast()), "\(c) left off")
    }
  }

  func testCommandsEncodeTheirArguments() {
    XCTAssertEqual(OLEDCommand.columnWindow(5...90).bytes, [0x21, 5, 90])
    XCTAssertEqual(OLEDCommand.pageWindow(1...4).bytes, [0x22, 1, 4])
    XCTAssertEqual(OLEDCommand.page(6).bytes, [0xB6])
    XCTAssertEqual(OLEDCommand.column(130).bytes, [0x02, 0x18])
    XCTAssertEqual(OLEDCommand.contrast(0x40).bytes, [0x81, 0x40])
    XCTAssertEqual(OLEDCommand.display(on: false).bytes, [0xAE])
    XCTAssertEqual(OLEDCommand.nop.bytes, [0xE3])
  }
}
