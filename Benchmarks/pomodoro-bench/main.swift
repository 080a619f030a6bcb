// pomodoro-bench: prints the project's figures, one a line (name value unit), and with --json FILE
// writes them as JSON (Benchmarks/README.md). Run with: swift run -c release pomodoro-bench
// Each area adds its figures in a file of its own here; its command is a row of `Bench.commands`.
import PomodoroSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

exit(Bench.main(Array(CommandLine.arguments.dropFirst())))
