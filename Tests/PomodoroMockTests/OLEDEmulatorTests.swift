import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroMock
import XCTest

/// The emulator decodes raw byte streams the way the chips do.
final class OLEDEmulatorTests: XCTestCase {
  private func lit(_ e: OLEDEmulator, height: Int = 64) throws {
    try e.writeBlock(
      address: 0x3C, command: 0x00,
      data: (OLEDController.ssd1306.initSequence(
        height: height, rotated: false, contrast: 0x80, inverted: false, displayOn: true))[...])
  }

  func testSingleByteControlFormsCarryOneCommandOrDataByteEach() throws {
    let e = OLEDEmulator()
    try lit(e)
    // 0x80 cmd, 0x80 cmd ... then 0xC0 data, 0xC0 data, then 0x40 stream.
    let stream: [UInt8] = [
      0x20, 0x80, 0x02, 0x80, 0xB3, 0x80, 0x05, 0x80, 0x10, 0xC0, 0xFF, 0xC0, 0x81, 0x40, 0x18, 0x18,
    ]
    try e.writeBlock(address: 0x3C, command: 0x80, data: stream[...])
    XCTAssertEqual(Array(e.ram[3][5...8]), [0xFF, 0x81, 0x18, 0x18])
    XCTAssertEqual(e.dataBytes, 4)
  }

  func testHorizontalModeWrapsInsideTheColumnAndPageWindow() throws {
    let e = OLEDEmulator()
    try lit(e)
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0x20, 0x00, 0x21, 10, 12, 0x22, 6, 7][...])
    // 3 columns x 2 pages = 6 bytes; the 7th wraps to the window's start.
    try e.writeBlock(address: 0x3C, command: 0x40, data: [1, 2, 3, 4, 5, 6, 7][...])
    XCTAssertEqual(Array(e.ram[6][10...12]), [7, 2, 3])
    XCTAssertEqual(Array(e.ram[7][10...12]), [4, 5, 6])
  }

  func testVerticalModeFillsColumnsFirst() throws {
    let e = OLEDEmulator()
    try lit(e)
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0x20, 0x01, 0x21, 0, 1, 0x22, 2, 4][...])
    try e.writeBlock(address: 0x3C, command: 0x40, data: [1, 2, 3, 4, 5, 6][...])
    XCTAssertEqual([e.ram[2][0], e.ram[3][0], e.ram[4][0], e.ram[2][1], e.ram[3][1], e.ram[4][1]], [1, 2, 3, 4, 5, 6])
  }

  func testCommandArgumentsMaySpanWrites() throws {
    let e = OLEDEmulator()
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0x81][...])
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0x33][...])
    XCTAssertEqual(e.contrast, 0x33)
  }

  func testTheDisplayIsDarkUntilTheChargePumpAndDisplayOnAreSet() throws {
    let e = OLEDEmulator()
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0xAF][...])
    XCTAssertFalse(e.isLit, "SSD1306 needs its charge pump")
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0x8D, 0x14][...])
    XCTAssertTrue(e.isLit)
  }

  func testAnSH1106DrivenAsAnSSD1306ShowsAShiftedPicture() throws {
    let e = OLEDEmulator(controller: .sh1106)
    let driver = OLEDDriver(bus: e, controller: .ssd1306)
    try driver.initialize()
    var fb = Framebuffer()
    fb.fillRect(x: 0, y: 0, width: 8, height: 64)
    try driver.flush(fb)
    XCTAssertNotEqual(e.visibleImage(), fb, "the well-known two-column shift")
  }

  func testA32RowPanelWithTheWrongCOMPinsIsScrambled() throws {
    let e = OLEDEmulator(panelHeight: 32)
    let driver = OLEDDriver(bus: e, height: 32)
    try driver.initialize()
    var fb = Framebuffer(width: 128, height: 32)
    fb.fillRect(x: 0, y: 0, width: 128, height: 8)
    try driver.flush(fb)
    XCTAssertEqual(e.visibleImage(), fb)
    try e.writeBlock(address: 0x3C, command: 0x00, data: [0xDA, 0x12][...])
    XCTAssertNotEqual(e.visibleImage(), fb)
  }

  func testOnlyItsAddressAnswersAndLongBlocksAreRefused() {
    let e = OLEDEmulator(address: 0x3C)
    XCTAssertThrowsError(try e.writeBlock(address: 0x3D, command: 0, data: [0xAF][...])) {
      XCTAssertEqual($0 as? I2CError, .nack(bus: "emulated-i2c", address: 0x3D))
    }
    XCTAssertThrowsError(try e.writeBlock(address: 0x3C, command: 0x40, data: [UInt8](repeating: 0, count: 33)[...])) {
      XCTAssertEqual($0 as? I2CError, .blockTooLong(33))
    }
    XCTAssertEqual(e.transactions, 0)
  }

  func testReplugResetsTheController() throws {
    let e = OLEDEmulator()
    try lit(e)
    try e.writeBlock(address: 0x3C, command: 0x40, data: [0xFF][...])
    e.unplugged = true
    XCTAssertThrowsError(try e.writeBlock(address: 0x3C, command: 0x00, data: [0xAF][...]))
    e.unplugged = false
    XCTAssertFalse(e.isLit)
    XCTAssertEqual(e.ram[0][0], 0)
  }
}
