import PomodoroRuntime

/// `pomodoro history [--csv]`: the sessions from the state directory's history.jsonl.
enum HistoryCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: ["--csv"])
    guard args.positional.isEmpty else { throw UsageError("history takes no arguments, got '\(args.positional[0])'") }
    let config = try PomodoroCLI.loadConfig(
      args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: Log(sink: { _, _ in }))
    let log = HistoryLog(directory: config.stateDirectory)
    let (entries, damaged) = try log.read()
    for line in damaged {
      PomodoroCLI.fail("pomodoro: \(log.path) line \(line) is damaged (a power cut?); skipped")
    }
    if args.switches.contains("--csv") {
      print(HistoryLog.csv(entries), terminator: "")
    } else {
      for e in entries { print(e.jsonLine) }
    }
    return ExitCode.ok
  }
}
