import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures

/// `soak`'s defaults: a virtual month, the seed of docs/proof.md's figures.
enum SoakBench {
  static let days = 28.0
  static let seed: UInt64 = 12
}

/// `pomodoro-bench soak [DAYS] [SEED]`: issue 12's soak (a virtual month by default) on the
/// mocks, with its figures. Fails (exit 1) when `Soak.Report.failures` has any: its figure
/// `soak.problems` must be 0.
func soakBench(days: Double, seed: UInt64) -> Int32 {
  let cpuStart = cpuNanoseconds()
  let wallStart = monotonicNanoseconds()
  let report: Soak.Report
  do {
    report = try Soak(seed: seed).run(days: days)
  } catch {
    print("soak: could not start: \(error)")
    return ExitCode.failure
  }
  var usage = rusage()
  #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  #else
    getrusage(RUSAGE_SELF, &usage)
  #endif
  figure("soak.virtual_days", report.virtualDays, "days")
  figure("soak.seed", Double(seed), "")
  figure("soak.events", Double(report.events), "events")
  figure("soak.inputs", Double(report.inputs), "inputs")
  figure("soak.turns", Double(report.turns), "turns")
  figure("soak.detents", Double(report.detents), "detents")
  figure("soak.presses", Double(report.presses), "presses")
  figure("soak.holds", Double(report.holds), "holds")
  figure("soak.state_changes", Double(report.stateChanges), "changes")
  figure("soak.buzzer_edges", Double(report.buzzerEdges), "edges")
  figure("soak.flushes", Double(report.flushes), "flushes")
  figure("soak.sessions", Double(report.sessions), "sessions")
  figure("soak.completed", Double(report.completed), "sessions")
  figure("soak.boots", Double(report.boots), "boots")
  figure("soak.faults.display_unplugs", Double(report.displayUnplugs), "windows")
  figure("soak.faults.gpio_read_errors", Double(report.gpioReadErrors), "errors")
  figure("soak.faults.disk_full_windows", Double(report.diskFullWindows), "windows")
  figure("soak.faults.failed_writes", Double(report.failedWrites), "calls")
  figure("soak.peak_rss", Double(usage.ru_maxrss) / 1024, "MiB")
  // Memory flat: resident at the end of day 1, of every seventh day and of the last one.
  let mib = report.residentByDay.map { Double($0) / 1_048_576 }
  for (index, value) in mib.enumerated() where index == 0 || (index + 1) % 7 == 0 || index == mib.count - 1 {
    figure("soak.resident_day_\(index + 1)", value, "MiB")
  }
  if !mib.isEmpty { figure("soak.resident_growth", report.residentGrowthMiB ?? 0, "MiB") }
  let problems = report.failures
  figure("soak.cpu", Double(cpuNanoseconds() - cpuStart) / 1e9, "s")
  figure("soak.wall", Double(monotonicNanoseconds() - wallStart) / 1e9, "s")
  figure("soak.problems", Double(problems.count), "", expect: .equals(0))
  for problem in problems.prefix(10) { print("soak problem: \(problem)") }
  return ExitCode.ok
}
