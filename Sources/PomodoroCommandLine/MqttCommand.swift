import PomodoroConfig
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro mqtt [--config FILE]`: the MQTT bridge, until SIGTERM. `--remove`: withdraw the
/// desk's device from Home Assistant (empty retained discovery, state and availability) and stop.
enum MqttCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: ["--remove"])
    guard args.positional.isEmpty else { throw UsageError("mqtt takes no arguments, got '\(args.positional[0])'") }
    guard MQTTBridge.available else {
      PomodoroCLI.fail("pomodoro: \(MQTTBridge.notInstalled)")
      return ExitCode.unavailable
    }
    if let why = MQTTBridge.loadError {
      PomodoroCLI.fail("pomodoro: \(why)")
      return ExitCode.unavailable
    }
    let log = Log()
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: log)
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
