import PomodoroSystem

/// Reading the config a command names, and the errors every command shares: what `pomodoro` and a
/// server's own binary (`pomodoro-mqtt`) do alike.
public enum ConfigFile {
  /// Reads the config at `path` (else `defaultPath`), with the line that sets each key (what `ctl
  /// config` says a value comes from). A missing file means the defaults (said once in the log);
  /// with `--config` and no log it is an error. With `pins`, the config must fit that GPIO header
  /// (the simulator's).
  public static func load(_ path: String?, defaultPath: String?, log: Log?, pins: PinSet? = nil) throws -> (
    config: DeviceConfig, lines: [String: Int]
  ) {
    guard let file = path ?? defaultPath else { return (DeviceConfig(), [:]) }
    let text: String?
    do {
      text = try Files.readText(file)
    } catch {
      throw ConfigError(file: file, line: 0, message: "cannot read it: \(error)")
    }
    guard let text else {
      if path != nil && log == nil {
        throw ConfigError(file: file, line: 0, message: "no such file; pass an existing config or leave --config out")
      }
      log?.notice("no config at \(file); using the defaults")
      return (DeviceConfig(), [:])
    }
    return (try ConfigParser.parse(text, file: file, pins: pins), ConfigParser.lines(in: text))
  }

  /// What a command says and exits with for a usage or config error; nil for any other error.
  public static func failure(_ error: Error) -> (message: String, code: Int32)? {
    switch error {
    case let e as UsageError: ("pomodoro: \(e)\nTry 'pomodoro --help'.", ExitCode.usage)
    case let e as ConfigError: ("pomodoro: config error: \(e)", ExitCode.config)
    default: nil
    }
  }
}
