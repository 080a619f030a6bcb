import PomodoroConfig
import PomodoroRuntime
import PomodoroStats
import PomodoroSystem

/// `pomodoro stats [--days N] [--png FILE] [--config FILE]`: counts, streaks and a heatmap of the
/// state directory's history.jsonl.
enum StatsCommand {
  /// The heatmap's span without --days: 12 weeks.
  static let defaultDays = 84
  /// --by-label's span, in weeks.
  static let byLabelWeeks = LabelStats.defaultWeeks

  static func run(_ words: ArraySlice<String>, now: WallTime = .now()) throws -> Int32 {
    let args = try Arguments(
      words, valued: ["--config", "--days", "--png"], switches: ["--by-label", "--by-profile"])
    guard args.positional.isEmpty else { throw UsageError("stats takes no arguments, got '\(args.positional[0])'") }
    let groupings: [(String, LabelStats.Grouping)] = [("--by-label", .label), ("--by-profile", .profile)]
    let chosen = groupings.filter { args.switches.contains($0.0) }
    if chosen.count > 1 { throw UsageError("--by-label and --by-profile are two tables; ask for one") }
    if let (flag, grouping) = chosen.first {
      for other in ["--days", "--png"] where args.values[other] != nil {
        throw UsageError("\(flag) shows today, this week and \(byLabelWeeks) weeks; it takes no \(other)")
      }
      return try byLabel(args, by: grouping, now: now)
    }
    var days = defaultDays
    if let text = args.values["--days"] {
      guard let n = Int(text), (1...3660).contains(n) else {
        throw UsageError(
          "--days takes a number of days from 1 to 3660 (\(defaultDays) is \(defaultDays / 7) weeks), got '\(text)'")
      }
      days = n
    }
    // No log: a --config FILE that does not exist is an error; a missing default config means the defaults.
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: nil)
    let log = HistoryLog(directory: config.stateDirectory)
    // Streamed: memory stays flat however long the history is.
    var builder = HistoryStats.Builder(today: now.localCivilDay, days: days, goal: config.engine.dailyGoal)
    try log.scan(
      entry: { builder.add($0) },
      damaged: { line in
        builder.damaged(line)
        PomodoroCLI.fail(
          "pomodoro: \(log.path) line \(line) is damaged (torn by a power cut, or a time out of range); skipped")
      })
    let stats = builder.finish()
    print(StatsText.render(stats), terminator: "")
    if !now.synced {
      print("The wall clock is not set yet (no network time since boot): \"today\" may be wrong.")
    }
    if let file = args.values["--png"] {
      try Files.writeAtomically(file, StatsPicture.png(stats))
      print("wrote \(file)")
    }
    return ExitCode.ok
  }

  /// `stats --by-label` (or `--by-profile`): the history read from its end back to the span's
  /// start only.
  static func byLabel(_ args: Arguments, by grouping: LabelStats.Grouping, now: WallTime) throws -> Int32 {
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: nil)
    let log = HistoryLog(directory: config.stateDirectory)
    var builder = LabelStats.Builder(today: now.localCivilDay, weeks: byLabelWeeks, by: grouping)
    try log.scanBackward(
      entry: { builder.add($0) },
      damaged: { line in
        builder.damaged(line)
        PomodoroCLI.fail(
          "pomodoro: \(log.path) line \(line) from the end is damaged (torn by a power cut, or a time out of range); skipped"
        )
      })
    print(LabelStatsText.render(builder.finish(), by: grouping), terminator: "")
    if !now.synced {
      print("The wall clock is not set yet (no network time since boot): \"today\" may be wrong.")
    }
    return ExitCode.ok
  }
}
