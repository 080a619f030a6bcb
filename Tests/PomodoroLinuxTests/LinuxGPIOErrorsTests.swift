import PomodoroDrivers
import XCTest

@testable import PomodoroLinux

/// What the Linux backend makes of a refused line request (EBUSY): the line, the chip and who
/// holds it (what to do about it is the runtime's: HardwareAdviceTests).
final class LinuxGPIOErrorsTests: XCTestCase {
  func testBusyNamesTheLineTheChipTheHolderAndTheFix() {
    let error = LinuxGPIOErrors.request(
      errno: Errno.busy, chip: "/dev/gpiochip0", lines: ["GPIO17", "GPIO27", "GPIO22"],
      busyLine: { (line: "GPIO27", consumer: "gpiomon") })
    XCTAssertEqual(error, .lineBusy(chip: "/dev/gpiochip0", line: "GPIO27", consumer: "gpiomon"))
    XCTAssertEqual(
      "\(error)",
      "GPIO line 'GPIO27' on /dev/gpiochip0 is busy: held by 'gpiomon'.")
  }

  func testBusyWithTheHolderUnknownNamesEveryLineAsked() {
    let error = LinuxGPIOErrors.request(
      errno: Errno.busy, chip: "/dev/gpiochip4", lines: ["GPIO23", "GPIO24"], busyLine: { nil })
    XCTAssertEqual(
      "\(error)",
      "GPIO line 'GPIO23, GPIO24' on /dev/gpiochip4 is busy: held by 'another program'.")
  }

  func testOtherRequestFailuresNameTheLinesAndTheChip() {
    XCTAssertEqual(
      LinuxGPIOErrors.request(errno: Errno.access, chip: "/dev/gpiochip0", lines: ["GPIO25"], busyLine: { nil }),
      .permissionDenied(path: "/dev/gpiochip0"))
    XCTAssertEqual(
      LinuxGPIOErrors.request(errno: Errno.notImplemented, chip: "/dev/gpiochip0", lines: [], busyLine: { nil }),
      .notInstalled)
  }
}
