import Foundation
import PomodoroDrivers
import XCTest

@testable import PomodoroLinux

/// What can run without GPIO hardware: this machine has no /dev/gpiochip*. The kernel path
/// itself is proven under QEMU with gpio-sim (Tests/hil).
final class LinuxGPIOChipTests: XCTestCase {
  private func skipIfChipsExist() throws {
    let devices = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
    if devices.contains(where: { $0.hasPrefix("gpiochip") }) { throw XCTSkip("this machine has GPIO chips") }
  }

  func testWithoutLibgpiodOpeningAChipSaysHowToInstallIt() throws {
    guard !HardwareSupport.gpio else { throw XCTSkip("libgpiod compiled in (POMODORO_NO_HARDWARE=1 to check)") }
    XCTAssertEqual(HardwareSupport.gpiodAPI, 0)
    XCTAssertThrowsError(try LinuxGPIOChip(spec: "auto", lineHint: "GPIO17")) {
      XCTAssertEqual($0 as? GPIOError, .notInstalled)
      XCTAssertEqual("\($0)", "GPIO support was not compiled in: libgpiod is not installed.")
    }
  }

  func testTheShimIsBuiltAgainstOneLibgpiodAPI() throws {
    guard HardwareSupport.gpio else { throw XCTSkip("libgpiod not compiled in") }
    XCTAssertTrue([1, 2].contains(HardwareSupport.gpiodAPI))
  }

  func testAMissingChipIsNamedByPathNameLabelOrLine() throws {
    guard HardwareSupport.gpio else { throw XCTSkip("libgpiod not compiled in") }
    try skipIfChipsExist()
    for (spec, expected) in [
      ("/dev/gpiochip0", "GPIO chip '/dev/gpiochip0' not found"),
      ("gpiochip4", "GPIO chip 'gpiochip4' not found"),
      ("pinctrl-rp1", "GPIO chip 'pinctrl-rp1' not found"),
      ("auto", "no chip has a line named GPIO17"),
    ] {
      XCTAssertThrowsError(try LinuxGPIOChip(spec: spec, lineHint: "GPIO17"), spec) { error in
        guard case .chipNotFound = error as? GPIOError else { return XCTFail("\(spec): \(error)") }
        XCTAssertTrue("\(error)".contains(expected), "\(error)")
      }
    }
  }

  func testAFileThatIsNoGPIOChipIsRejected() throws {
    guard HardwareSupport.gpio else { throw XCTSkip("libgpiod not compiled in") }
    XCTAssertThrowsError(try LinuxGPIOChip(spec: "/dev/null")) { error in
      XCTAssertTrue("\(error)".contains("/dev/null"), "\(error)")
    }
  }

  func testErrnoMapping() {
    XCTAssertEqual(LinuxGPIOErrors.chipOpen(errno: ENOSYS, spec: "auto", lineHint: "GPIO17"), .notInstalled)
    XCTAssertEqual(
      LinuxGPIOErrors.chipOpen(errno: EACCES, spec: "/dev/gpiochip0", lineHint: nil),
      .permissionDenied(path: "/dev/gpiochip0"))
    XCTAssertEqual(
      LinuxGPIOErrors.chipOpen(errno: EPERM, spec: "pinctrl-rp1", lineHint: nil),
      .permissionDenied(path: "/dev/gpiochip*"))
    XCTAssertEqual(
      LinuxGPIOErrors.chipOpen(errno: EACCES, spec: "auto", lineHint: "GPIO17"),
      .permissionDenied(path: "/dev/gpiochip*"))
    XCTAssertEqual(
      LinuxGPIOErrors.request(errno: EBUSY, chip: "/dev/gpiochip0", lines: ["GPIO17", "GPIO27"]) {
        ("GPIO27", "gpiozero")
      }, .lineBusy(chip: "/dev/gpiochip0", line: "GPIO27", consumer: "gpiozero"))
    XCTAssertEqual(
      LinuxGPIOErrors.request(errno: EBUSY, chip: "/dev/gpiochip0", lines: ["GPIO17"]) { nil },
      .lineBusy(chip: "/dev/gpiochip0", line: "GPIO17", consumer: "another program"))
    XCTAssertEqual(
      LinuxGPIOErrors.request(errno: EACCES, chip: "/dev/gpiochip0", lines: ["GPIO17"]) { nil },
      .permissionDenied(path: "/dev/gpiochip0"))
    guard
      case .io(let detail) = LinuxGPIOErrors.request(
        errno: EIO, chip: "/dev/gpiochip0", lines: ["GPIO17"], busyLine: { nil })
    else { return XCTFail("EIO") }
    XCTAssertTrue(detail.contains("GPIO17") && detail.contains("/dev/gpiochip0"))
  }
}
