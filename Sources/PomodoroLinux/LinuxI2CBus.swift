import CPomodoroHW
import PomodoroDrivers

/// The display's I2C bus through libi2c: /dev/i2c-N, SMBus I2C block writes (the control byte
/// as the command, at most 32 data bytes), the 7-bit address selected with ioctl(I2C_SLAVE).
///
/// Errors are `I2CError`s, which say what to do: `.nack` when nothing acknowledged (ENXIO,
/// EREMOTEIO), else `.busGone` with the system's words.
public final class LinuxI2CBus: I2CBus {
  public let path: String
  private var fd: Int32
  private var selected: UInt8?

  /// Opens /dev/i2c-`bus`.
  public convenience init(bus: Int) throws { try self.init(path: "/dev/i2c-\(bus)") }

  /// Opens the adapter at `path`.
  /// - Throws: `I2CError.notInstalled` (the shim's body without libi2c answers ENOSYS),
  ///   `.busMissing`, `.permissionDenied`, `.busGone`.
  public init(path: String) throws {
    self.path = path
    let r = pomo_i2c_open(path)
    guard r >= 0 else { throw LinuxI2CBus.openError(errno: -r, path: path) }
    fd = r
  }

  deinit { close() }

  /// Closes the bus; later writes throw `.busGone`.
  public func close() {
    if fd >= 0 { pomo_i2c_close(fd) }
    fd = -1
    selected = nil
  }

  public func writeBlock(address: UInt8, command: UInt8, data: ArraySlice<UInt8>) throws {
    guard data.count <= I2CBusLimits.maxBlock else { throw I2CError.blockTooLong(data.count) }
    guard fd >= 0 else { throw I2CError.busGone(bus: path, detail: "the bus was closed") }
    if selected != address {
      let r = pomo_i2c_select(fd, address)
      guard r == 0 else {
        let e = -r
        if e == Errno.notATTY { throw I2CError.busGone(bus: path, detail: "\(path) is not an I2C adapter") }
        throw I2CError.busGone(bus: path, detail: "selecting address \(hex(address)): \(Errno.text(e))")
      }
      selected = address
    }
    let r = data.withUnsafeBufferPointer { pomo_i2c_write_block(fd, command, $0.baseAddress, $0.count) }
    if r != 0 { throw LinuxI2CBus.writeError(errno: -r, path: path, address: address) }
  }

  /// Checks that a display answers at `address` with a harmless write (the controllers' NOP
  /// command, 0xE3, shared by the SSD1306 and the SH1106).
  /// - Throws: `I2CError.nack` (with wiring and address advice) or `.busGone`.
  public func probe(address: UInt8) throws {
    try writeBlock(address: address, command: OLEDControl.commands, data: OLEDCommand.nop.bytes[...])
  }

  static func openError(errno e: Int32, path: String) -> I2CError {
    switch e {
    case Errno.notImplemented: return .notInstalled
    case Errno.noEntry, Errno.noDevice: return .busMissing(bus: path)
    case Errno.access, Errno.permission: return .permissionDenied(bus: path)
    default: return .busGone(bus: path, detail: Errno.text(e))
    }
  }

  static func writeError(errno e: Int32, path: String, address: UInt8) -> I2CError {
    switch e {
    case Errno.noDeviceOrAddress, Errno.remoteIO: return .nack(bus: path, address: address)
    default: return .busGone(bus: path, detail: "write to \(hex(address)): \(Errno.text(e))")
    }
  }
}
