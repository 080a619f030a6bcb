import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// Asks a chip (libgpiod or the mock) for the device's lines as the config names them.
public enum LineRequests {
  public static let consumer = "pomodoro"

  /// The inputs in `DeviceLine.inputs` order, and the buzzer. A refusal (busy, missing,
  /// permission) is a `HardwareError` (exit 69) naming the line, the chip, the holder and the fix.
  public static func request(on chip: GPIOChip, config: DeviceConfig) throws -> (InputLines, OutputLine) {
    do {
      return try requestLines(on: chip, config: config)
    } catch let error as HardwareError {
      throw error
    } catch {
      throw HardwareError(error)
    }
  }

  static func requestLines(on chip: GPIOChip, config: DeviceConfig) throws -> (InputLines, OutputLine) {
    let debounceUs = UInt32(wholeMicroseconds(config.debounce))
    func spec(_ line: String, button: Bool) -> InputLineSpec {
      InputLineSpec(
        line: line, activeLow: config.inputsActiveLow, pullUp: true, debounceMicroseconds: button ? debounceUs : 0)
    }
    let specs = DeviceLine.inputs.map { spec(config.pin($0), button: $0.button != nil) }
    let inputs = try chip.requestInputs(specs, consumer: consumer)
    do {
      let buzzer = try chip.requestOutput(
        line: config.pin(.buzzer), activeHigh: config.buzzerActiveHigh, consumer: consumer)
      return (inputs, buzzer)
    } catch {
      inputs.release()
      throw error
    }
  }
}
