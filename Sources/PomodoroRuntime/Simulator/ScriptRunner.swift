import PomodoroCore
import PomodoroDrivers
import PomodoroMock

/// Runs a scenario headless on the mocks with a virtual clock: each step becomes GPIO edges on
/// the mock lines at its instant, the loop runs to the end of the step, and the panel is
/// observed through the emulated controller.
public final class ScriptRunner {
  public static let detentSpacing = ms(150)
  public static let fastDetentSpacing = ms(10)
  public static let pressTime = ms(80)
  /// After a press is released, the button rests this long before the next step.
  public static let releaseTime = ms(80)
  /// Contact bounce on each edge with `bounce`.
  public static let bounceTime = Nanoseconds(500_000)

  public let config: DeviceConfig
  public let clock = VirtualClock()
  public let hardware: MockHardware
  public let device: Device
  public let transcript: Transcript

  public init(config: DeviceConfig, screen: Screen, log: Log, write: @escaping (String) -> Void) throws {
    self.config = config
    hardware = try MockHardware(config: config, clock: clock)
    device = Device(config: config, parts: hardware.parts, clock: clock, screen: screen, storage: nil, log: log)
    transcript = Transcript(origin: clock.now, write: write)
    device.observer = transcript
  }

  /// Runs every line; `afterLine` sees each line once the device has run to its end (PNGs).
  public func run(_ lines: [ScriptLine], afterLine: (ScriptLine) -> Void = { _ in }) {
    device.start()
    for line in lines {
      let end = schedule(line.step, at: clock.now)
      EventLoop.runVirtual(device, clock: clock, until: end)
      afterLine(line)
    }
    transcript.summary(at: clock.now)
  }

  func line(for button: Button) -> String {
    switch button {
    case .start: return config.buttonStart
    case .cancel: return config.buttonCancel
    case .encoder: return config.encoderPush
    }
  }

  /// Schedules the edges of `step` from `start` and returns when the step is over.
  func schedule(_ step: ScriptStep, at start: Instant) -> Instant {
    let chip = hardware.chip
    switch step {
    case .turn(let detents, let fast, let bounce):
      let direction = config.encoderInvert ? -detents : detents
      return chip.scheduleTurn(
        a: config.encoderA, b: config.encoderB, detents: direction, start: start,
        spacing: fast ? Self.fastDetentSpacing : Self.detentSpacing, bounce: bounce ? Self.bounceTime : 0,
        transitionsPerDetent: config.encoderDetent)
    case .press(let button):
      return chip.schedulePress(line(for: button), at: start, holding: Self.pressTime) + Self.releaseTime
    case .hold(let button, let duration):
      return chip.schedulePress(line(for: button), at: start, holding: duration) + Self.releaseTime
    case .wait(let duration):
      return start + duration
    }
  }
}
