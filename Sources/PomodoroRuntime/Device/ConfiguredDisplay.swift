import PomodoroConfig
import PomodoroDrivers
import PomodoroSystem

extension DeviceConfig {
  /// The display's driver on `bus` as the config describes the panel (controller, address,
  /// height, rotation, contrast): the one place the config becomes a driver, for the device, the
  /// simulator's emulated bus and probe.
  public func displayDriver(on bus: I2CBus) -> OLEDDriver {
    OLEDDriver(
      bus: bus, address: i2cAddress, controller: controller, height: height, rotated: rotate180, contrast: contrast)
  }
}
