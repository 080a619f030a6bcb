// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation
  import PomodoroCore
  import PomodoroDrivers
  import PomodoroMock

  import PomodoroRuntime

  import PomodoroSystem
  import PomodoroConfig
  import PomodoroSimulator

  /// A device on mock hardware with a virtual clock and its storage in a temporary folder.
  package final class DeviceHarness {
    package let clock = VirtualClock(start: Instant(nanoseconds: 5_000_000_000))
    package let config: DeviceConfig
    package let hardware: MockHardware
    package let device: Device
    package var logLines: [(Log.Level, String)] = []
    package let directory: String

    package init(
      directory: String, config: DeviceConfig = DeviceConfig(),
      wall: @escaping () -> WallTime = { WallTime(epochSeconds: 1_796_040_000, synced: true) },
      fileSystem: FileSystem = PosixFileSystem.shared, screen: Screen? = nil, wallFollowsClock: Bool = false,
      storing: Bool = true, writesInBackground: Bool = false
    ) throws {
      let clock = self.clock
      let fixedWall = wall
      let wall =
        wallFollowsClock
        ? { WallTime(epochSeconds: 1_796_040_000 + wholeSeconds(clock.now.nanoseconds), synced: true) } : fixedWall
      var config = config
      config.stateDirectory = directory
      self.config = config
      self.directory = directory
      hardware = try MockHardware(config: config, clock: clock)
      let log = Log()
      device = Device(
        config: config, parts: hardware.parts, clock: clock, screen: screen ?? .standard(height: config.height),
        storage: storing
          ? Storage(directory: directory, fileSystem: fileSystem, writesInBackground: writesInBackground) : nil,
        log: log, wallClock: wall)
      log.sink = { [unowned self] level, message in self.logLines.append((level, message)) }
    }

    package func press(_ line: String, at offset: Nanoseconds = 0) {
      hardware.chip.schedulePress(line, at: clock.now + offset)
    }

    package func run(for span: Nanoseconds) { EventLoop.runVirtual(device, clock: clock, until: clock.now + span) }

    package var buzzerHistory: [MockGPIOChip.OutputRecord] { hardware.chip.outputHistory(config.buzzer) }

    package static func temporaryDirectory() throws -> String {
      let d = NSTemporaryDirectory() + "pomodoro-device-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
      return d
    }
  }
#endif
