import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures

/// Command-to-state latency through a broker: a `toggle` published on `pomodoro/<id>/command`
/// (by a long-running `mosquitto_pub -l`), to the state with the new phase arriving on a
/// subscriber of `pomodoro/+/state` (a long-running `mosquitto_sub`): broker, bridge (`pomodoro
/// mqtt`, one process a device), control socket, device, and back. 1 device, then 10 whose
/// commands are sent all at once each round. Runs only when `mosquitto` is on the PATH (or in
/// /usr/sbin), on its own broker on 127.0.0.1 on a free port, stopped afterwards; at most 20 s
/// a size.
func mqttBench() {
  guard let mosquitto = findTool("mosquitto"), let sub = findTool("mosquitto_sub"),
    let pub = findTool("mosquitto_pub")
  else {
    print("# mqtt latency skipped: no mosquitto on the PATH (sudo apt install mosquitto mosquitto-clients)")
    return
  }
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# mqtt latency skipped: build \(binary) first (swift build -c release)")
    return
  }
  let directory = NSTemporaryDirectory() + "pomodoro-mqtt-bench-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  guard let port = freeLocalPort() else {
    print("# mqtt latency skipped: no free port on 127.0.0.1")
    return
  }
  writeText(
    directory + "/mosquitto.conf",
    "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n")
  guard let broker = launch(mosquitto, ["-c", directory + "/mosquitto.conf"]) else { return }
  defer { stopProcess(broker) }
  guard waitForListener(port) else {
    print("# mqtt latency skipped: the broker did not listen on 127.0.0.1:\(port) within 5 s")
    return
  }
  var medians: [Int: Double] = [:]
  for (count, rounds) in [(1, 40), (10, 20)] {
    guard
      let samples = mqttLatency(
        devices: count, rounds: rounds, port: port, binary: binary, sub: sub, pub: pub, directory: directory)
    else { return }
    let sorted = samples.sorted()
    let median = sorted[sorted.count / 2]
    let p95 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
    medians[count] = median
    figure("mqtt.command_to_state_\(count)_device\(count == 1 ? "" : "s").median", median, "ms")
    figure("mqtt.command_to_state_\(count)_device\(count == 1 ? "" : "s").p95", p95, "ms")
    figure("mqtt.command_to_state_\(count)_device\(count == 1 ? "" : "s").samples", Double(samples.count), "")
  }
  if let one = medians[1], let ten = medians[10], one > 0 {
    figure("mqtt.command_to_state_median_10_over_1", ten / one, "x")
  }
}

/// Devices on the mocks, each with its control socket at one of `paths` (nil: said why), and what
/// must live as long as they do.
func mockDevices(_ paths: [String]) -> (servers: [ControlServer], keep: [AnyObject])? {
  var servers: [ControlServer] = []
  var keep: [AnyObject] = []
  for path in paths {
    var config = DeviceConfig()
    config.controlSocket = path
    let clock = VirtualClock(start: Instant(nanoseconds: 5_000_000_000))
    guard let hardware = try? MockHardware(config: config, clock: clock) else { return nil }
    let log = Log(sink: { _, _ in })
    let device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: .standard(height: config.height), storage: nil,
      log: log)
    guard let server = try? ControlServer(path: path, device: device, log: log) else {
      print("# mqtt skipped: cannot listen at \(path)")
      return nil
    }
    device.start()
    servers.append(server)
    keep += [hardware, device, clock]
  }
  return (servers, keep)
}

/// One size: `devices` devices on the mocks (served by a thread of this process, in one poll
/// loop) and as many bridges; `rounds` toggles each. Latencies in ms, or nil (said why).
func mqttLatency(
  devices count: Int, rounds: Int, port: Int, binary: String, sub: String, pub: String, directory: String
) -> [Double]? {
  let ids = (0..<count).map { "bench\(count)-\($0)" }
  guard let (servers, keep) = mockDevices(ids.map { directory + "/\($0)-\(count).sock" }) else { return nil }
  let serving = DeviceServing(servers)
  defer {
    serving.stop()
    for server in servers { server.close() }
    _ = keep
  }
  var processes: [Process] = []
  defer { for p in processes { stopProcess(p) } }
  for id in ids {
    let conf = directory + "/\(id)-\(count).conf"
    writeText(
      conf,
      "control_socket = \(directory)/\(id)-\(count).sock\nmqtt_host = 127.0.0.1\nmqtt_port = \(port)\nmqtt_device_id = \(id)\n"
    )
    guard let bridge = launch(binary, ["mqtt", "--config", conf]) else { return nil }
    processes.append(bridge)
  }
  guard
    let subscriber = launch(
      sub, ["-h", "127.0.0.1", "-p", String(port), "--nodelay", "-v", "-t", "pomodoro/+/state"], pipe: true)
  else { return nil }
  processes.append(subscriber)
  let lines = LineSource(subscriber)
  var publishers: [String: FileHandle] = [:]
  for id in ids {
    let args = ["-h", "127.0.0.1", "-p", String(port), "--nodelay", "-q", "1", "-t", "pomodoro/\(id)/command", "-l"]
    guard let p = launch(pub, args, input: true), let input = p.standardInput as? Pipe else { return nil }
    processes.append(p)
    publishers[id] = input.fileHandleForWriting
  }
  // Every device's first state (retained, or published once its bridge is up): all idle.
  var phase: [String: String] = [:]
  let ready = monotonicNanoseconds() + seconds(15)
  while phase.count < count && monotonicNanoseconds() < ready {
    for (id, p) in lines.next(until: ready) where ids.contains(id) { phase[id] = p }
  }
  guard phase.count == count else {
    print(
      "# mqtt latency skipped: \(count - phase.count) of \(count) bridges never published a state (built without libmosquitto?)"
    )
    return nil
  }
  var samples: [Double] = []
  let end = monotonicNanoseconds() + seconds(20)
  for round in 0..<rounds where monotonicNanoseconds() < end {
    let expected = round % 2 == 0 ? "running" : "paused"
    var sent: [String: Int64] = [:]
    for id in ids {
      sent[id] = monotonicNanoseconds()
      publishers[id]!.write(Data("toggle\n".utf8))
    }
    let limit = monotonicNanoseconds() + seconds(3)
    while !sent.isEmpty && monotonicNanoseconds() < limit {
      for (id, p) in lines.next(until: limit) where p == expected {
        if let at = sent.removeValue(forKey: id) { samples.append(Double(monotonicNanoseconds() - at) / 1e6) }
      }
    }
    if !sent.isEmpty {
      print("# mqtt latency: round \(round): no '\(expected)' state from \(sent.keys.sorted()) within 3 s")
      return samples.isEmpty ? nil : samples
    }
  }
  for handle in publishers.values { try? handle.close() }
  return samples
}

/// Serves control servers from a thread: one poll over all their descriptors, as a device's loop.
final class DeviceServing: @unchecked Sendable {
  let thread: Thread
  let stopPipe: [Int32]

  init(_ servers: [ControlServer]) {
    var ends: [Int32] = [0, 0]
    _ = pipe(&ends)
    stopPipe = ends
    nonisolated(unsafe) let all = servers
    let stopFD = ends[0]
    thread = Thread {
      while true {
        var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        var owners: [(Int, Bool)] = []
        for (i, s) in all.enumerated() {
          for fd in s.readDescriptors {
            fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            owners.append((i, false))
          }
          for fd in s.writeDescriptors {
            fds.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0))
            owners.append((i, true))
          }
        }
        // A server with lines still to answer (16 a client a wake) wants the next wake at once.
        let busy = all.indices.filter { all[$0].busy }
        guard poll(&fds, nfds_t(fds.count), busy.isEmpty ? 1000 : 0) >= 0 || errno == EINTR else { return }
        if fds[0].revents != 0 { return }
        // Each server whose descriptors woke turns its device's loop (its own poll, timeout 0).
        var woke = Set(busy)
        for (k, p) in fds.dropFirst().enumerated() where p.revents != 0 { woke.insert(owners[k].0) }
        for i in woke.sorted() {
          _ = try? EventLoop.turn(all[i].device, waiter: NowWaiter(), sources: [all[i]])
          all[i].device.step()
        }
      }
    }
    thread.start()
  }

  func stop() {
    var byte: UInt8 = 1
    _ = write(stopPipe[1], &byte, 1)
    while !thread.isFinished { usleep(1000) }
    close(stopPipe[0])
    close(stopPipe[1])
  }
}

/// `mosquitto_sub -v` output, line by line: (device id, phase) of each state message.
final class LineSource {
  let fd: Int32
  var buffer: [UInt8] = []

  init(_ process: Process) {
    fd = (process.standardOutput as! Pipe).fileHandleForReading.fileDescriptor
  }

  /// The state messages that arrive before `deadline` (returns as soon as some did).
  func next(until deadline: Int64) -> [(String, String)] {
    var out: [(String, String)] = []
    while out.isEmpty {
      let left = deadline - monotonicNanoseconds()
      if left <= 0 { break }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(min(1000, wholeMilliseconds(left) + 1))) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      buffer += chunk[0..<n]
      while let newline = buffer.firstIndex(of: 10) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        // pomodoro/<id>/state {"phase":"running",...}
        let parts = line.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { continue }
        let topic = parts[0].split(separator: "/")
        guard topic.count == 3, let range = parts[1].range(of: "\"phase\":\"") else { continue }
        let rest = parts[1][range.upperBound...]
        out.append((String(topic[1]), String(rest.prefix { $0 != "\"" })))
      }
    }
    return out
  }
}

func findTool(_ name: String) -> String? {
  let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
  for directory in path + ["/usr/sbin", "/usr/local/sbin"] where access(directory + "/" + name, X_OK) == 0 {
    return directory + "/" + name
  }
  return nil
}

func launch(_ tool: String, _ args: [String], pipe: Bool = false, input: Bool = false) -> Process? {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: tool)
  p.arguments = args
  p.standardOutput = pipe ? Pipe() : FileHandle.nullDevice
  p.standardError = FileHandle.nullDevice
  if input { p.standardInput = Pipe() }
  do {
    try p.run()
  } catch {
    print("# mqtt latency skipped: cannot start \(tool): \(error)")
    return nil
  }
  return p
}

func stopProcess(_ p: Process) {
  guard p.isRunning else { return }
  p.terminate()
  p.waitUntilExit()
}

/// Waits (up to 5 s) until something accepts TCP connections on 127.0.0.1:`port`.
func waitForListener(_ port: Int) -> Bool {
  for _ in 0..<100 {
    let fd = socket(AF_INET, streamSocketType, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let ok = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    close(fd)
    if ok { return true }
    usleep(50_000)
  }
  return false
}

func freeLocalPort() -> Int? {
  let fd = socket(AF_INET, streamSocketType, 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let ok = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
    }
  }
  return ok ? Int(UInt16(bigEndian: address.sin_port)) : nil
}
