import Foundation
import PomodoroDrivers
import XCTest

@testable import PomodoroLinux

/// What can run without an I2C adapter: this machine has no /dev/i2c-*. Real transfers are
/// proven under QEMU with i2c-stub (Tests/hil).
final class LinuxI2CBusTests: XCTestCase {
  func testWithoutLibi2cOpeningTheBusSaysHowToInstallIt() throws {
    guard !HardwareSupport.i2c else { throw XCTSkip("libi2c compiled in (POMODORO_NO_HARDWARE=1 to check)") }
    XCTAssertThrowsError(try LinuxI2CBus(bus: 1)) {
      XCTAssertEqual($0 as? I2CError, .notInstalled)
      XCTAssertEqual("\($0)", "I2C support was not compiled in: libi2c is not installed.")
    }
  }

  func testAMissingBusSaysToEnableI2C() throws {
    guard HardwareSupport.i2c else { throw XCTSkip("libi2c not compiled in") }
    guard !FileManager.default.fileExists(atPath: "/dev/i2c-1") else { throw XCTSkip("this machine has /dev/i2c-1") }
    XCTAssertThrowsError(try LinuxI2CBus(bus: 1)) { error in
      XCTAssertEqual(error as? I2CError, .busMissing(bus: "/dev/i2c-1"))
      XCTAssertEqual("\(error)", "I2C bus /dev/i2c-1 not found.")
    }
  }

  func testAFileThatIsNoAdapterFailsOnTheFirstWrite() throws {
    guard HardwareSupport.i2c else { throw XCTSkip("libi2c not compiled in") }
    let bus = try LinuxI2CBus(path: "/dev/null")
    XCTAssertThrowsError(try bus.writeBlock(address: 0x3C, command: 0x00, data: [0xAE])) { error in
      XCTAssertEqual(error as? I2CError, .busGone(bus: "/dev/null", detail: "/dev/null is not an I2C adapter"))
    }
    XCTAssertThrowsError(try bus.probe(address: 0x3C)) { error in
      guard case .busGone = error as? I2CError else { return XCTFail("\(error)") }
    }
    bus.close()
    XCTAssertThrowsError(try bus.writeBlock(address: 0x3C, command: 0x00, data: [0xAE])) { error in
      guard case .busGone = error as? I2CError else { return XCTFail("\(error)") }
    }
  }

  func testBlocksLongerThan32BytesAreRefused() throws {
    guard HardwareSupport.i2c else { throw XCTSkip("libi2c not compiled in") }
    let bus = try LinuxI2CBus(path: "/dev/null")
    XCTAssertThrowsError(try bus.writeBlock(address: 0x3C, command: 0x40, data: ArraySlice(repeating: 0, count: 33))) {
      XCTAssertEqual($0 as? I2CError, .blockTooLong(33))
    }
  }

  func testOpenErrnoMapping() {
    XCTAssertEqual(LinuxI2CBus.openError(errno: ENOENT, path: "/dev/i2c-1"), .busMissing(bus: "/dev/i2c-1"))
    XCTAssertEqual(LinuxI2CBus.openError(errno: ENOSYS, path: "/dev/i2c-1"), .notInstalled)
    let denied = LinuxI2CBus.openError(errno: EACCES, path: "/dev/i2c-1")
    XCTAssertEqual(denied, .permissionDenied(bus: "/dev/i2c-1"))
  }

  func testWriteErrnoMappingTellsNackFromABusThatIsGone() {
    XCTAssertEqual(
      LinuxI2CBus.writeError(errno: ENXIO, path: "/dev/i2c-1", address: 0x3C), .nack(bus: "/dev/i2c-1", address: 0x3C))
    XCTAssertEqual(
      LinuxI2CBus.writeError(errno: 121, path: "/dev/i2c-1", address: 0x3C), .nack(bus: "/dev/i2c-1", address: 0x3C))
    guard case .busGone(let bus, let detail) = LinuxI2CBus.writeError(errno: EIO, path: "/dev/i2c-1", address: 0x3C)
    else { return XCTFail("EIO") }
    XCTAssertEqual(bus, "/dev/i2c-1")
    XCTAssertTrue(detail.contains("0x3c"), detail)
  }

  /// The driver's errors say what went wrong in the bus's terms and nothing of packages,
  /// config.txt or config keys: that advice is the runtime's (HardwareAdviceTests).
  func testTheBussErrorsSpeakOnlyOfTheBus() {
    XCTAssertEqual(
      I2CError.nack(bus: "/dev/i2c-1", address: 0x3C).description, "No device answers at 0x3c on /dev/i2c-1.")
    XCTAssertEqual(I2CError.busGone(bus: "/dev/i2c-1", detail: "x").description, "I2C bus /dev/i2c-1: x.")
    XCTAssertEqual(I2CError.permissionDenied(bus: "/dev/i2c-1").description, "Permission denied opening /dev/i2c-1.")
  }
}
