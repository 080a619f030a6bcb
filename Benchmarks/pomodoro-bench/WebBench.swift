import Foundation
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroWeb

/// Issue 28's figures: `pomodoro web` (the real binary, a process of its own) beside a device on
/// the mocks and the real clock in this process (its control socket in a folder of its own, on
/// 127.0.0.1 a free port):
/// - a knob press (the encoder's push, idle: the next mode) to its state event on 16 open
///   streams: median and p99 from the device's state change, and from the press's release;
/// - the server's peak memory (VmHWM) and CPU with 16 streams over a running focus (20 s);
/// - 64 event streams (from 64 addresses) and 1,000 connections (from one) opened at once: how
///   many streams it keeps (16, `HTTPLimits.streams`), the device's press-to-state meanwhile (the
///   cancel and start buttons), the server's memory.
/// What must hold whatever the machine's speed is each figure's `expect` (Tests/web/flood.sh reads
/// them from the JSON): the streams kept, every press seen, every knob press on every stream.
/// Each stream comes from a loopback address of its own (127.0.4.x, 127.0.5.x): the server keeps
/// 4 streams an address.
/// `pomodoro-bench web` (needs the `pomodoro` binary beside this one, built with libmicrohttpd).
func webBench() {
  // The streams the server keeps at once (from 4 addresses or more: 4 an address).
  let streamLimit = HTTPLimits().streams
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0, let port = freeLocalPort() else {
    print("# web skipped: build \(binary) first (swift build), and a free port on 127.0.0.1")
    return
  }
  let directory = NSTemporaryDirectory() + "pomodoro-web-bench-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let (device, hardware, server, changes) = benchDevice(socket: directory + "/c.sock")
  let clock = changes.clock
  let config = device.config
  guard let web = startWebServer(binary: binary, port: port, directory: directory) else {
    print("# web skipped: cannot start \(binary) web")
    return
  }
  defer { stopProcess(web) }

  let waiter = try! PollWaiter(clock: clock)
  /// Serves the device (and its socket) for `span`, calling `tick` at each turn.
  func serve(_ span: Nanoseconds, tick: () -> Void = {}) {
    let end = clock.now + span
    _ = try? EventLoop.serve(
      device, waiter: waiter, extraDeadline: { end }, sources: [server], onWake: { _ in clock.now < end },
      onStep: tick)
  }
  serve(seconds(1))
  guard waitForListener(port) else {
    print("# web skipped: pomodoro web did not listen on 127.0.0.1:\(port)")
    return
  }

  // 64 streams and 1,000 connections at once, while the buttons are pressed.
  let flood = Flood(port: port, connections: 1000, streams: 64)
  let pressedAt = scheduleStartCancelPresses(hardware, config, from: clock.now)
  let before = changes.phases.count
  flood.start()
  serve(seconds(11))
  report(
    "web.flood_press_to_state", pressToState(pressedAt, seen: changes.phases.dropFirst(before).map(\.0)),
    expectSamples: pressedAt.count)
  figure("web.flood_streams_kept", Double(flood.streamsOpen), "streams", expect: .equals(Double(streamLimit)))
  figure("web.flood_connections_made", Double(flood.connected), "connections")
  figure("web.peak_rss_after_flood", Double(peakResidentKiB(web.processIdentifier)) / 1024, "MiB")
  flood.close()
  // A change, for the server to find the streams that left (a waiting stream learns it at its next write).
  device.perform(.press(.encoder))
  serve(seconds(2))

  // As many streams as it keeps (16), each a thread that notes when each new mode arrives.
  let streams = (0..<streamLimit).map { StreamReader(port: port, from: "127.0.4.\($0 + 1)", clock: clock) }
  for s in streams { s.start() }
  serve(seconds(1))

  let changesBefore = changes.modeChanges.count
  // A knob press every 400 ms: the next mode, acted on at its release (a long push means something else).
  let presses = 60
  let began = clock.now
  var releases: [Instant] = []
  for i in 0..<presses {
    let at = began + ms(100) + Int64(i) * ms(400)
    hardware.chip.schedulePress(config.encoderPush, at: at, holding: ms(60))
    releases.append(at + ms(60))
  }
  serve(ms(400) * Int64(presses) + seconds(1))
  var fromChange: [Double] = []
  var fromRelease: [Double] = []
  let modeChanges = Array(changes.modeChanges.dropFirst(changesBefore))
  for (i, change) in modeChanges.enumerated() {
    for s in streams {
      guard let got = s.arrival(ofChange: i + 1) else { continue }
      fromChange.append(Double(got - change) / 1e6)
      if let release = releases.last(where: { $0 <= change }) { fromRelease.append(Double(got - release) / 1e6) }
    }
  }
  report("web.knob_press_state_change_to_stream_event", fromChange, expectSamples: modeChanges.count * streams.count)
  report("web.knob_press_release_to_stream_event", fromRelease)
  figure("web.knob_presses", Double(modeChanges.count), "presses")

  // 16 streams over a running focus: the server's CPU and memory.
  device.perform(.press(.start))
  let cpuBefore = processCPU(web.processIdentifier)
  serve(seconds(20))
  let cpuAfter = processCPU(web.processIdentifier)
  figure("web.cpu_16_streams_running_focus", Double(cpuAfter - cpuBefore) / 1e6 / 20, "ms/s")
  figure("web.cpu_16_streams_running_focus_share", Double(cpuAfter - cpuBefore) / 1e9 / 20 * 100, "%")
  figure("web.peak_rss_16_streams", Double(peakResidentKiB(web.processIdentifier)) / 1024, "MiB")
  // What of it is the process's own: the binary's text and the libraries are shared (with
  // `pomodoro run`, the same file, and every process using libc).
  let rollup = (try? String(contentsOfFile: "/proc/\(web.processIdentifier)/smaps_rollup", encoding: .utf8)) ?? ""
  for (field, name) in [("Pss:", "pss"), ("Private_Dirty:", "private_dirty")] {
    let kib = rollup.split(separator: "\n").first { $0.hasPrefix(field) }.flatMap {
      Int($0.split(separator: " ").dropFirst().first ?? "")
    }
    figure("web.\(name)_16_streams", Double(kib ?? 0) / 1024, "MiB")
  }
  figure("web.events_per_stream_20s", Double(streams.map(\.events).reduce(0, +)) / Double(streams.count) - 1, "events")

  for s in streams { s.stop() }
  server.close()
  device.shutdown()
}

/// The median, p99 and count of `samples` (ms); with `expectSamples`, the count must be that.
func report(_ name: String, _ samples: [Double], expectSamples: Int? = nil) {
  let expect = expectSamples.map { Expectation.equals(Double($0)) }
  guard !samples.isEmpty else { return figure("\(name).samples", 0, "", expect: expect) }
  let sorted = samples.sorted()
  figure("\(name).median", sorted[sorted.count / 2], "ms")
  figure("\(name).p99", sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], "ms")
  figure("\(name).samples", Double(sorted.count), "", expect: expect)
}

/// The CPU time a process has had, in nanoseconds (/proc/PID/schedstat: not rounded to ticks).
func processCPU(_ pid: Int32) -> Int64 {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/schedstat", encoding: .utf8) else { return 0 }
  return text.split(separator: " ").first.flatMap { Int64($0) } ?? 0
}

/// An open `GET /events` read on a thread of its own: when each change of mode arrived.
final class StreamReader: @unchecked Sendable {
  let fd: Int32
  let clock: SystemClock
  let lock = NSLock()
  var modeArrivals: [Instant] = []
  var events = 0
  var lastMode: String?
  var thread: Thread?
  var stopped = false

  init(port: Int, from source: String, clock: SystemClock) {
    self.clock = clock
    fd = tcpConnect(port, from: source, blocking: true)
    _ = UnixSocket.writeAll(fd, Array("GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
  }

  func start() {
    let t = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 16384)
      var pending = ""
      while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { return }
        let now = clock.now
        pending += String(decoding: buffer[0..<n], as: UTF8.self)
        while let end = pending.range(of: "\n") {
          let line = String(pending[..<end.lowerBound])
          pending.removeSubrange(..<end.upperBound)
          guard line.hasPrefix("data: {"), let mode = line.range(of: "\"mode\":\"") else { continue }
          let value = line[mode.upperBound...].prefix { $0 != "\"" }
          lock.withLock {
            events += 1
            if let last = lastMode, last != value { modeArrivals.append(now) }
            lastMode = String(value)
          }
        }
      }
    }
    thread = t
    t.start()
  }

  /// When the `n`th change of mode (1-based) arrived.
  func arrival(ofChange n: Int) -> Instant? { lock.withLock { n <= modeArrivals.count ? modeArrivals[n - 1] : nil } }

  func stop() { shutdown(fd, Int32(SHUT_RDWR)) }
}

/// Many clients at once from a thread: plain connections that send nothing, and event streams.
final class Flood: @unchecked Sendable {
  let port: Int
  let connections: Int
  let streams: Int
  var fds: [Int32] = []
  var connected = 0
  var streamsOpen = 0

  init(port: Int, connections: Int, streams: Int) {
    self.port = port
    self.connections = connections
    self.streams = streams
  }

  func start() {
    Thread { [self] in
      // The streams first, each from an address of its own (the server keeps 16 of them and
      // refuses the rest), then the connections.
      var open: [Int32] = []
      for i in 0..<streams {
        let fd = tcpConnect(port, from: "127.0.5.\(i + 1)", blocking: true)
        _ = UnixSocket.writeAll(fd, Array("GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        open.append(fd)
      }
      for _ in 0..<connections {
        let fd = tcpConnect(port, blocking: false)
        if fd >= 0 {
          fds.append(fd)
          connected += 1
        }
      }
      sleep(5)
      // A stream is kept when it got its state and has not ended (EOF) since.
      var kept = 0
      for fd in open {
        var b = [UInt8](repeating: 0, count: 4096)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var ended = false
        var got = ""
        while true {
          let n = recv(fd, &b, b.count, 0)
          if n == 0 { ended = true }
          if n <= 0 { break }
          got += String(decoding: b[0..<n], as: UTF8.self)
        }
        if !ended && got.contains("event: state") { kept += 1 }
      }
      streamsOpen = kept
      fds += open
    }.start()
  }

  func close() { for fd in fds { _ = Glibc.close(fd) } }
}

/// A TCP connection to 127.0.0.1:`port` (connecting in the background when not `blocking`).
func tcpConnect(_ port: Int, blocking: Bool) -> Int32 {
  let fd = socket(AF_INET, streamSocketType, 0)
  guard fd >= 0 else { return -1 }
  if !blocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  _ = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  return fd
}

/// `pomodoro web` from `binary` on 127.0.0.1:`port`, reaching the device's socket
/// `directory`/c.sock and keeping its pairings in `directory`/state; nil when it cannot start.
/// `pomodoro web` on 127.0.0.1:`port`, its config and state in `directory`, reaching the device at
/// `socket` (default: `directory`/c.sock).
func startWebServer(binary: String, port: Int, directory: String, socket: String? = nil) -> Process? {
  writeText(
    directory + "/web.conf",
    "control_socket = \(socket ?? directory + "/c.sock")\nweb_port = \(port)\nweb_bind = 127.0.0.1\n")
  let web = Process()
  web.executableURL = URL(fileURLWithPath: binary)
  web.arguments = ["web", "--config", directory + "/web.conf"]
  web.environment = ["STATE_DIRECTORY": directory + "/state", "PATH": "/usr/bin:/bin"]
  web.standardOutput = FileHandle.nullDevice
  web.standardError = FileHandle.nullDevice
  return (try? web.run()) != nil ? web : nil
}
