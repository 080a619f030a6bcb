import PomodoroCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Prints one figure a line: `name value unit`, so that runs can be compared with diff, and keeps
/// it for `--json FILE` (`Figures`). With `expect`, the run fails (exit 1) unless the value meets it.
func figure(_ name: String, _ value: Double, _ unit: String, expect: Expectation? = nil) {
  let rounded = (value * 1000).rounded() / 1000
  print("\(name) \(rounded) \(unit)")
  Figures.shared.add(Figure(name: name, value: rounded, unit: unit, expect: expect))
}

/// CPU time used by this process so far, in nanoseconds (CLOCK_PROCESS_CPUTIME_ID).
func cpuNanoseconds() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
  return seconds(Int64(ts.tv_sec)) + Int64(ts.tv_nsec)
}

/// Monotonic wall time, in nanoseconds.
func monotonicNanoseconds() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return seconds(Int64(ts.tv_sec)) + Int64(ts.tv_nsec)
}

/// Runs `body` `iterations` times and returns CPU nanoseconds per iteration.
func cpuPerIteration(_ iterations: Int, _ body: () -> Void) -> Double {
  let start = cpuNanoseconds()
  for _ in 0..<iterations { body() }
  return Double(cpuNanoseconds() - start) / Double(iterations)
}
