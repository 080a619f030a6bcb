import PomodoroConfig
import PomodoroDrivers
import PomodoroLinux
import PomodoroRuntime
import PomodoroSystem

/// The real device's parts: libgpiod lines and the display on an I2C bus. Every failure is a
/// `HardwareError` naming the chip, line or bus and the fix.
enum LinuxHardware {
  static func open(_ config: DeviceConfig) throws -> DeviceParts {
    let chip: LinuxGPIOChip
    let inputs: InputLines
    let buzzer: OutputLine
    do {
      chip = try LinuxGPIOChip(spec: config.chip, lineHint: config.encoderA)
    } catch {
      throw HardwareError(error, about: "GPIO chip \(config.chip)", named: config.chip)
    }
    (inputs, buzzer) = try LineRequests.request(on: chip, config: config)
    var tone: ToneOutput?
    do {
      if config.buzzerKind == .passive {
        do {
          // The channel's one owner while the device runs: `tune` and `probe` refuse beside it;
          // one that plays as the device starts leaves it silent until it ends.
          tone = try SysfsPWM(
            chip: config.pwmChip, channel: config.pwmChannel,
            lock: ChannelLock(path: config.pwmLockPath, makesDirectory: true), whenBusy: .wait)
        } catch {
          throw HardwareError(error, about: "the passive buzzer's PWM", named: "PWM")
        }
      }
      let bus = try LinuxI2CBus(bus: config.i2cBus)
      let driver = config.displayDriver(on: bus)
      return DeviceParts(
        inputs: inputs, buzzer: buzzer, display: driver,
        displayName: "\(hex(config.i2cAddress)) on \(bus.path)", tone: tone)
    } catch {
      tone?.release()
      inputs.release()
      buzzer.release()
      throw HardwareError(error)
    }
  }
}
