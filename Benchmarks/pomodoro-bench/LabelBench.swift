import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// Issue 35 item 4: the history by label at a million lines (about 150 MiB with labels):
/// `stats --by-label` and `history --ics --days 7`, each the built binary's wall time, CPU time
/// and peak resident memory (the aim: under 1 s and 16 MiB each). Both read the file from its
/// end back to their span only: sessions every 10 minutes up to now (6.9 years) put 12 weeks at
/// 12,096 lines and a week at 1,008. The dense case, a million lines inside the 12 weeks (one
/// every 7 s: a flood over the control socket), reads them all, and the whole file's
/// `history --ics` is given for comparison.
func labelBench(lines: Int = 1_000_000) {
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# label figures skipped: build \(binary) first (swift build -c release)")
    return
  }
  let directory = "/tmp/pomodoro-bench-labels"
  mkdir(directory, 0o755)
  let path = directory + "/history.jsonl"
  let config = directory + "/pomodoro.conf"
  let ics = directory + "/out.ics"
  writeText(config, "state_dir = \(directory)\n")
  defer {
    unlink(path)
    unlink(config)
    unlink(ics)
    rmdir(directory)
  }
  // Seven labels and sessions without one, as a desk used for a few projects has them.
  let labels: [SessionLabel?] =
    ["Thesis, ch. 2", "Mail", "日本語のラベル", "Review; PR 35", "Reading", "Taxes", "Garden"].map {
      if case .success(let l) = SessionLabel.parse($0) { return l }
      return nil
    } + [nil, nil]
  let now = WallTime.now().epochSeconds
  func write(every step: Int64) {
    guard let file = fopen(path, "w") else { return }
    let modes = Mode.allCases
    let first = now - Int64(lines) * step
    for i in 0..<lines {
      var entry = HistoryEntry(
        ended: WallTime(epochSeconds: first + Int64(i) * step, synced: true), mode: modes[i % modes.count],
        outcome: i % 11 == 0 ? .cancelled : .completed, plannedMs: 1_500_000, actualMs: 1_500_000)
      entry.label = labels[i % labels.count]
      if i % 3 == 0 { entry.interruptions = Interruptions(internal: 1, external: i % 2) }
      fputs(entry.jsonLine + "\n", file)
    }
    fclose(file)
  }
  func measure(_ name: String, _ args: [String]) {
    measureChild("labels", name, suffix: "1m_lines", binary, args + ["--config", config], stdout: ics)
  }
  func events() -> Int {
    guard let text = try? Files.readText(ics, limit: 64 << 20) else { return 0 }
    return text.components(separatedBy: "BEGIN:VEVENT").count - 1
  }
  write(every: 600)
  figure("labels.lines", Double(lines), "lines")
  measure("stats_by_label", ["stats", "--by-label"])
  measure("history_ics_7_days", ["history", "--ics", "--days", "7"])
  figure("labels.history_ics_7_days_events", Double(events()), "events")
  measure("history_ics_whole", ["history", "--ics"])
  figure("labels.history_ics_whole_events", Double(events()), "events")
  write(every: 7)
  measure("stats_by_label_dense", ["stats", "--by-label"])
  measure("history_ics_7_days_dense", ["history", "--ics", "--days", "7"])
}
