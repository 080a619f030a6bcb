import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroHooks
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro hooks [--config FILE]`: runs `hook_command` and posts `webhook_url` on every change
/// of the device (docs/hooks.md), until SIGTERM.
enum HooksCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: [])
    guard args.positional.isEmpty else { throw UsageError("hooks takes no arguments, got '\(args.positional[0])'") }
    let log = Log()
    let file = args.values["--config"] ?? DeviceConfig.defaultPath
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: file, log: log)
    guard let socket = config.controlSocket else {
      throw ConfigError(
        file: file, line: 0, message: "control_socket is off: the hooks reach the device through it; turn it on")
    }
    var environment: [(String, String)] = []
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        environment.append((String(text[..<equals]), String(text[text.index(after: equals)...])))
      }
      entry += 1
    }
    let setup: HookRunner.Setup
    switch HooksService.setup(config, environment: environment) {
    case .success(let s): setup = s
    case .failure(let error):
      var named = error
      if named.file == DeviceConfig.defaultPath { named.file = file }
      throw named
    }
    // Beside the simulator on a laptop: its socket, as `ctl` finds it.
    let path =
      !Files.exists(socket) && args.values["--config"] == nil && Files.exists(ControlPaths.simulator)
      ? ControlPaths.simulator : socket
    return try HooksService.run(config: config, setup: setup, socketPath: path, log: log)
  }
}
