/// What goes wrong with the display's I2C bus: one closed kind for opening the bus and for
/// writing to it, each case told in words a user can act on. The shell can tell them apart:
/// a device that does not answer (NACK: wiring, wrong address) is not a bus that has gone away.
public enum I2CError: Error, Equatable, Sendable, CustomStringConvertible {
  /// libi2c was not compiled in.
  case notInstalled
  /// No /dev/i2c-N: I2C is not enabled (or the bus number is wrong).
  case busMissing(bus: String)
  /// The user may not open the bus.
  case permissionDenied(bus: String)
  /// Nobody acknowledged the address: no device at `address` on `bus`.
  case nack(bus: String, address: UInt8)
  /// The bus itself is gone or broken (not an adapter, adapter removed, I/O error); `detail`
  /// says what failed.
  case busGone(bus: String, detail: String)
  /// A caller error: a block longer than the bus can carry.
  case blockTooLong(Int)

  public var description: String {
    switch self {
    case .notInstalled:
      return
        "I2C support was not compiled in: libi2c is not installed. Install it (sudo apt install libi2c-dev) and rebuild, or use `pomodoro simulate`."
    case .busMissing(let bus):
      return
        "I2C bus \(bus) not found. Enable I2C: add dtparam=i2c_arm=on to /boot/firmware/config.txt (or sudo raspi-config, Interface Options, I2C) and reboot; the header's I2C (pins 3 and 5) is bus 1 (i2c_bus in the config)."
    case .permissionDenied(let bus):
      return
        "Permission denied opening \(bus). Add the user to the i2c group (sudo usermod -aG i2c $USER, then log in again) or run the service as installed."
    case .nack(let bus, let address):
      let other: UInt8 = address == 0x3C ? 0x3D : 0x3C
      let number = bus.split(separator: "-").last.map(String.init) ?? "1"
      return
        "No device answers at \(hex(address)) on \(bus). Check the wiring (SDA to pin 3, SCL to pin 5, VCC to 3.3 V, GND) and the address: some modules use \(hex(other)) (i2c_address in the config); `i2cdetect -y \(number)` lists what answers."
    case .busGone(let bus, let detail):
      return "I2C bus \(bus): \(detail). Check the display's wiring and power and i2c_bus in the config."
    case .blockTooLong(let n):
      return "internal error: an I2C block of \(n) bytes (at most \(I2CBusLimits.maxBlock))"
    }
  }
}

/// 0x3c, as the config, i2cdetect and the messages write addresses.
public func hex(_ v: UInt8) -> String {
  let digits = String(v, radix: 16)
  return "0x" + (digits.count < 2 ? "0" + digits : digits)
}
