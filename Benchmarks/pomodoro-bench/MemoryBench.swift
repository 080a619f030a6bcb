import Foundation
import Glibc

/// `pomodoro-bench memory [BINARY]`: the peak resident memory (VmHWM) of the three processes of a
/// `pomodoro` binary, as docs/proof.md's "Memory of the three processes" table gives it: measure
/// the release build as packaged (`swift build -c release --static-swift-stdlib --product
/// pomodoro` and `--product pomodoro-mqtt`, both stripped into one folder: `pomodoro mqtt` execs
/// the `pomodoro-mqtt` beside it, as the package's does /usr/lib/pomodoro's). The device: `simulate --script Tests/scenarios/full-focus.pomo` (the
/// device's loop over a whole 25-minute focus, its transcript to /dev/null), and idle in a
/// terminal of its own (`simulate --control`, 5 s); the page's server (`web`, beside that idle
/// simulator, after a browser's requests); the bridge (`mqtt`, connected to a mosquitto on
/// 127.0.0.1 when one is installed, for 5 s). BINARY: default $POMODORO_BINARY, else the
/// `pomodoro` beside this bench.
func memoryBench(binary given: String?) {
  let binary = given ?? ProcessInfo.processInfo.environment["POMODORO_BINARY"] ?? siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# memory skipped: no \(binary) (build it, or name one)")
    return
  }
  let directory = NSTemporaryDirectory() + "pomodoro-memory-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }

  // The binary's own VmHWM at its exit (spawnAndWait's POMODORO_REPORT_PEAK_RSS): a child's
  // ru_maxrss would count the pages of the bench it was forked from.
  if access("Tests/scenarios/full-focus.pomo", R_OK) == 0 {
    let run = spawnAndWait(binary, ["simulate", "--script", "Tests/scenarios/full-focus.pomo"])
    if run.status == 0 { figure("memory.simulate_script_full_focus.peak", Double(run.peakKiB) / 1024, "MiB") }
  }
  // The idle device in a terminal (script(1) gives it one), with its control socket.
  let socket = directory + "/control.sock"
  guard let scriptTool = findTool("script"),
    let simulator = launch(
      scriptTool, ["-qfc", "'\(binary)' simulate --no-bell --control '\(socket)'", "/dev/null"], input: true)
  else {
    print("# memory: no script(1) for the idle device and the servers")
    return
  }
  defer { stopProcess(simulator) }
  // The kernel's name of the process: the file's, cut to 15 bytes.
  let command = String(URL(fileURLWithPath: binary).lastPathComponent.utf8.prefix(15)) ?? "pomodoro"
  guard waitForPath(socket), let device = childPID(of: simulator.processIdentifier, named: command) else {
    print("# memory: the simulator did not start")
    return
  }
  sleep(5)
  figure("memory.simulate_idle.peak", Double(highWater(device) ?? 0) / 1024, "MiB")

  if let port = freeLocalPort(),
    let web = startWebServer(binary: binary, port: port, directory: directory, socket: socket)
  {
    if waitForListener(port) {
      for path in ["/", "/app.js", "/api/state", "/api/history"] { _ = httpGet(port, path) }
      usleep(500_000)
      figure("memory.web.peak", Double(highWater(web.processIdentifier) ?? 0) / 1024, "MiB")
    }
    stopProcess(web)
  }

  if let mosquitto = findTool("mosquitto"), let port = freeLocalPort() {
    let conf = directory + "/mosquitto.conf"
    writeText(conf, "listener \(port) 127.0.0.1\nallow_anonymous true\n")
    if let broker = launch(mosquitto, ["-c", conf]), waitForListener(port) {
      writeText(
        directory + "/mqtt.conf",
        "control_socket = \(socket)\nmqtt_host = 127.0.0.1\nmqtt_port = \(port)\nmqtt_device_id = memory\n")
      if let bridge = launch(binary, ["mqtt", "--config", directory + "/mqtt.conf"]) {
        sleep(5)
        figure("memory.mqtt.peak", Double(highWater(bridge.processIdentifier) ?? 0) / 1024, "MiB")
        stopProcess(bridge)
      }
      stopProcess(broker)
    }
  } else {
    print("# memory: no mosquitto, the bridge not measured")
  }
}

/// VmHWM of a running process, in KiB.
func highWater(_ pid: Int32) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  }
  return nil
}

/// A process named `name` that `ancestor` started (its child, or a child's child).
func childPID(of ancestor: Int32, named name: String) -> Int32? {
  func stat(_ pid: Int32) -> (command: Substring, parent: Int32)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
    else { return nil }
    let rest = text[text.index(close, offsetBy: 2)...].split(separator: " ")
    guard rest.count > 1, let parent = Int32(rest[1]) else { return nil }
    return (text[text.index(after: open)..<close], parent)
  }
  for _ in 0..<100 {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = Int32(entry), let me = stat(pid), me.command == name else { continue }
      var up = me.parent
      for _ in 0..<3 {
        if up == ancestor { return pid }
        guard let next = stat(up) else { break }
        up = next.parent
      }
    }
    usleep(100_000)
  }
  return nil
}

/// Until `path` exists (30 s at most).
func waitForPath(_ path: String) -> Bool {
  for _ in 0..<300 {
    if access(path, F_OK) == 0 { return true }
    usleep(100_000)
  }
  return false
}

/// A GET of `path` on 127.0.0.1:`port`: the response's bytes (nil: no connection).
func httpGet(_ port: Int, _ path: String) -> [UInt8]? {
  let fd = tcpConnect(port, blocking: true)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
  guard write(fd, request, request.count) == request.count else { return nil }
  var response: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = read(fd, &buffer, buffer.count)
    if n <= 0 { break }
    response += buffer[0..<n]
  }
  return response
}
