import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pomodoro-bench soak [DAYS] [SEED]`: issue 12's soak (a virtual month by default) on the
/// mocks, with its figures. Exits 1 when an invariant did not hold.
func soakBench(days: Double, seed: UInt64) {
  let cpuStart = cpuNanoseconds()
  let wallStart = monotonicNanoseconds()
  let report: Soak.Report
  do {
    report = try Soak(seed: seed).run(days: days) { r in
      if Int(r.virtualDays.rounded()) % 7 == 0 {
        figure(
          "soak.resident_day_\(Int(r.virtualDays.rounded()))", Double(r.residentByDay.last ?? 0) / 1_048_576, "MiB")
      }
    }
  } catch {
    print("soak: could not start: \(error)")
    exit(1)
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
  figure("soak.cpu", Double(cpuNanoseconds() - cpuStart) / 1e9, "s")
  figure("soak.wall", Double(monotonicNanoseconds() - wallStart) / 1e9, "s")
  figure("soak.problems", Double(report.problems.count), "")
  for problem in report.problems.prefix(10) { print("soak problem: \(problem)") }
  if !report.problems.isEmpty { exit(1) }
}
