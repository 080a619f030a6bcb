import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import PomodoroRuntime

/// Runs a scenario headless on the mocks with a virtual clock: each step becomes GPIO edges on
/// the mock lines at its instant, the loop runs to the end of the step, and the panel is
/// observed through the emulated controller.
public final class ScriptRunner {
  public let config: DeviceConfig
  public let clock = VirtualClock()
  public let hardware: MockHardware
  public let device: Device
  public let transcript: Transcript

  public init(config: DeviceConfig, screen: Screen, log: Log, write: @escaping (String) -> Void) throws {
    self.config = config
    hardware = try MockHardware(config: config, clock: clock)
    // The wall clock of a scripted run is virtual too: the epoch plus the script's time.
    let clock = clock
    device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: screen, storage: nil, log: log,
      wallClock: { WallTime(epochSeconds: clock.now.nanoseconds / nanosecondsPerSecond, synced: false) })
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

  /// Schedules the edges of `step` from `start` and returns when the step is over.
  func schedule(_ step: ScriptStep, at start: Instant) -> Instant {
    switch step {
    case .turn(let detents, let fast, let bounce): return hardware.turn(detents, fast: fast, bounce: bounce, at: start)
    case .press(let button): return hardware.press(button, at: start)
    case .hold(let button, let duration): return hardware.press(button, at: start, holding: duration)
    case .wait(let duration): return start + duration
    }
  }
}
