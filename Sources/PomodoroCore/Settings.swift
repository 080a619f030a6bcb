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
  /// The modes the knob's push steps through while idle, in that order (never empty).
  public var modes: [Mode]
  /// A flow earns a break of its length divided by this (rounded to the minute).
  public var flowBreakRatio: Int
  /// Completed focus sessions a day the owner aims at; 0: no goal.
  public var dailyGoal: Int
  /// The named profiles, in the config's order (at most `Profile.most`, each name once).
  public var profiles: [Profile]
  /// The profile chosen at start (the config's `profile`); nil: these settings as they are.
  public var profile: String?

  public init(
    presets: [Mode: Nanoseconds] = EngineSettings.defaultPresets,
    longBreakEvery: Int = 4,
    autoStart: Bool = false,
    alarmTimeout: Nanoseconds? = seconds(60),
    eggAlarmTimeout: Nanoseconds? = nil,
    modes: [Mode] = Mode.allCases,
    flowBreakRatio: Int = 5,
    dailyGoal: Int = 0,
    profiles: [Profile] = [],
    profile: String? = nil
  ) {
    self.presets = presets
    self.longBreakEvery = max(1, longBreakEvery)
    self.autoStart = autoStart
    self.alarmTimeout = alarmTimeout
    self.eggAlarmTimeout = eggAlarmTimeout
    self.modes = modes.isEmpty ? Mode.allCases : modes
    self.flowBreakRatio = max(1, flowBreakRatio)
    self.dailyGoal = max(0, dailyGoal)
    self.profiles = profiles
    self.profile = profile
  }

  /// How long the alarm of a `mode` session rings unanswered; nil: until stopped.
  public func alarmTimeout(for mode: Mode) -> Nanoseconds? {
    switch mode.kind {
    case .egg: return eggAlarmTimeout
    case .focus, .rest, .flow: return alarmTimeout
    }
  }

  public static let defaultPresets: [Mode: Nanoseconds] = [
    .focus: minutes(25), .shortBreak: minutes(5), .longBreak: minutes(15),
    .soft: minutes(5), .medium: minutes(7), .hard: minutes(12),
  ]

  /// The focus/break cycle these settings make.
  public var cycle: Cycle { Cycle(longBreakEvery: longBreakEvery) }

  /// The preset of `mode`, clamped to what the dial can show; nil for flow, which has none: it
  /// counts up until it is ended.
  public func preset(_ mode: Mode) -> Nanoseconds? {
    switch mode.kind {
    case .flow: return nil
    case .focus, .rest, .egg:
      return Dial.clamp(presets[mode] ?? EngineSettings.defaultPresets[mode] ?? Dial.longest)
    }
  }

  /// The long break's preset: the most a flow earns.
  public var longBreak: Nanoseconds { preset(.longBreak) ?? EngineSettings.defaultPresets[.longBreak] ?? minutes(15) }

  /// The break a flow of `elapsed` has earned: `elapsed / flowBreakRatio` rounded to the nearest
  /// whole minute (a half up), at least a minute, at most the long break's preset; nothing (0)
  /// within its first minute, when ending it cancels it.
  public func earnedBreak(_ elapsed: Nanoseconds) -> Nanoseconds {
    guard elapsed >= EngineSettings.shortestFlow else { return 0 }
    let minute = minutes(1)
    let share = elapsed / Int64(flowBreakRatio)
    let rounded = (share + minute / 2) / minute * minute
    return min(longBreak, max(minute, rounded))
  }

  /// A flow ended before this is cancelled, and earns nothing.
  public static let shortestFlow: Nanoseconds = minutes(1)
}
