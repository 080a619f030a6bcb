import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroMock
import XCTest

final class OLEDDriverTests: XCTestCase {
  private let panels: [(OLEDController, Int, Bool)] = OLEDController.allCases.flatMap { c in
    [64, 32].flatMap { h in [false, true].map { (c, h, $0) } }
  }

  func testAfterEveryFlushThePanelShowsTheFramebuffer() throws {
    for (controller, height, rotated) in panels {
      let emulator = OLEDEmulator(controller: controller, panelHeight: height)
      let driver = OLEDDriver(bus: emulator, controller: controller, height: height, rotated: rotated)
      try driver.initialize()
      var rng = OLEDTestRandom(state: UInt64(height) &* 31 &+ (rotated ? 7 : 0) &+ UInt64(controller.ramColumns))
      var fb = Framebuffer(width: 128, height: height)
      for step in 0..<120 {
        if step % 25 == 0 {
          fb = .noise(height: height, &rng)
        } else {
          for _ in 0..<rng.int(1..<4) { fb.randomEdit(&rng) }
        }
        let before = emulator.wireBytes
        let spent = try driver.flush(fb)
        XCTAssertEqual(spent, emulator.wireBytes - before, "driver and emulator count the same bytes")
        XCTAssertEqual(
          emulator.visibleImage(mountedUpsideDown: rotated), fb,
          "\(controller) 128x\(height) rotated=\(rotated) step \(step)")
        XCTAssertTrue(emulator.isLit)
      }
    }
  }

  func testFirstFlushSendsTheWholeFrameAndAnUnchangedFrameNothing() throws {
    for (controller, height, _) in panels {
      let emulator = OLEDEmulator(controller: controller, panelHeight: height)
      let driver = OLEDDriver(bus: emulator, controller: controller, height: height)
      try driver.initialize()
      emulator.resetCounters()
      var fb = Framebuffer(width: 128, height: height)
      fb.fillRect(x: 3, y: 3, width: 10, height: 10)
      let full = try driver.flush(fb)
      XCTAssertEqual(emulator.dataBytes, 128 * height / 8, "the first flush writes every RAM byte of the panel")
      XCTAssertEqual(full, emulator.wireBytes)
      XCTAssertEqual(try driver.flush(fb), 0, "nothing changed, nothing sent")
      driver.invalidate()
      XCTAssertEqual(try driver.flush(fb), full, "after invalidate() the whole frame again")
    }
  }

  func testASinglePixelCostsOneSmallRegion() throws {
    for controller in OLEDController.allCases {
      let emulator = OLEDEmulator(controller: controller)
      let driver = OLEDDriver(bus: emulator, controller: controller)
      try driver.initialize()
      var fb = Framebuffer()
      try driver.flush(fb)
      emulator.resetCounters()
      fb.setPixel(77, 41)
      try driver.flush(fb)
      XCTAssertEqual(emulator.dataBytes, 1)
      XCTAssertEqual(emulator.transactions, 2, "one command block, one data block")
      XCTAssertEqual(emulator.visibleImage(), fb)
    }
  }

  func testADigitSizedChangeIsSentAsOneRectangleOnSSD1306() throws {
    let emulator = OLEDEmulator()
    let driver = OLEDDriver(bus: emulator)
    try driver.initialize()
    var fb = Framebuffer()
    try driver.flush(fb)
    emulator.resetCounters()
    fb.fillRect(x: 90, y: 12, width: 16, height: 28)  // pages 1...4, 16 columns
    let spent = try driver.flush(fb)
    XCTAssertEqual(emulator.dataBytes, 16 * 4)
    XCTAssertEqual(emulator.transactions, 1 + 2, "one window command, 64 data bytes in two blocks")
    XCTAssertEqual(spent, I2CBusLimits.wireBytes(dataCount: 6) + 2 * I2CBusLimits.wireBytes(dataCount: 32))
    XCTAssertEqual(emulator.visibleImage(), fb)
  }

  func testTwoDistantChangesInOnePageAreSentSeparately() throws {
    let emulator = OLEDEmulator()
    let driver = OLEDDriver(bus: emulator)
    try driver.initialize()
    var fb = Framebuffer()
    try driver.flush(fb)
    emulator.resetCounters()
    fb.setPixel(2, 2)
    fb.setPixel(120, 2)
    try driver.flush(fb)
    XCTAssertEqual(emulator.dataBytes, 2, "the 117 unchanged columns between them are not resent")
    XCTAssertEqual(emulator.visibleImage(), fb)
  }

  func testAFlushAfterABusErrorReinitialisesAndSendsEverything() throws {
    for controller in OLEDController.allCases {
      let emulator = OLEDEmulator(controller: controller)
      let driver = OLEDDriver(bus: emulator, controller: controller)
      try driver.initialize()
      var rng = OLEDTestRandom(state: 99)
      var fb = Framebuffer.noise(height: 64, &rng)
      try driver.flush(fb)
      emulator.unplugged = true
      fb.randomEdit(&rng)
      XCTAssertThrowsError(try driver.flush(fb)) { error in
        XCTAssertEqual(error as? I2CError, .nack(bus: "emulated-i2c", address: 0x3C))
      }
      emulator.unplugged = false  // a power-cycled controller: RAM and settings lost
      XCTAssertFalse(emulator.isLit)
      emulator.resetCounters()
      fb.randomEdit(&rng)
      try driver.flush(fb)
      XCTAssertEqual(emulator.dataBytes, 1024, "the whole frame after the error")
      XCTAssertTrue(emulator.isLit, "the init sequence was sent again")
      XCTAssertEqual(emulator.visibleImage(), fb)
    }
  }

  func testContrastInvertAndOnOffReachThePanel() throws {
    for controller in OLEDController.allCases {
      let emulator = OLEDEmulator(controller: controller)
      let driver = OLEDDriver(bus: emulator, controller: controller, contrast: 0x40)
      try driver.initialize()
      XCTAssertEqual(emulator.contrast, 0x40)
      var fb = Framebuffer()
      fb.fillRect(x: 0, y: 0, width: 64, height: 64)
      try driver.flush(fb)
      try driver.setContrast(200)
      XCTAssertEqual(emulator.contrast, 200)
      try driver.setInverted(true)
      var inverted = fb
      inverted.invert(x: 0, y: 0, width: 128, height: 64)
      XCTAssertEqual(emulator.visibleImage(), inverted)
      try driver.setInverted(false)
      try driver.setDisplayOn(false)
      XCTAssertFalse(emulator.isLit)
      XCTAssertEqual(emulator.visibleImage().litCount, 0)
      try driver.setDisplayOn(true)
      XCTAssertEqual(emulator.visibleImage(), fb, "RAM kept while off")
    }
  }

  func testDimmingAndSleepSurviveAPowerCycledController() throws {
    for controller in OLEDController.allCases {
      let emulator = OLEDEmulator(controller: controller)
      let driver = OLEDDriver(bus: emulator, controller: controller)
      try driver.initialize()
      var fb = Framebuffer()
      fb.fillRect(x: 10, y: 10, width: 20, height: 20)
      try driver.flush(fb)
      try driver.setContrast(0x10)
      try driver.setDisplayOn(false)
      XCTAssertEqual(emulator.contrast, 0x10)
      XCTAssertFalse(emulator.isDisplayOn, "asleep")
      emulator.unplugged = true
      fb.setPixel(100, 50)
      XCTAssertThrowsError(try driver.flush(fb))
      emulator.unplugged = false
      try driver.flush(fb)
      XCTAssertEqual(emulator.contrast, 0x10, "\(controller): the dimmed contrast is sent again")
      XCTAssertFalse(emulator.isDisplayOn, "\(controller): still asleep after the re-initialisation")
      try driver.setDisplayOn(true)
      XCTAssertTrue(emulator.isDisplayOn)
      XCTAssertEqual(emulator.visibleImage(), fb, "\(controller): awake with the whole frame")
    }
  }

  func testACountdownTickCostsAtMostATenthOfAFullFrame() throws {
    for controller in OLEDController.allCases {
      let emulator = OLEDEmulator(controller: controller)
      let driver = OLEDDriver(bus: emulator, controller: controller)
      try driver.initialize()
      let t0 = Instant(nanoseconds: 0)
      let state = Engine.step(EngineState(now: t0), .press(.start), now: t0).0
      let full = try driver.flush(renderScreen(state: state, now: t0 + seconds(101)))
      // Ticks where one digit changes: 23:19 -> 23:18 -> 23:17 -> 23:16, then 23:13.
      for s in [Int64(102), 103, 104, 107] {
        let tick = try driver.flush(renderScreen(state: state, now: t0 + seconds(s)))
        XCTAssertLessThanOrEqual(tick * 10, full, "\(controller) tick at \(s) s: \(tick) of \(full) bytes")
        XCTAssertEqual(emulator.visibleImage(), renderScreen(state: state, now: t0 + seconds(s)))
      }
      // A spin step costs only the tomato's 16 columns (2 pages) and its setup.
      let spin = try driver.flush(renderScreen(state: state, now: t0 + seconds(107) + ScreenTiming.spinOffset))
      XCTAssertGreaterThan(spin, 0)
      let setup = I2CBusLimits.wireBytes(dataCount: controller == .ssd1306 ? 6 : 3)
      XCTAssertLessThanOrEqual(spin, 2 * 16 + 2 * (setup + 2))
    }
  }

  func testInitialiseAtTheWrongAddressTellsNack() {
    let emulator = OLEDEmulator(address: 0x3D)
    let driver = OLEDDriver(bus: emulator, address: 0x3C)
    XCTAssertThrowsError(try driver.initialize()) { error in
      XCTAssertEqual(error as? I2CError, .nack(bus: "emulated-i2c", address: 0x3C))
    }
  }
}

/// A small deterministic random generator (SplitMix64), so failures reproduce.
struct OLEDTestRandom {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
  mutating func bool() -> Bool { next() & 1 == 1 }
}

extension Framebuffer {
  /// Random pixels everywhere.
  static func noise(height: Int, _ rng: inout OLEDTestRandom) -> Framebuffer {
    var fb = Framebuffer(width: 128, height: height)
    for i in fb.bytes.indices { fb.bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    return fb
  }

  /// One random change: a rectangle filled, cleared or inverted, or a few pixels flipped.
  mutating func randomEdit(_ rng: inout OLEDTestRandom) {
    let x = rng.int(-4..<128)
    let y = rng.int(-4..<height)
    let w = rng.int(1..<40)
    let h = rng.int(1..<30)
    switch rng.int(0..<4) {
    case 0: fillRect(x: x, y: y, width: w, height: h, true)
    case 1: fillRect(x: x, y: y, width: w, height: h, false)
    case 2: invert(x: x, y: y, width: w, height: h)
    default: for _ in 0..<rng.int(1..<5) { flipPixel(rng.int(0..<128), rng.int(0..<height)) }
    }
  }
}
