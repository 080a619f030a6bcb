import PomodoroMQTT
import PomodoroSystem

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pomodoro mqtt [--config FILE] [--remove]` (`MQTTCommand`): the bridge runs as its own binary,
/// `pomodoro-mqtt`, which maps none of the device's code (0.9 MiB less resident; docs/proof.md,
/// "Memory of the three processes"). This process becomes it (exec: the same PID, so systemd and a
/// shell see no difference); where it is not installed, the bridge runs here.
enum MqttCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    if let binary = ServerBinary.path("pomodoro-mqtt") { ServerBinary.exec(binary, words) }
    return try MQTTCommand.run(words)
  }
}

/// A server's own binary: beside this one (a build's .build/release) or in ../lib/pomodoro
/// (the package's /usr/lib/pomodoro, for /usr/bin/pomodoro).
enum ServerBinary {
  static func path(_ name: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let exe = text(ofCString: Array(buffer[0..<n]))
    guard let slash = exe.lastIndex(of: "/") else { return nil }
    let directory = exe[..<slash]
    return ["\(directory)/\(name)", "\(directory)/../lib/pomodoro/\(name)"].first { access($0, X_OK) == 0 }
  }

  /// Becomes `binary` with `words`; returns only if the exec failed (said on stderr).
  static func exec(_ binary: String, _ words: ArraySlice<String>) {
    let name = String(binary.split(separator: "/").last ?? "")
    var argv: [UnsafeMutablePointer<CChar>?] = ([name] + words).map { strdup($0) }
    argv.append(nil)
    execv(binary, &argv)
    let why = String(cString: strerror(currentErrno()))
    writeToStandardError("pomodoro: cannot run \(binary) (\(why)); the bridge runs here\n")
    for p in argv { free(p) }
  }
}
