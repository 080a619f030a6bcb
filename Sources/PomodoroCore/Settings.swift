/// What the owner configures about the timer itself (the rest of the config is hardware).
public struct EngineSettings: Equatable, Sendable {
  /// Preset duration of each mode.
  public var presets: [Mode: Nanoseconds]
  /// A long break after every Nth completed focus.
  public var longBreakEvery: Int
  /// Start the preselected next session when the alarm is acknowledged.
  public var autoStart: Bool
  /// In the pomodoro modes the alarm stops by itself after this long and the device returns to
  /// idle with the next session preselected; nil: it rings until stopped.
  public var alarmTimeout: Nanoseconds?
  /// The same for the egg presets; by default they ring until stopped.
  public var eggAlarmTimeout: Nanoseconds?

  public init(
    presets: [Mode: Nanoseconds] = EngineSettings.defaultPresets,
    longBreakEvery: Int = 4,
    autoStart: Bool = false,
    alarmTimeout: Nanoseconds? = seconds(60),
    eggAlarmTimeout: Nanoseconds? = nil
  ) {
    self.presets = presets
    self.longBreakEvery = max(1, longBreakEvery)
    self.autoStart = autoStart
    self.alarmTimeout = alarmTimeout
    self.eggAlarmTimeout = eggAlarmTimeout
  }

  /// How long the alarm of a `mode` session rings unanswered; nil: until stopped.
  public func alarmTimeout(for mode: Mode) -> Nanoseconds? {
    mode.isEgg ? eggAlarmTimeout : alarmTimeout
  }

  public static let defaultPresets: [Mode: Nanoseconds] = [
    .focus: minutes(25), .shortBreak: minutes(5), .longBreak: minutes(15),
    .soft: minutes(5), .medium: minutes(7), .hard: minutes(12),
  ]

  /// The focus/break cycle these settings make.
  public var cycle: Cycle { Cycle(longBreakEvery: longBreakEvery) }

  /// The preset of `mode`, clamped to what the dial can show.
  public func preset(_ mode: Mode) -> Nanoseconds {
    Dial.clamp(presets[mode] ?? EngineSettings.defaultPresets[mode]!)
  }
}
