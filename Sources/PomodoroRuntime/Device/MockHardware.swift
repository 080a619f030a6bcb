import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroMock

/// The whole device on mock hardware: a scripted GPIO chip named like a Pi's header and an
/// emulated display controller, sharing one clock with the engine.
public final class MockHardware {
  public let chip: MockGPIOChip
  public let emulator: OLEDEmulator
  public let parts: DeviceParts

  /// - Parameter busy: lines already held by other programs, (line, consumer).
  public init(config: DeviceConfig, clock: MonotonicClock, busy: [(String, String)] = []) throws {
    chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    for (line, consumer) in busy { chip.markBusy(line, consumer: consumer) }
    let controller: OLEDController = config.controller == .sh1106 ? .sh1106 : .ssd1306
    emulator = OLEDEmulator(
      controller: controller, panelHeight: config.height, address: config.i2cAddress, busName: "emulated-i2c")
    let driver = OLEDDriver(
      bus: emulator, address: config.i2cAddress, controller: controller, height: config.height,
      rotated: config.rotate180, contrast: config.contrast)
    let (inputs, buzzer) = try LineRequests.request(on: chip, config: config)
    parts = DeviceParts(
      inputs: inputs, buzzer: buzzer, display: driver,
      displayName: "0x\(String(config.i2cAddress, radix: 16)) on the emulated bus")
  }

  /// What a person sees on the panel now.
  public func visibleImage(config: DeviceConfig) -> PomodoroGraphics.Framebuffer {
    emulator.visibleImage(mountedUpsideDown: config.rotate180)
  }
}
