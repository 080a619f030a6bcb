import PomodoroCommandLine

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let code = PomodoroCLI.main(Array(CommandLine.arguments.dropFirst()))
// For pomodoro-bench (Benchmarks/): the peak resident memory of this process image alone (VmHWM; rusage's
// maxrss would also count the spawning process's memory from before exec).
if getenv("POMODORO_REPORT_PEAK_RSS") != nil, let f = fopen("/proc/self/status", "r") {
  var line = [CChar](repeating: 0, count: 256)
  while fgets(&line, 256, f) != nil {
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasPrefix("VmHWM:") {
      fputs("peak_rss_kib " + (text.split(separator: " ").dropFirst().first ?? "0") + "\n", stderr)
    }
  }
  fclose(f)
}
exit(code)
