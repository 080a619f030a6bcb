import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro simulate` without a script: the whole device in a terminal, on the mock hardware
/// and the real clock, driven by the same event loop as `pomodoro run`. Keys become GPIO edges
/// on the mock lines; the panel is drawn from the emulated controller's RAM.
public enum InteractiveSimulator {
  /// How much faster time runs with fast-forward (`f`).
  public static let fastForwardRate: Int64 = 60
  /// Detents in one fast spin (Shift-arrow, J/K), 10 ms apart.
  public static let spinDetents = 5
  /// Keys that would queue GPIO edges further ahead than this are dropped (a held key).
  public static let maxBacklog = seconds(1)
  /// The shortest time between two screen updates (at most 40 a second reach the terminal).
  public static let frameInterval = ms(25)

  /// Runs on the process's terminal (stdin, stdout) until `q`, Ctrl-C, end of input or
  /// SIGINT/SIGTERM/SIGHUP, and returns the exit code (0). The terminal is restored on every
  /// way out, errors included. `bell: false` keeps the terminal bell quiet while the buzzer sounds.
  /// `configFile`: where `config` was read and the line of each key (what `ctl config` says).
  public static func run(
    config: DeviceConfig, bell: Bool, control: String? = nil, configFile: (path: String, lines: [String: Int])? = nil
  ) throws -> Int32 {
    try run(config: config, bell: bell, terminal: .standard, control: control, configFile: configFile)
  }

  /// As `run(config:bell:)`, on the given terminal descriptors (a pseudo-terminal in tests)
  /// and with the given screen (the device's own by default).
  /// `control`: where to serve the control socket (nil: none).
  public static func run(
    config: DeviceConfig, bell: Bool, terminal: TerminalIO, screen: Screen? = nil, control: String? = nil,
    configFile: (path: String, lines: [String: Int])? = nil
  ) throws -> Int32 {
    let session = try InteractiveSession(
      config: config, bell: bell, io: terminal, screen: screen ?? Screen.standard(height: config.height),
      configFile: configFile)
    session.controlPath = control
    return try session.run()
  }
}
