/// What goes wrong with the display's I2C bus: one closed kind for opening the bus and for
/// writing to it (embedded-hal's `ErrorKind` is the model). The shell can tell them apart: a
/// device that does not answer (NACK: wiring, wrong address) is not a bus that has gone away.
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

  /// What went wrong, in the bus's own terms. What an owner should do about it (packages,
  /// config.txt, config keys, wiring) is the runtime's to say (`HardwareAdvice`).
  public var description: String {
    switch self {
    case .notInstalled: return "I2C support was not compiled in: libi2c is not installed."
    case .busMissing(let bus): return "I2C bus \(bus) not found."
    case .permissionDenied(let bus): return "Permission denied opening \(bus)."
    case .nack(let bus, let address): return "No device answers at \(hex(address)) on \(bus)."
    case .busGone(let bus, let detail): return "I2C bus \(bus): \(detail)."
    case .blockTooLong(let n): return "internal error: an I2C block of \(n) bytes (at most \(I2CBusLimits.maxBlock))"
    }
  }
}

/// 0x3c, as the config, i2cdetect and the messages write addresses.
public func hex(_ v: UInt8) -> String {
  let digits = String(v, radix: 16)
  return "0x" + (digits.count < 2 ? "0" + digits : digits)
}
