import PomodoroConfig
import PomodoroSystem

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pomodoro mqtt [--config FILE] [--remove]`: the MQTT bridge, until SIGTERM. `--remove`:
/// withdraw the desk's device from Home Assistant (empty retained discovery, state and
/// availability) and stop. Run by `pomodoro-mqtt`, the bridge's own binary, which `pomodoro mqtt`
/// execs (docs/internals.md, "The processes' memory"), or in `pomodoro` itself where that binary
/// is not beside it.
public enum MQTTCommand {
  /// The bridge's binary, `pomodoro-mqtt`: its words are those after `pomodoro mqtt`; errors are
  /// said and mapped to exit codes as `pomodoro` does.
  public static func main(_ words: ArraySlice<String>) -> Int32 {
    do {
      return try run(words)
    } catch {
      let failure = ConfigFile.failure(error) ?? ("pomodoro: \(error)", ExitCode.failure)
      writeToStandardError(failure.message + "\n")
      return failure.code
    }
  }

  public static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: ["--remove"])
    guard args.positional.isEmpty else { throw UsageError("mqtt takes no arguments, got '\(args.positional[0])'") }
    guard MQTTBridge.available else {
      writeToStandardError("pomodoro: \(MQTTBridge.notInstalled)\n")
      return ExitCode.unavailable
    }
    if let why = MQTTBridge.loadError {
      writeToStandardError("pomodoro: \(why)\n")
      return ExitCode.unavailable
    }
    let log = Log()
    let config = try ConfigFile.load(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: log).config
    var name = [CChar](repeating: 0, count: 256)
    gethostname(&name, name.count - 1)
    let bridge: MQTTBridge
    do {
      bridge = try MQTTBridge(
        config: config, log: log,
        hostName: text(ofCString: name),
        removing: args.switches.contains("--remove"))
    } catch let e as BridgeError {
      throw ConfigError(file: args.values["--config"] ?? DeviceConfig.defaultPath, line: 0, message: e.description)
    }
    if args.switches.contains("--remove") { return try bridge.remove() }
    return try bridge.run()
  }
}
