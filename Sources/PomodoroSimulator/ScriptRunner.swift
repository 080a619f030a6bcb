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
    // Each step's transcript objects are kept only while that step has expectations, and
    // checked as soon as it is over (the last one after the summary): memory stays flat in
    // the length of the script.
    var current: [[String: JSONValue]] = []
    var firstUnmet: UnmetExpectation?
    func collect(for expectations: [Expectation]) {
      current = []
      transcript.onObject = expectations.isEmpty ? nil : { current.append($0) }
    }
    func check(_ expectations: [Expectation], step: String) {
      guard firstUnmet == nil, !expectations.isEmpty else { return }
      firstUnmet = ExpectationCheck.check(expectations, against: current, file: file, step: step)
    }
    defer { transcript.onObject = nil }
    collect(for: script.opening)
    device.start()
    check(script.opening, step: "start-up")
    for (index, line) in script.lines.enumerated() {
      collect(for: line.expectations)
      let end = schedule(line.step, at: clock.now)
      EventLoop.runVirtual(device, clock: clock, until: end)
      afterLine(line)
      if index == script.lines.count - 1 { transcript.summary(at: clock.now) }
      check(line.expectations, step: "line \(line.number) (`\(line.text)`)")
    }
    if script.lines.isEmpty { transcript.summary(at: clock.now) }
    return firstUnmet
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
