import PomodoroDrivers
import PomodoroSystem

/// A hardware error in an owner's words: what the driver's kind of error means on a Raspberry Pi
/// running this device, and what to do (the package to install, config.txt, the config key, the
/// command that shows more). The drivers say only what went wrong; this is the one place that
/// knows the packages, the files and the keys.
public enum HardwareAdvice {
  public static func text(_ error: Error) -> String {
    switch error {
    case let e as I2CError: return text(e)
    case let e as GPIOError: return text(e)
    default: return "\(error)"
    }
  }

  static func text(_ e: I2CError) -> String {
    switch e {
    case .notInstalled:
      return
        "\(e) Install it (sudo apt install libi2c-dev) and rebuild, or use `pomodoro simulate`."
    case .busMissing:
      return
        "\(e) Enable I2C: add dtparam=i2c_arm=on to /boot/firmware/config.txt (or sudo raspi-config, Interface Options, I2C) and reboot; the header's I2C (pins 3 and 5) is bus 1 (i2c_bus in the config)."
    case .permissionDenied:
      return
        "\(e) Add the user to the i2c group (sudo usermod -aG i2c $USER, then log in again) or run the service as installed."
    case .nack(let bus, let address):
      let other: UInt8 = address == 0x3C ? 0x3D : 0x3C
      let number = bus.split(separator: "-").last.map(String.init) ?? "1"
      return
        "\(e) Check the wiring (SDA to pin 3, SCL to pin 5, VCC to 3.3 V, GND) and the address: some modules use \(hex(other)) (i2c_address in the config); `i2cdetect -y \(number)` lists what answers."
    case .busGone:
      return "\(e) Check the display's wiring and power and i2c_bus in the config."
    case .blockTooLong:
      return "\(e)"
    }
  }

  static func text(_ e: GPIOError) -> String {
    switch e {
    case .notInstalled:
      return
        "\(e) Install it (sudo apt install libgpiod-dev pkg-config) and rebuild, or use `pomodoro simulate`."
    case .chipNotFound:
      return
        "\(e) Check the `chip` key in the config (a path like /dev/gpiochip0, a name like gpiochip0, a label like pinctrl-rp1, or auto); `gpiodetect` lists the chips."
    case .lineNotFound:
      return "\(e) Use a line name like GPIO17 or an offset; `gpioinfo` lists the lines."
    case .lineBusy:
      return "\(e) Stop that program (or service) first; `gpioinfo` shows who holds each line."
    case .permissionDenied:
      return
        "\(e) Add the user to the gpio group (sudo usermod -aG gpio $USER, then log in again) or run the service as installed."
    case .io:
      return "\(e)"
    }
  }
}

/// A hardware problem at start-up (chip, line, bus, display): exits 69.
public struct HardwareError: Error, CustomStringConvertible {
  public var description: String
  public init(_ underlying: Error) { description = HardwareAdvice.text(underlying) }

  /// `underlying`'s words, led by `thing` ("GPIO chip /dev/gpiochip9") when they do not name
  /// `name` themselves: every hardware message says which device it is about.
  public init(_ underlying: Error, about thing: String, named name: String) {
    let text = HardwareAdvice.text(underlying)
    description = text.contains(name) ? text : "\(thing): \(text)"
  }
}
