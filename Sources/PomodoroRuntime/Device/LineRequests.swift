import PomodoroDrivers

/// Asks a chip (libgpiod or the mock) for the device's lines as the config names them.
public enum LineRequests {
  public static let consumer = "pomodoro"

  /// The inputs in `InputLine` order, and the buzzer.
  public static func request(on chip: GPIOChip, config: DeviceConfig) throws -> (InputLines, OutputLine) {
    let debounceUs = UInt32(config.debounce / 1000)
    func spec(_ line: String, button: Bool) -> InputLineSpec {
      InputLineSpec(
        line: line, activeLow: config.inputsActiveLow, pullUp: true, debounceMicroseconds: button ? debounceUs : 0)
    }
    let specs = [
      spec(config.encoderA, button: false), spec(config.encoderB, button: false),
      spec(config.encoderPush, button: true), spec(config.buttonStart, button: true),
      spec(config.buttonCancel, button: true),
    ]
    let inputs = try chip.requestInputs(specs, consumer: consumer)
    do {
      let buzzer = try chip.requestOutput(line: config.buzzer, activeHigh: config.buzzerActiveHigh, consumer: consumer)
      return (inputs, buzzer)
    } catch {
      inputs.release()
      throw error
    }
  }
}
