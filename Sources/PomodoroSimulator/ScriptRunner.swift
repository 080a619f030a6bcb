import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem

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
    // The wall clock of a scripted run is virtual too: the epoch plus the script's time, moved
    // by `clock` lines.
    let clock = clock
    let wall = wall
    device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: screen, storage: nil, log: log,
      wallClock: { WallTime(epochSeconds: wholeSeconds(clock.now.nanoseconds) + wall.offset, synced: false) })
    transcript = Transcript(origin: clock.now, write: write)
    device.observer = transcript
  }

  /// Seconds the virtual wall clock is ahead of the epoch plus the script's time (`clock`).
  final class WallOffset {
    var offset: Int64 = 0
  }
  let wall = WallOffset()

  /// Detents of a long turn scheduled at a time: the mock chip holds only the edges of the
  /// chunk being run and the next, so a `turn +100000` costs no more memory than a `turn +100`.
  var turnChunk = 64

  /// What stopped the last `run` early (a signal's name), or nil when it ran every line.
  public private(set) var interruptedBy: String?

  /// Runs every line; `afterLine` sees each line once the device has run to its end (PNGs).
  /// Returns the first of the script's expectations not met (every line runs regardless, so
  /// the transcript is whole). `interruption` is asked after every device step: a non-nil
  /// answer (a signal's name) stops the run there, and the summary says `interrupted`;
  /// expectations are then not checked.
  @discardableResult
  public func run(
    _ script: Script, file: String = "script", interruption: () -> String? = { nil },
    afterLine: (ScriptLine) -> Void = { _ in }
  ) -> UnmetExpectation? {
    // Only the transcript lines of the step whose expectations are pending are kept, and of
    // those only the events they ask about (a 25-minute step's 6,000 frames are not kept for
    // expectations on its states): memory stays flat however long the script is.
    var objects: [[String: JSONValue]] = []
    // The transcript builds an object only for a step that has expectations.
    func collect(_ expectations: [Expectation]) {
      guard !expectations.isEmpty else {
        transcript.onObject = nil
        return
      }
      guard let events = Expectation.events(expectations) else {
        transcript.onObject = { objects.append($0) }
        return
      }
      transcript.onObject = { object in
        if let event = object["event"]?.string, events.contains(event) { objects.append(object) }
      }
    }
    collect(script.opening)
    var pending: (expectations: [Expectation], step: String)? = (script.opening, "start-up")
    var unmet: UnmetExpectation?
    var interrupted: String?
    func checkPending() {
      if let (expectations, step) = pending, unmet == nil, !expectations.isEmpty {
        unmet = ExpectationCheck.check(expectations, against: objects, file: file, step: step)
      }
      objects.removeAll(keepingCapacity: true)
      pending = nil
    }
    defer { transcript.onObject = nil }
    let stop = {
      if interrupted == nil { interrupted = interruption() }
      return interrupted != nil
    }
    device.start()
    for line in script.lines {
      // A line's expectations see the lines written during its run (the summary too, for the last).
      checkPending()
      pending = (line.expectations, "line \(line.number) (`\(line.text)`)")
      collect(line.expectations)
      guard run(line.step, from: clock.now, stop: stop) else { break }
      afterLine(line)
    }
    interruptedBy = interrupted
    transcript.summary(at: clock.now, interrupted: interrupted)
    if interrupted != nil { return nil }
    checkPending()
    return unmet
  }

  /// Runs one step from `start` to its end; false when `stop` said stop.
  func run(_ step: ScriptStep, from start: Instant, stop: () -> Bool) -> Bool {
    guard case .turn(let detents, let fast, let bounce) = step, abs(detents) > turnChunk else {
      return EventLoop.runVirtual(device, clock: clock, until: schedule(step, at: start), stop: stop)
    }
    // A long turn is fed to the chip a chunk ahead of the clock.
    let spacing = fast ? MockHardware.fastDetentSpacing : MockHardware.detentSpacing
    let direction = detents < 0 ? -1 : 1
    let total = abs(detents)
    var done = 0
    func scheduleChunk() {
      let n = min(turnChunk, total - done)
      hardware.turn(direction * n, fast: fast, bounce: bounce, at: start + Int64(done) * spacing)
      done += n
    }
    scheduleChunk()
    device.step()
    if stop() { return false }
    while done < total {
      // Everything before the next chunk's first edge, then that chunk.
      let next = start + Int64(done) * spacing
      guard EventLoop.runDeadlines(device, clock: clock, through: next - 1, stop: stop) else { return false }
      scheduleChunk()
    }
    let end = start + Int64(total) * spacing
    guard EventLoop.runDeadlines(device, clock: clock, through: end, stop: stop) else { return false }
    if clock.now < end {
      clock.advance(to: end)
      device.step()
      if stop() { return false }
    }
    return true
  }

  /// Schedules the edges of `step` from `start` and returns when the step is over.
  func schedule(_ step: ScriptStep, at start: Instant) -> Instant {
    switch step {
    case .turn(let detents, let fast, let bounce): return hardware.turn(detents, fast: fast, bounce: bounce, at: start)
    case .press(let button): return hardware.press(button, at: start)
    case .hold(let button, let duration): return hardware.press(button, at: start, holding: duration)
    case .wait(let duration): return start + duration
    case .clock(let minute):
      let now = WallTime(epochSeconds: wholeSeconds(clock.now.nanoseconds) + wall.offset, synced: false)
      wall.offset += now.localToday(minuteOfDay: minute) - now.epochSeconds
      device.wallClockChanged()
      return start
    case .set(let key, let value):
      _ = device.settingsAnswer(.configSet(key: key, value: value))
      return start
    case .presence(let here):
      hardware.presence(here, at: start)
      return start + PresenceWatch.settle
    case .profile(let name):
      device.perform(.setProfile(name))
      return start
    }
  }
}
