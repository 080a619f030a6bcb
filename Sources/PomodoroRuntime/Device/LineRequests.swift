import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// Asks a chip (libgpiod or the mock) for the device's lines as the config names them.
public enum LineRequests {
  public static let consumer = "pomodoro"

  /// The inputs in `DeviceConfig.inputLines` order, and the buzzer. A refusal (busy, missing,
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
    func spec(_ line: DeviceLine) -> InputLineSpec {
      let pin = config.pin(line)!
      // A presence sensor drives its output both ways: no pull, its own active level.
      if line == .presence { return InputLineSpec(line: pin, activeLow: config.presenceActive == .low, pullUp: false) }
      return InputLineSpec(
        line: pin, activeLow: config.inputsActiveLow, pullUp: true,
        debounceMicroseconds: line.button != nil ? debounceUs : 0)
    }
    let inputs = try chip.requestInputs(config.inputLines.map(spec), consumer: consumer)
    do {
      let buzzer = try chip.requestOutput(
        line: config.buzzer, activeHigh: config.buzzerActiveHigh, consumer: consumer)
      return (inputs, buzzer)
    } catch {
      inputs.release()
      throw error
    }
  }
}
