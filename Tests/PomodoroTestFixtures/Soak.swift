import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// Issue 12's soak: the whole device on the mocks for virtual days of random use (turns with
/// bounce, presses, holds), with the display unplugged, GPIO reads failing, the disk full and
/// the device restarted at random, on `FaultyFileSystem`. Seeded: a run reproduces. After the
/// run, with the faults over, the history must be exactly the records the device reported
/// (`DeviceObserver.recorded`), in order, none twice.
public final class Soak {
  public struct Report: Sendable {
    public var virtualDays = 0.0
    public var turns = 0
    public var presses = 0
    public var holds = 0
    public var detents = 0
    /// What the device reported: state changes, buzzer edges, panel flushes, records.
    public var stateChanges = 0
    public var buzzerEdges = 0
    public var flushes = 0
    public var sessions = 0
    public var completed = 0
    public var boots = 0
    public var displayUnplugs = 0
    public var gpioReadErrors = 0
    public var diskFullWindows = 0
    /// Write-side file system calls that failed inside the disk-full windows.
    public var failedWrites = 0
    /// Resident memory at the end of each virtual day (bytes; Linux only, else empty).
    public var residentByDay: [Int] = []
    /// Invariants that did not hold; empty when the soak passed.
    public var problems: [String] = []

    public var inputs: Int { turns + presses + holds }
    public var events: Int { inputs + stateChanges + buzzerEdges + flushes + sessions }
    public var faults: Int { displayUnplugs + gpioReadErrors + diskFullWindows }

    /// Resident memory may grow this much from the end of day 1 to the end of the last day; more
    /// is a leak.
    public static let residentGrowthLimitMiB = 4.0
    /// How much resident memory grew from the end of day 1 to the end of the last day, in MiB;
    /// nil without two days measured.
    public var residentGrowthMiB: Double? {
      guard residentByDay.count > 1, let first = residentByDay.first, let last = residentByDay.last else { return nil }
      return Double(last - first) / 1_048_576
    }
    /// What fails the soak (`pomodoro-bench soak` exits 1 on any): the invariants that did not
    /// hold, and resident memory grown past `residentGrowthLimitMiB`.
    public var failures: [String] {
      guard let growth = residentGrowthMiB, growth > Self.residentGrowthLimitMiB else { return problems }
      return problems + ["resident memory grew \(growth) MiB from day 1 (a leak?)"]
    }

    public init() {}
  }

  /// What the device reported, as the transcript has it.
  package final class Recorder: DeviceObserver {
    package var records: [String] = []
    package var report: Report
    package init(_ report: Report) { self.report = report }
    package func stateChanged(_ state: EngineState, at: Instant) { report.stateChanges += 1 }
    package func frameFlushed(bytes: Int, shown: String, at: Instant) { report.flushes += 1 }
    package func buzzerChanged(_ on: Bool, at: Instant) { report.buzzerEdges += 1 }
    package func recorded(_ entry: HistoryEntry, at: Instant) {
      records.append(entry.jsonLine)
      report.sessions += 1
      if entry.outcome == .completed { report.completed += 1 }
    }
  }

  public static let directory = "/var/lib/pomodoro"
  package static let never = Instant(nanoseconds: .max / 2)
  public let config: DeviceConfig
  public let fileSystem = FaultyFileSystem()
  package let clock = VirtualClock(start: Instant(nanoseconds: 5_000_000_000))
  package let screen: Screen
  package var rng: SplitMix64
  package var hardware: MockHardware!
  package var device: Device!
  package let recorder = Recorder(Report())
  /// Log lines of the run, counted by level (the soak keeps none: memory must stay flat).
  public private(set) var logged: [Log.Level: Int] = [:]

  /// - Parameters:
  ///   - screen: what the panel shows; nil: the standard screen.
  public init(seed: UInt64, config: DeviceConfig = DeviceConfig(), screen: Screen? = nil) throws {
    var config = config
    config.stateDirectory = Self.directory
    self.config = config
    self.screen = screen ?? .standard(height: config.height)
    rng = SplitMix64(seed: seed)
    try Files.makeDirectories(Self.directory, in: fileSystem)
  }

  private func int(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }
  private func chance(_ percent: Double) -> Bool { Double(rng.next() % 1_000_000) < percent * 10_000 }
  /// A random span with an exponential distribution of mean `mean`.
  private func span(mean: Nanoseconds) -> Nanoseconds {
    let u = (Double(rng.next() % 1_000_000) + 0.5) / 1_000_000
    return Nanoseconds(-log(u) * Double(mean))
  }

  /// A new boot on the same storage: fresh mock hardware (the chip and panel as after power
  /// on), the state restored from the file system.
  private func boot() throws {
    hardware = try MockHardware(config: config, clock: clock)
    let clock = self.clock
    let log = Log(sink: { [unowned self] level, _ in self.logged[level, default: 0] += 1 })
    device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: screen,
      storage: Storage(directory: Self.directory, fileSystem: fileSystem), log: log,
      wallClock: { WallTime(epochSeconds: 1_796_040_000 + wholeSeconds(clock.now.nanoseconds), synced: true) })
    device.observer = recorder
    recorder.report.boots += 1
    device.start()
  }

  /// The history on disk against the records reported so far: equal, in order.
  private func checkHistory(_ when: String) {
    do {
      let (entries, damaged) = try HistoryLog(directory: Self.directory, fileSystem: fileSystem).read()
      let lines = entries.map(\.jsonLine)
      if !damaged.isEmpty { recorder.report.problems.append("\(when): damaged history lines \(damaged)") }
      if lines != recorder.records {
        let same = zip(lines, recorder.records).prefix { $0 == $1 }.count
        recorder.report.problems.append(
          "\(when): the history has \(lines.count) records, the transcript \(recorder.records.count); they differ from record \(same + 1)"
        )
      }
    } catch {
      recorder.report.problems.append("\(when): the history cannot be read: \(error)")
    }
  }

  /// No session recorded twice: two records of one mode and length that started (ended less
  /// the time it ran) within a second of each other are one session. Inputs are more than a
  /// second apart, so two real sessions never start that close.
  private func checkNoSessionTwice() {
    var starts: [String: [Int64]] = [:]
    for line in recorder.records {
      guard let e = HistoryEntry(jsonLine: line) else { continue }
      let key = "\(e.mode) \(e.plannedMs)"
      let start = wholeMilliseconds(seconds(e.ended.epochSeconds)) - e.actualMs
      if let near = starts[key]?.last(where: { abs($0 - start) < 1000 }) {
        recorder.report.problems.append("a session recorded twice: \(line) (one started at \(near) ms)")
      }
      starts[key, default: []].append(start)
    }
  }

  /// Runs `days` virtual days, noting resident memory at the end of each.
  public func run(days: Double) throws -> Report {
    try boot()
    let end = clock.now + PomodoroCore.days(days)
    var nextDay = clock.now + PomodoroCore.days(1)
    var nextInput = clock.now + seconds(5)
    var nextUnplug = clock.now + span(mean: minutes(180))
    var plugBackAt: Instant? = nil
    var nextDiskFull = clock.now + span(mean: minutes(240))
    var diskBackAt: Instant? = nil
    var nextReadError = clock.now + span(mean: hours(60))
    var nextReboot = clock.now + span(mean: hours(30))
    while clock.now < end {
      let next = [nextDay, nextInput, nextUnplug, plugBackAt, nextDiskFull, diskBackAt, nextReadError, nextReboot, end]
        .compactMap { $0 }.min()!
      EventLoop.runVirtual(device, clock: clock, until: next)
      let now = clock.now
      if now >= nextDay {
        recorder.report.residentByDay.append(Self.residentBytes())
        nextDay = nextDay + PomodoroCore.days(1)
      }
      if now >= nextInput { nextInput = input(at: now) }
      if now >= nextUnplug {
        hardware.emulator.unplugged = true
        recorder.report.displayUnplugs += 1
        plugBackAt = now + 1 + span(mean: chance(50) ? seconds(20) : minutes(20))
        nextUnplug = Self.never
      }
      if let back = plugBackAt, now >= back {
        hardware.emulator.unplugged = false
        plugBackAt = nil
        nextUnplug = now + span(mean: minutes(180))
      }
      if now >= nextDiskFull {
        if chance(50) {
          fileSystem.capacity = fileSystem.used + int(300)  // Filling up: a few bytes still fit.
        } else {
          fileSystem.fault = .noSpace
        }
        recorder.report.diskFullWindows += 1
        diskBackAt = now + 1 + span(mean: chance(70) ? minutes(5) : minutes(120))
        nextDiskFull = Self.never
      }
      if let back = diskBackAt, now >= back {
        endDiskFull()
        diskBackAt = nil
        nextDiskFull = now + span(mean: minutes(240))
      }
      if now >= nextReadError {
        // Inputs are ignored from now until a restart, as on the device: a reboot follows.
        hardware.chip.readError = .io("soak: the line went away")
        recorder.report.gpioReadErrors += 1
        nextReadError = now + span(mean: hours(60))
        nextReboot = min(nextReboot, now + 1 + span(mean: minutes(30)))
      }
      if now >= nextReboot {
        if diskBackAt == nil {
          try reboot(unplugged: plugBackAt != nil)
          nextReboot = now + span(mean: hours(30))
        } else {
          nextReboot = diskBackAt! + 1  // A clean restart while the disk is full would lose records held in memory.
        }
      }
    }
    // The faults end; a clean stop saves the state and writes what was held in memory.
    endDiskFull()
    hardware.emulator.unplugged = false
    EventLoop.runVirtual(device, clock: clock, until: clock.now + seconds(60))
    device.shutdown()
    checkHistory("at the end")
    checkNoSessionTwice()
    recorder.report.failedWrites = fileSystem.faultsInjected
    recorder.report.virtualDays = days
    return recorder.report
  }

  private func endDiskFull() {
    fileSystem.capacity = nil
    fileSystem.fault = nil
  }

  private func reboot(unplugged: Bool) throws {
    device.shutdown()
    checkHistory("at restart \(recorder.report.boots)")
    try boot()
    hardware.emulator.unplugged = unplugged
  }

  /// One random input from `now`: a turn (with bounce, sometimes fast), a press or a hold.
  /// Returns when the next may start: at least a second after this one is over, usually minutes.
  private func input(at now: Instant) -> Instant {
    let chip = hardware.chip
    var free: Instant
    switch int(10) {
    case 0, 1, 2:
      let detents = (1 + int(chance(20) ? 40 : 6)) * (chance(50) ? 1 : -1)
      free = hardware.turn(detents, fast: chance(20), bounce: chance(80), at: now)
      recorder.report.turns += 1
      recorder.report.detents += abs(detents)
    case 3:
      free =
        chip.scheduleHold(config.pin(Button.allCases[int(3)]), at: now, bounce: bounce()) + MockHardware.releaseTime
      recorder.report.holds += 1
    default:
      let button: Button = chance(60) ? .start : chance(50) ? .cancel : .encoder
      free =
        chip.schedulePress(config.pin(button), at: now, holding: ms(40 + Int64(int(200))), bounce: bounce())
        + MockHardware.releaseTime
      recorder.report.presses += 1
    }
    // Mostly a burst of handling (seconds apart), now and then a long pause (a session runs).
    let pause = chance(70) ? seconds(1) + span(mean: seconds(8)) : seconds(1) + span(mean: minutes(40))
    return free + pause
  }

  private func bounce() -> Nanoseconds { chance(80) ? MockHardware.bounceTime : 0 }

  /// Resident memory now, from /proc/self/statm (0 where there is none).
  public static func residentBytes() -> Int {
    guard let text = try? Files.readText("/proc/self/statm") else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
