import PomodoroDrivers
import PomodoroRuntime
import PomodoroSystem
import XCTest

/// The owner's words for each kind of hardware error: the driver's fact, then what to do on a
/// Pi (the package, config.txt, the config key, the command that shows more).
final class HardwareAdviceTests: XCTestCase {
  func testEveryI2CErrorGetsItsFix() {
    XCTAssertEqual(
      HardwareAdvice.text(I2CError.notInstalled),
      "I2C support was not compiled in: libi2c is not installed. Install it (sudo apt install libi2c-dev) and rebuild, "
        + "or use `pomodoro simulate`.")
    let missing = HardwareAdvice.text(I2CError.busMissing(bus: "/dev/i2c-1"))
    XCTAssertTrue(
      missing.hasPrefix(
        "I2C bus /dev/i2c-1 not found. Enable I2C: add dtparam=i2c_arm=on to /boot/firmware/config.txt"), missing)
    XCTAssertTrue(missing.contains("reboot"), missing)
    XCTAssertTrue(
      HardwareAdvice.text(I2CError.permissionDenied(bus: "/dev/i2c-1")).contains("sudo usermod -aG i2c $USER"))
    let nack = HardwareAdvice.text(I2CError.nack(bus: "/dev/i2c-1", address: 0x3C))
    XCTAssertTrue(nack.hasPrefix("No device answers at 0x3c on /dev/i2c-1. Check the wiring (SDA to pin 3"), nack)
    XCTAssertTrue(nack.contains("some modules use 0x3d (i2c_address in the config)"), nack)
    XCTAssertTrue(nack.contains("`i2cdetect -y 1`"), nack)
    XCTAssertTrue(
      HardwareAdvice.text(I2CError.nack(bus: "/dev/i2c-3", address: 0x3D)).contains("some modules use 0x3c"))
    XCTAssertTrue(HardwareAdvice.text(I2CError.nack(bus: "/dev/i2c-3", address: 0x3D)).contains("i2cdetect -y 3"))
    XCTAssertEqual(
      HardwareAdvice.text(I2CError.busGone(bus: "/dev/i2c-1", detail: "x")),
      "I2C bus /dev/i2c-1: x. Check the display's wiring and power and i2c_bus in the config.")
  }

  func testEveryGPIOErrorGetsItsFix() {
    XCTAssertTrue(HardwareAdvice.text(GPIOError.notInstalled).contains("sudo apt install libgpiod-dev pkg-config"))
    XCTAssertTrue(HardwareAdvice.text(GPIOError.chipNotFound("gpiochip4")).hasSuffix("`gpiodetect` lists the chips."))
    XCTAssertTrue(
      HardwareAdvice.text(GPIOError.lineNotFound(chip: "/dev/gpiochip0", line: "17")).hasSuffix(
        "`gpioinfo` lists the lines."))
    XCTAssertEqual(
      HardwareAdvice.text(GPIOError.lineBusy(chip: "/dev/gpiochip0", line: "GPIO27", consumer: "gpiomon")),
      "GPIO line 'GPIO27' on /dev/gpiochip0 is busy: held by 'gpiomon'. Stop that program (or service) first; "
        + "`gpioinfo` shows who holds each line.")
    XCTAssertTrue(
      HardwareAdvice.text(GPIOError.permissionDenied(path: "/dev/gpiochip0")).contains("sudo usermod -aG gpio $USER"))
    XCTAssertEqual(HardwareAdvice.text(GPIOError.io("x")), "GPIO I/O error: x")
  }

  /// A hardware error that stops the device (exit 69) carries the advice, not the bare fact.
  func testAHardwareErrorCarriesTheAdvice() {
    let e = HardwareError(I2CError.nack(bus: "/dev/i2c-1", address: 0x3C))
    XCTAssertTrue(e.description.contains("i2cdetect -y 1"), e.description)
    let chip = HardwareError(GPIOError.io("timed out"), about: "GPIO chip auto", named: "auto")
    XCTAssertEqual(chip.description, "GPIO chip auto: GPIO I/O error: timed out")
  }
}
