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
  /// Returns the first of the script's expectations not met (every line runs regardless, so
  /// the transcript is whole).
  @discardableResult
  public func run(_ script: Script, file: String = "script", afterLine: (ScriptLine) -> Void = { _ in })
    -> UnmetExpectation?
  {
    var buckets: [[[String: JSONValue]]] = [[]]
    transcript.onObject = { buckets[buckets.count - 1].append($0) }
    defer { transcript.onObject = nil }
    device.start()
    for line in script.lines {
      buckets.append([])
      let end = schedule(line.step, at: clock.now)
      EventLoop.runVirtual(device, clock: clock, until: end)
      afterLine(line)
    }
    transcript.summary(at: clock.now)
    if let unmet = ExpectationCheck.check(script.opening, against: buckets[0], file: file, step: "start-up") {
      return unmet
    }
    for (line, objects) in zip(script.lines, buckets.dropFirst()) {
      if let unmet = ExpectationCheck.check(
        line.expectations, against: objects, file: file, step: "line \(line.number) (`\(line.text)`)")
      {
        return unmet
      }
    }
    return nil
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
