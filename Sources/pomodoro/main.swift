import PomodoroRuntime

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

exit(PomodoroCLI.main(Array(CommandLine.arguments.dropFirst())))
