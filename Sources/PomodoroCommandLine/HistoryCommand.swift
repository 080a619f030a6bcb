import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroStats
import PomodoroSystem

/// `pomodoro history [--csv | --ics] [--label TEXT] [--days N]`: the sessions from the state
/// directory's history.jsonl.
enum HistoryCommand {
  /// The most days --days takes (as `stats`).
  static let mostDays = 3660

  static func run(_ words: ArraySlice<String>, now: WallTime = .now()) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config", "--label", "--days"], switches: ["--csv", "--ics"])
    guard args.positional.isEmpty else { throw UsageError("history takes no arguments, got '\(args.positional[0])'") }
    let csv = args.switches.contains("--csv")
    let ics = args.switches.contains("--ics")
    guard !(csv && ics) else { throw UsageError("history takes --csv or --ics, not both") }
    var label: SessionLabel?
    if let text = args.values["--label"] {
      switch SessionLabel.parse(text) {
      case .failure(let refusal): throw UsageError("--label: \(refusal.message)")
      case .success(nil): throw UsageError("--label needs a label's text, got only spaces")
      case .success(let parsed?): label = parsed
      }
    }
    var days: Int?
    if let text = args.values["--days"] {
      guard let n = Int(text), (1...mostDays).contains(n) else {
        throw UsageError("--days takes a number of days from 1 to \(mostDays) (today is 1), got '\(text)'")
      }
      days = n
    }
    let config = try PomodoroCLI.loadConfig(
      args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: Log(sink: { _, _ in }))
    let log = HistoryLog(directory: config.stateDirectory)
    let out = LineOutput()
    var unsynced = 0
    if csv { out.line(HistoryLog.csvHeader) }
    // iCalendar's lines end in CRLF: LineOutput adds the LF.
    if ics { for line in HistoryCalendar.header() { out.line(HistoryCalendar.fold(line) + "\r") } }
    func take(_ e: HistoryEntry) {
      if let label, e.label != label { return }
      if ics {
        guard let event = HistoryCalendar.event(e) else {
          if e.isCompletedFocus { unsynced += 1 }
          return
        }
        for line in event { out.line(HistoryCalendar.fold(line) + "\r") }
      } else {
        out.line(csv ? HistoryLog.csvLine(e) : e.jsonLine)
      }
    }
    func damaged(_ line: Int, _ whence: String) {
      out.flush()
      PomodoroCLI.fail(
        "pomodoro: \(log.path) line \(line)\(whence) is damaged (torn by a power cut, or a time out of range); skipped")
    }
    // Streamed: memory stays flat however long the history is; with --days only the span's
    // lines are read, from the file's end.
    if let days {
      try log.scan(days: days, today: now.localCivilDay, entry: take, damaged: { damaged($0, " from the end") })
    } else {
      try log.scan(entry: take, damaged: { damaged($0, "") })
    }
    if ics { for line in HistoryCalendar.footer { out.line(line + "\r") } }
    out.flush()
    if unsynced > 0 {
      PomodoroCLI.fail(
        "pomodoro: \(unsynced) focus session(s) recorded before the wall clock was set left out of the calendar (their dates cannot be trusted)"
      )
    }
    return ExitCode.ok
  }
}
