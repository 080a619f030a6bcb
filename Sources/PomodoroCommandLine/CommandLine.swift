import PomodoroConfig
import PomodoroLinux
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroWeb

/// `pomodoro`: the commands, their help, and the mapping of errors to exit codes.
public enum PomodoroCLI {
  public static let version = Release.version

  /// Runs the command line `arguments` (without the program name) and returns the exit code.
  public static func main(_ arguments: [String]) -> Int32 {
    guard let first = arguments.first else {
      print(overview)
      return ExitCode.ok
    }
    let rest = arguments.dropFirst()
    return outcome {
      switch first {
      case "-h", "--help":
        print(overview)
        return ExitCode.ok
      case "-V", "--version":
        print(versionText)
        return ExitCode.ok
      case "help":
        guard let topic = rest.first else {
          print(overview)
          return ExitCode.ok
        }
        guard let named = command(topic) else { throw UsageError("no command '\(topic)'; commands: \(commandList)") }
        print(named.help)
        return ExitCode.ok
      case let name where Self.command(name) != nil:
        let named = Self.command(name)!
        if rest.contains("-h") || rest.contains("--help") {
          print(named.help)
          return ExitCode.ok
        }
        return try named.run(rest)
      default:
        throw UsageError("unknown command '\(first)'; commands: \(commandList)")
      }
    }
  }

  /// What `run` returns, or for what it throws the message on stderr and the exit code it maps to.
  package static func outcome(_ run: () throws -> Int32) -> Int32 {
    do {
      return try run()
    } catch {
      if let failure = ConfigFile.failure(error) {
        fail(failure.message)
        return failure.code
      }
      switch error {
      case let e as ScriptError:
        fail("pomodoro: script error: \(e)")
        return ExitCode.badScript
      case let e as HardwareError:
        fail("pomodoro: \(e)")
        return ExitCode.hardware
      default:
        fail("pomodoro: \(error)")
        return ExitCode.failure
      }
    }
  }

  static var versionText: String {
    let gpio = HardwareSupport.gpio ? "libgpiod v\(HardwareSupport.gpiodAPI) API" : "no libgpiod"
    let i2c = HardwareSupport.i2c ? "libi2c" : "no libi2c"
    // The MQTT bridge's libmosquitto, decided as `pomodoro mqtt` decides "not installed".
    let mqtt = MQTTBridge.available ? "libmosquitto" : "no libmosquitto"
    // And the web page's libmicrohttpd, as `pomodoro web` decides it.
    let web = WebService.available ? "libmicrohttpd" : "no libmicrohttpd"
    return "pomodoro \(version) (\(gpio), \(i2c), \(mqtt), \(web))"
  }

  static func fail(_ message: String) {
    writeToStandardError(message + "\n")
  }

  /// Reads the config at `path`; a missing file means the defaults (said once in the log).
  /// With `pins`, the config must fit that GPIO header (the simulator's).
  static func loadConfig(_ path: String?, defaultPath: String?, log: Log?, pins: PinSet? = nil) throws -> DeviceConfig {
    try loadConfigFile(path, defaultPath: defaultPath, log: log, pins: pins).config
  }

  /// `loadConfig`, with the line that sets each key (what `ctl config` says a value comes from).
  static func loadConfigFile(_ path: String?, defaultPath: String?, log: Log?, pins: PinSet? = nil) throws -> (
    config: DeviceConfig, lines: [String: Int]
  ) {
    try ConfigFile.load(path, defaultPath: defaultPath, log: log, pins: pins)
  }
}
