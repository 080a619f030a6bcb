import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroWeb

/// `pomodoro web [--config FILE]`: the page for phones on the LAN, until SIGTERM.
/// `web pair`: prints a code that pairs one browser (for a desk whose display does not work);
/// `web forget`: revokes every pairing.
enum WebCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: [])
    guard args.positional.count <= 1 else { throw UsageError("web takes at most one of: pair, forget") }
    let verb = args.positional.first
    guard verb == nil || verb == "pair" || verb == "forget" else {
      throw UsageError("web: unknown '\(verb ?? "")'; it takes pair or forget, or nothing to serve the page")
    }
    guard WebService.available else {
      PomodoroCLI.fail("pomodoro: \(WebService.notInstalled)")
      return ExitCode.unavailable
    }
    let environment = RunCommand.environment(["STATE_DIRECTORY", "XDG_STATE_HOME", "HOME"])
    let directory = WebService.stateDirectory(environment: environment)
    switch verb {
    case "pair":
      let code: String
      do {
        try Files.makeDirectories(directory, permissions: 0o700)
        code = try Pairings.leaveCode(directory: directory, now: SystemClock().now)
      } catch {
        PomodoroCLI.fail("pomodoro web pair: cannot leave a code in \(directory): \(error) (run it with sudo)")
        return ExitCode.noPermission
      }
      print(
        "\(code)  (type it on the page within \(DurationText.format(PairingGate.codeLifetime)); it pairs one browser)")
      return ExitCode.ok
    case "forget":
      do {
        let n = try Pairings.forget(directory: directory)
        print("forgot \(n) paired browser\(n == 1 ? "" : "s"); each must pair again to act")
      } catch {
        PomodoroCLI.fail("pomodoro web forget: cannot change \(directory): \(error) (run it with sudo)")
        return ExitCode.noPermission
      }
      return ExitCode.ok
    default:
      if let why = HTTPServer.loadError {
        PomodoroCLI.fail("pomodoro: \(why)")
        return ExitCode.unavailable
      }
      let log = Log()
      let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: log)
      guard let socket = config.controlSocket else {
        throw ConfigError(
          file: args.values["--config"] ?? DeviceConfig.defaultPath, line: 0,
          message: "control_socket is off: the page reaches the device through it; turn it on")
      }
      // Beside the simulator on a laptop: its socket, as `ctl` finds it.
      let path =
        !Files.exists(socket) && args.values["--config"] == nil && Files.exists(ControlPaths.simulator)
        ? ControlPaths.simulator : socket
      do {
        return try WebService.run(config: config, socketPath: path, stateDirectory: directory, log: log)
      } catch let e as HTTPServerError {
        log.error("cannot serve the page: \(e)")
        return ExitCode.unavailable
      }
    }
  }
}
