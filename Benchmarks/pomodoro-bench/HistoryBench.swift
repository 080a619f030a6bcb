import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// The history's readers at a million lines (about 140 MiB: years of a busy desk, or a flood of
/// start/cancel over the control socket): `pomodoro stats`, `history` and `history --csv`, each
/// the built binary's wall time, CPU time and peak resident memory. All three stream the file, so
/// memory stays flat (the aim: under 16 MiB and within 3 s each, on one core of a 2-core x86).
func historyBench(lines: Int = 1_000_000) {
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# history figures skipped: build \(binary) first (swift build -c release)")
    return
  }
  let directory = "/tmp/pomodoro-bench-history"
  mkdir(directory, 0o755)
  let path = directory + "/history.jsonl"
  let config = directory + "/pomodoro.conf"
  writeText(config, "state_dir = \(directory)\n")
  defer {
    unlink(path)
    unlink(config)
    rmdir(directory)
  }
  // Sessions every 10 minutes across the modes, as the device writes them.
  guard let file = fopen(path, "w") else { return }
  let modes = Mode.allCases
  for i in 0..<lines {
    let mode = modes[i % modes.count]
    let record = SessionRecord(
      mode: mode, outcome: i % 7 == 0 ? .cancelled : .completed, planned: minutes(25), actual: minutes(25),
      endedAt: .zero)
    let line =
      HistoryEntry(ended: WallTime(epochSeconds: 1_500_000_000 + Int64(i) * 600, synced: true), record: record)
      .jsonLine + "\n"
    fputs(line, file)
  }
  fclose(file)
  figure("history.lines", Double(lines), "lines")
  for (name, args) in [("stats", ["stats"]), ("history", ["history"]), ("history_csv", ["history", "--csv"])] {
    measureChild("history", name, suffix: "1m_lines", binary, args + ["--config", config])
  }
}
