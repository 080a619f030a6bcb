import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// Issue 34 item 9's figures: `pomodoro web` (the binary beside this one, or `$POMODORO_BINARY`:
/// run it with an older build for the figures before) beside a device on the mocks whose history
/// holds 1,000,000 records over 366 days:
/// - what a cookie costs: `GET /api/session` a second from one client, without a cookie, with a
///   wrong 64-character one and with the paired one;
/// - the owner's paired command (`POST /api/command {"cmd":"status"}`, one every 100 ms) while
///   24 unpaired clients (each from an address of its own, 127.0.0.2 on) loop on
///   `GET /api/history?days=366`: median, p99 and the longest.
/// `pomodoro-bench web-heavy`.
func webHeavyBench() {
  let binary = ProcessInfo.processInfo.environment["POMODORO_BINARY"] ?? siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0, let port = freeLocalPort() else {
    print("# web-heavy skipped: build \(binary) first (swift build), and a free port on 127.0.0.1")
    return
  }
  let directory = NSTemporaryDirectory() + "pomodoro-web-heavy-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
  try? FileManager.default.createDirectory(atPath: directory + "/device", withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  // 1,000,000 records, the last 366 days' (about 2,732 a day), the newest a minute ago.
  let lines = 1_000_000
  let now = Int64(Date().timeIntervalSince1970)
  if let file = fopen(directory + "/device/history.jsonl", "w") {
    let modes = Mode.allCases
    for i in 0..<lines {
      let record = SessionRecord(
        mode: modes[i % modes.count], outcome: .completed, planned: minutes(25), actual: minutes(25), endedAt: .zero)
      let at = now - 60 - Int64(lines - 1 - i) * (366 * 86_400) / Int64(lines)
      fputs(HistoryEntry(ended: WallTime(epochSeconds: at, synced: true), record: record).jsonLine + "\n", file)
    }
    fclose(file)
  }
  figure("web_heavy.history_lines", Double(lines), "lines")
  let (device, _, server, changes) = benchDevice(
    socket: directory + "/c.sock", storage: (directory + "/device", PosixFileSystem.shared, true))
  let clock = changes.clock
  guard let web = startWebServer(binary: binary, port: port, directory: directory) else {
    print("# web-heavy skipped: cannot start \(binary) web")
    return
  }
  defer { stopProcess(web) }
  let waiter = try! PollWaiter(clock: clock)
  /// Serves the device until `done` (or `limit`).
  func serve(until done: @escaping () -> Bool, limit: Nanoseconds = seconds(30)) {
    let end = clock.now + limit
    _ = try? EventLoop.serve(
      device, waiter: waiter, extraDeadline: { clock.now + ms(20) }, sources: [server],
      onWake: { _ in clock.now < end && !done() }, onStep: {})
  }
  serve(until: { false }, limit: seconds(1))
  guard waitForListener(port) else {
    print("# web-heavy skipped: pomodoro web did not listen on 127.0.0.1:\(port)")
    return
  }

  // The owner pairs: the code the desk shows, typed back.
  let asked = Flag()
  Thread {
    _ = httpExchange(port, "POST", "/api/pair", body: "{}")
    asked.set()
  }.start()
  serve(until: { asked.value && device.pairing.code != nil })
  guard let code = device.pairing.code else {
    print("# web-heavy skipped: no pairing code on the desk")
    return
  }
  let cookieBox = Box<String?>(nil)
  let paired = Flag()
  Thread {
    let r = httpExchange(port, "POST", "/api/pair", body: "{\"code\":\"\(code)\"}")
    let line = r.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: ") }
    cookieBox.value = line.map { String($0.dropFirst("set-cookie: ".count).split(separator: ";")[0]) }
    paired.set()
  }.start()
  serve(until: { paired.value })
  guard let cookie = cookieBox.value else {
    print("# web-heavy skipped: the owner could not pair")
    return
  }

  // A cookie's cost: /api/session a second from one client, 3 s each.
  for (name, header) in [
    ("no_cookie", nil), ("wrong_cookie", "pomodoro_pairing=" + String(repeating: "f", count: 64)),
    ("paired_cookie", cookie),
  ] as [(String, String?)] {
    let count = Counter()
    let done = Flag()
    Thread {
      let end = monotonicNanoseconds() + 3_000_000_000
      while monotonicNanoseconds() < end {
        if httpExchange(port, "GET", "/api/session", cookie: header).hasPrefix("HTTP/1.1 200") { count.add(1) }
      }
      done.set()
    }.start()
    serve(until: { done.value }, limit: seconds(10))
    figure("web_heavy.session_\(name)_per_second", Double(count.value) / 3, "requests/s")
  }

  // 24 unpaired readers of days=366, and the owner's command every 100 ms, for 15 s.
  let stop = Flag()
  let histories = Counter()
  var readers: [Flag] = []
  for i in 0..<24 {
    let finished = Flag()
    readers.append(finished)
    Thread {
      while !stop.value {
        let r = httpExchange(port, "GET", "/api/history?days=366", from: "127.0.0.\(2 + i)")
        if r.hasPrefix("HTTP/1.1 200") { histories.add(1) }
      }
      finished.set()
    }.start()
  }
  let latencies = Box<[Double]>([])
  let failures = Counter()
  let ownerDone = Flag()
  Thread {
    let end = monotonicNanoseconds() + 15_000_000_000
    while monotonicNanoseconds() < end {
      let began = monotonicNanoseconds()
      let r = httpExchange(
        port, "POST", "/api/command", body: "{\"cmd\":\"status\"}", cookie: cookie, from: "127.0.0.100")
      if r.hasPrefix("HTTP/1.1 200") {
        latencies.value.append(Double(monotonicNanoseconds() - began) / 1e6)
      } else {
        failures.add(1)
      }
      usleep(100_000)
    }
    ownerDone.set()
  }.start()
  serve(until: { ownerDone.value }, limit: seconds(40))
  stop.set()
  serve(until: { readers.allSatisfy { $0.value } }, limit: seconds(20))
  report("web_heavy.owner_command_with_24_history_readers", latencies.value)
  figure("web_heavy.owner_command_max", latencies.value.max() ?? 0, "ms")
  figure("web_heavy.owner_command_failures", Double(failures.value), "requests")
  figure("web_heavy.history_answers_in_15s", Double(histories.value), "answers")
  server.close()
  device.shutdown()
}

final class Box<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: T
  init(_ value: T) { stored = value }
  var value: T {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// One request on a connection of its own (`Connection: close`), from `source` on loopback: the
/// whole answer as text ("" when it failed).
func httpExchange(
  _ port: Int, _ method: String, _ path: String, body: String = "", cookie: String? = nil,
  from source: String = "127.0.0.1"
) -> String {
  let fd = socket(AF_INET, streamSocketType, 0)
  guard fd >= 0 else { return "" }
  defer { close(fd) }
  var local = sockaddr_in()
  local.sin_family = sa_family_t(AF_INET)
  local.sin_addr.s_addr = inet_addr(source)
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  let ok = withUnsafePointer(to: &local) { l in
    withUnsafePointer(to: &address) { a in
      l.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        == 0
        && a.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        } == 0
    }
  }
  guard ok else { return "" }
  var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
  if let cookie { head += "Cookie: \(cookie)\r\n" }
  if method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
  guard UnixSocket.writeAll(fd, Array((head + "\r\n" + body).utf8)) else { return "" }
  var got: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = recv(fd, &buffer, buffer.count, 0)
    if n <= 0 { break }
    got += buffer[0..<n]
  }
  return String(decoding: got, as: UTF8.self)
}
