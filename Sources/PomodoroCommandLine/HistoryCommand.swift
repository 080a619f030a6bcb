import PomodoroConfig
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// `pomodoro history [--csv]`: the sessions from the state directory's history.jsonl.
enum HistoryCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: ["--csv"])
    guard args.positional.isEmpty else { throw UsageError("history takes no arguments, got '\(args.positional[0])'") }
    let config = try PomodoroCLI.loadConfig(
      args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: Log(sink: { _, _ in }))
    let log = HistoryLog(directory: config.stateDirectory)
    let csv = args.switches.contains("--csv")
    let out = LineOutput()
    if csv { out.line(HistoryLog.csvHeader) }
    // Streamed: memory stays flat however long the history is.
    try log.scan(
      entry: { e in out.line(csv ? HistoryLog.csvLine(e) : e.jsonLine) },
      damaged: { line in
        out.flush()
        PomodoroCLI.fail(
          "pomodoro: \(log.path) line \(line) is damaged (torn by a power cut, or a time out of range); skipped")
      })
    out.flush()
    return ExitCode.ok
  }
}
