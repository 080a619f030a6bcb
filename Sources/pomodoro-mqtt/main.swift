// pomodoro-mqtt: the MQTT bridge's own binary, which `pomodoro mqtt` execs (in the package:
// /usr/lib/pomodoro/pomodoro-mqtt). Its words are those after `pomodoro mqtt`.
import PomodoroMQTT

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

exit(MQTTCommand.main(CommandLine.arguments.dropFirst()))
