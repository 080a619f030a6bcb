import PomodoroConfig
import PomodoroCore
import PomodoroLinux
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro run`: the real device, until SIGTERM, SIGINT or SIGQUIT; SIGHUP reloads the config.
package enum RunCommand {
  /// `openHardware`: the parts the config names (a test hands the mock hardware's).
  package static func run(
    _ words: ArraySlice<String>, openHardware: (DeviceConfig) throws -> DeviceParts = LinuxHardware.open
  ) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: [])
    guard args.positional.isEmpty else { throw UsageError("run takes no arguments, got '\(args.positional[0])'") }
    let log = Log()
    let file = args.values["--config"] ?? DeviceConfig.defaultPath
    let (config, lines) = try PomodoroCLI.loadConfigFile(args.values["--config"], defaultPath: file, log: log)
    let parts = try openHardware(config)
    if let pwm = parts.tone as? SysfsPWM {
      if let note = pwm.lockNote { log.warning(note) }
      if !pwm.claimed {
        log.notice("the buzzer's PWM channel is held by `pomodoro tune` or `probe`; the device takes it once that ends")
      }
    }
    let clock = SystemClock()
    // The state and history written by a thread of their own: the loop never waits on an fsync.
    var storage: Storage? = Storage(directory: config.stateDirectory, writesInBackground: true)
    do {
      try Files.makeDirectories(config.stateDirectory)
    } catch {
      log.error(
        "\(error); the timer runs but its state and history are not saved: set state_dir to a writable directory")
      storage = nil
    }
    let device = Device(
      config: config, parts: parts, clock: clock, screen: .standard(height: config.height), storage: storage, log: log,
      configFile: file, configLines: lines)
    let notify = SystemdNotify(environment: environment(["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]))
    let waiter = try PollWaiter(clock: clock)
    // SIGQUIT is a clean stop like SIGTERM (not the runtime's crash report); SIGHUP reloads.
    try Signals.watch([SIGQUIT])
    let service = DeviceService(
      device: device, notify: notify, log: log, configFile: file)
    if let path = config.controlSocket {
      // systemd makes /run/pomodoro (RuntimeDirectory=); run by hand, make it (group may enter).
      _ = mkdir(Files.directory(of: path), 0o750)
      do {
        service.control = try ControlServer(path: path, device: device, log: log)
        log.info("control socket at \(path)")
      } catch {
        // The device works without it: buttons and the display do not depend on scripts.
        log.warning(
          "\(error); the device runs without its control socket (set control_socket, or RuntimeDirectory=pomodoro in the unit)"
        )
      }
    }
    return service.serve(waiter: waiter)
  }

  static func environment(_ names: [String]) -> [String: String] {
    var out: [String: String] = [:]
    for name in names { if let v = getenv(name) { out[name] = String(cString: v) } }
    return out
  }
}
