/// What stops the display's I2C bus from being used, in words a user can act on.
public enum I2CSetupError: Error, Equatable, Sendable, CustomStringConvertible {
  /// libi2c was not compiled in.
  case notInstalled
  /// No /dev/i2c-N: I2C is not enabled (or the bus number is wrong).
  case busMissing(path: String)
  /// The user may not open the bus.
  case permissionDenied(path: String)
  /// The path is not an I2C adapter.
  case notAnAdapter(path: String, detail: String)
  /// Nothing acknowledged `address` on the bus.
  case noDevice(path: String, address: UInt8)
  case io(path: String, detail: String)

  public var description: String {
    switch self {
    case .notInstalled:
      return
        "I2C support was not compiled in: libi2c is not installed. Install it (sudo apt install libi2c-dev) and rebuild, or use `pomodoro simulate`."
    case .busMissing(let path):
      return
        "I2C bus \(path) not found. Enable I2C: add dtparam=i2c_arm=on to /boot/firmware/config.txt (or sudo raspi-config, Interface Options, I2C) and reboot; the header's I2C (pins 3 and 5) is bus 1 (i2c_bus in the config)."
    case .permissionDenied(let path):
      return
        "Permission denied opening \(path). Add the user to the i2c group (sudo usermod -aG i2c $USER, then log in again) or run the service as installed."
    case .notAnAdapter(let path, let detail):
      return "\(path) is not an I2C adapter (\(detail)). Check i2c_bus in the config."
    case .noDevice(let path, let address):
      return LinuxI2CBus.noDeviceAdvice(path: path, address: address)
    case .io(let path, let detail):
      return "I2C bus \(path): \(detail). Check the display's wiring and power."
    }
  }
}
