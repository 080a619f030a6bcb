import Foundation
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// Issue 34's attacks on `pomodoro web` (the real binary beside a device on the mocks, on
/// 127.0.0.1 a free port; the clients come from other loopback addresses, 127.0.0.2 and up, so
/// that each attacker is an address of its own), each bounded in count and time:
/// - slow headers: 16 connections from each of two addresses, a header line every 10 s (a
///   connection closed is opened again), while the owner (an address of its own) asks
///   `GET /api/state` 14 times, a second apart: how many are answered, and how fast;
/// - idle connections: 1,024 from 64 addresses, sending nothing (opened again when closed),
///   the owner's 14 the same way;
/// - stream churn: four unpaired addresses opening `GET /events` (and `HEAD /events`) every
///   50 ms, while the owner keeps one stream open (opened again a second after it ends): the
///   share of the time the owner's stream is live.
/// `pomodoro-bench web-attack [connections|streams]` (needs the `pomodoro` binary beside this one,
/// built with libmicrohttpd): both parts, or the one named.
/// `web-attack`'s parts (its words: `Bench.commands`).
enum WebAttack {
  static let parts = ["connections", "streams"]
}

func webAttackBench(parts: Set<String>) {
  var limit = rlimit()
  getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
  limit.rlim_cur = limit.rlim_max
  setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0, let port = freeLocalPort() else {
    print("# web-attack skipped: build \(binary) first (swift build), and a free port on 127.0.0.1")
    return
  }
  let directory = NSTemporaryDirectory() + "pomodoro-web-attack-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let (device, _, server, changes) = benchDevice(socket: directory + "/c.sock")
  let clock = changes.clock
  guard let web = startWebServer(binary: binary, port: port, directory: directory) else {
    print("# web-attack skipped: cannot start \(binary) web")
    return
  }
  defer { stopProcess(web) }
  let waiter = try! PollWaiter(clock: clock)
  func serve(_ span: Nanoseconds) {
    let end = clock.now + span
    _ = try? EventLoop.serve(
      device, waiter: waiter, extraDeadline: { end }, sources: [server], onWake: { _ in clock.now < end })
  }
  serve(seconds(1))
  guard waitForListener(port) else {
    print("# web-attack skipped: pomodoro web did not listen on 127.0.0.1:\(port)")
    return
  }
  serve(seconds(1))

  for (name, addresses, each, lineEvery) in [
    ("slow_headers", 2, 16, seconds(10)), ("idle_1024", 64, 16, Int64(0)),
  ] where parts.contains("connections") {
    let attack = HoldingAttack(
      port: port, sources: (0..<addresses).map { "127.0.\(1 + $0 / 200).\(2 + $0 % 200)" }, each: each,
      lineEvery: lineEvery)
    attack.start()
    serve(seconds(3))
    let owner = OwnerProbe(port: port, from: "127.0.3.1", count: 14, clock: clock)
    owner.start()
    while !owner.done { serve(ms(200)) }
    attack.stop()
    let answered = owner.latencies.compactMap { $0 }
    figure(
      "web_attack.\(name).attacker_connections_made", Double(attack.opened), "connections (reconnections included)")
    figure("web_attack.\(name).owner_answered", Double(answered.count), "of \(owner.count)")
    figure(
      "web_attack.\(name).owner_answered_within_1s", Double(answered.filter { $0 <= 1000 }.count), "of \(owner.count)")
    report("web_attack.\(name).owner_latency", answered)
    serve(seconds(2))
  }

  guard parts.contains("streams") else {
    server.close()
    device.shutdown()
    return
  }
  // Stream churn: the owner's one stream against four unpaired addresses churning streams.
  let owner = OwnerStream(port: port, from: "127.0.3.1", clock: clock)
  let churn = StreamChurn(port: port, sources: (0..<4).map { "127.0.2.\(2 + $0)" })
  owner.start()
  serve(seconds(2))
  churn.start()
  let span = seconds(20)
  let began = clock.now
  let liveBefore = owner.liveNanoseconds(at: began)
  serve(span)
  let live = owner.liveNanoseconds(at: clock.now) - liveBefore
  churn.stop()
  owner.stop()
  figure("web_attack.stream_churn.owner_live_share", Double(live) / Double(span) * 100, "%")
  figure("web_attack.stream_churn.owner_streams_ended", Double(owner.ends), "times in 20 s")
  figure("web_attack.stream_churn.churn_streams_asked", Double(churn.asked), "requests")
  serve(seconds(1))
  server.close()
  device.shutdown()
}

/// A TCP connection from `source` (a loopback address) to 127.0.0.1:`port` (connecting in the
/// background when not `blocking`).
func tcpConnect(_ port: Int, from source: String, blocking: Bool = false) -> Int32 {
  let fd = socket(AF_INET, streamSocketType, 0)
  guard fd >= 0 else { return -1 }
  var one: Int32 = 1
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
  var local = sockaddr_in()
  local.sin_family = sa_family_t(AF_INET)
  local.sin_addr.s_addr = inet_addr(source)
  let bound = withUnsafePointer(to: &local) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  guard bound == 0 else {
    _ = Glibc.close(fd)
    return -1
  }
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

/// Connections held from each of `sources`, `each` of them, sending the start of a request and
/// then a header line every `lineEvery` (0: nothing at all); one the server closes is opened
/// again. On a thread of its own until `stop`.
final class HoldingAttack: @unchecked Sendable {
  let port: Int
  let sources: [String]
  let each: Int
  let lineEvery: Nanoseconds
  let lock = NSLock()
  var stopped = false
  var opened = 0

  init(port: Int, sources: [String], each: Int, lineEvery: Nanoseconds) {
    self.port = port
    self.sources = sources
    self.each = each
    self.lineEvery = lineEvery
  }

  func start() {
    Thread { [self] in
      let clock = SystemClock()
      let startedAt = clock.now
      var fds: [(fd: Int32, source: String, started: Bool)] = []
      func open(_ source: String) -> (Int32, String, Bool) {
        lock.withLock { opened += 1 }
        return (tcpConnect(port, from: source), source, false)
      }
      for source in sources { for _ in 0..<each { fds.append(open(source)) } }
      var nextLine = clock.now + lineEvery
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !lock.withLock({ stopped }) && clock.now - startedAt < seconds(60) {
        var polled = fds.map { pollfd(fd: $0.fd, events: Int16(POLLIN | ($0.started ? 0 : POLLOUT)), revents: 0) }
        _ = poll(&polled, nfds_t(polled.count), 50)
        for (i, p) in polled.enumerated() where p.revents != 0 {
          if lineEvery > 0, !fds[i].started, p.revents & Int16(POLLOUT) != 0, p.revents & Int16(POLLERR | POLLHUP) == 0
          {
            _ = send(fds[i].fd, "GET / HTTP/1.1\r\nHost: localhost\r\n", 34, Int32(MSG_NOSIGNAL))
            fds[i].started = true
          } else if lineEvery == 0 {
            fds[i].started = true
          }
          if p.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            let n = recv(fds[i].fd, &buffer, buffer.count, 0)
            if n <= 0 && !(n < 0 && errno == EAGAIN) {
              _ = Glibc.close(fds[i].fd)
              fds[i] = open(fds[i].source)
            }
          }
        }
        if lineEvery > 0 && clock.now >= nextLine {
          nextLine = clock.now + lineEvery
          for f in fds where f.started { _ = send(f.fd, "X-Slow: 1\r\n", 11, Int32(MSG_NOSIGNAL)) }
        }
      }
      for f in fds { _ = Glibc.close(f.fd) }
    }.start()
  }

  func stop() { lock.withLock { stopped = true } }
}

/// The owner from an address of its own: `GET /api/state` `count` times, a second apart, each on
/// a fresh connection, waiting up to 5 s for its answer: the milliseconds each took (nil:
/// unanswered).
final class OwnerProbe: @unchecked Sendable {
  let port: Int
  let source: String
  let count: Int
  let clock: SystemClock
  let lock = NSLock()
  private var results: [Double?] = []
  private var finished = false

  init(port: Int, from source: String, count: Int, clock: SystemClock) {
    self.port = port
    self.source = source
    self.count = count
    self.clock = clock
  }

  var done: Bool { lock.withLock { finished } }
  var latencies: [Double?] { lock.withLock { results } }

  func start() {
    Thread { [self] in
      for _ in 0..<count {
        let began = clock.now
        let fd = tcpConnect(port, from: source)
        let request = "GET /api/state HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        var sent = false
        var got = ""
        var result: Double?
        var buffer = [UInt8](repeating: 0, count: 4096)
        while clock.now - began < seconds(5) {
          var p = [pollfd(fd: fd, events: Int16(sent ? POLLIN : POLLOUT), revents: 0)]
          _ = poll(&p, 1, 50)
          if !sent, p[0].revents & Int16(POLLOUT) != 0 {
            sent = send(fd, request, request.utf8.count, Int32(MSG_NOSIGNAL)) > 0
          } else if p[0].revents != 0 {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            got += String(decoding: buffer[0..<n], as: UTF8.self)
            if got.contains("\r\n\r\n") {
              result = Double(clock.now - began) / 1e6
              break
            }
          }
        }
        _ = Glibc.close(fd)
        lock.withLock { results.append(result) }
        let next = began + seconds(1)
        if clock.now < next { usleep(UInt32((next - clock.now) / 1000)) }
      }
      lock.withLock { finished = true }
    }.start()
  }
}

/// The owner's page: one `GET /events` from its own address, read as it comes; live from its
/// first `event: state` until it ends, then opened again a second later (the page's retry).
final class OwnerStream: @unchecked Sendable {
  let port: Int
  let source: String
  let clock: SystemClock
  let lock = NSLock()
  private var liveSince: Instant?
  private var liveTotal: Nanoseconds = 0
  private var stopped = false
  private(set) var ends = 0

  init(port: Int, from source: String, clock: SystemClock) {
    self.port = port
    self.source = source
    self.clock = clock
  }

  func liveNanoseconds(at now: Instant) -> Nanoseconds {
    lock.withLock { liveTotal + (liveSince.map { now - $0 } ?? 0) }
  }

  func start() {
    Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 16384)
      while !lock.withLock({ stopped }) {
        let fd = tcpConnect(port, from: source)
        // Closed when the stream ends, as a browser's EventSource ends it.
        let request = "GET /events HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        var sent = false
        var got = ""
        while !lock.withLock({ stopped }) {
          var p = [pollfd(fd: fd, events: Int16(sent ? POLLIN : POLLOUT), revents: 0)]
          _ = poll(&p, 1, 50)
          if !sent {
            if p[0].revents & Int16(POLLOUT) != 0 {
              sent = send(fd, request, request.utf8.count, Int32(MSG_NOSIGNAL)) > 0
            }
            continue
          }
          guard p[0].revents != 0 else { continue }
          let n = recv(fd, &buffer, buffer.count, 0)
          if n <= 0 { break }
          got += String(decoding: buffer[0..<n], as: UTF8.self)
          if got.contains("event: state") {
            lock.withLock { if liveSince == nil { liveSince = clock.now } }
          }
          // The chunked body's last chunk: the stream ended.
          if got.contains("\r\n0\r\n\r\n") || got.hasPrefix("HTTP/1.1 503") { break }
          got = String(got.suffix(8))
        }
        _ = Glibc.close(fd)
        lock.withLock {
          if let since = liveSince { liveTotal += clock.now - since }
          liveSince = nil
          if !stopped { ends += 1 }
        }
        if !lock.withLock({ stopped }) { usleep(1_000_000) }
      }
    }.start()
  }

  func stop() { lock.withLock { stopped = true } }
}

/// Unpaired clients churning streams: each of `sources` opens `GET /events` (every fourth a
/// `HEAD`) every 50 ms, keeping its newest 8 connections and closing older ones.
final class StreamChurn: @unchecked Sendable {
  let port: Int
  let sources: [String]
  let lock = NSLock()
  private var stopped = false
  private(set) var asked = 0

  init(port: Int, sources: [String]) {
    self.port = port
    self.sources = sources
  }

  func start() {
    Thread { [self] in
      var held: [[Int32]] = sources.map { _ in [] }
      var pending: [(fd: Int32, request: String)] = []
      var round = 0
      var buffer = [UInt8](repeating: 0, count: 16384)
      while !lock.withLock({ stopped }) {
        for (i, source) in sources.enumerated() {
          let fd = tcpConnect(port, from: source)
          guard fd >= 0 else { continue }
          let method = round % 4 == 3 ? "HEAD" : "GET"
          pending.append((fd, "\(method) /events HTTP/1.1\r\nHost: localhost\r\n\r\n"))
          held[i].append(fd)
          if held[i].count > 8 { _ = Glibc.close(held[i].removeFirst()) }
          lock.withLock { asked += 1 }
        }
        round += 1
        // Send what is connected; read (and drop) what came on the rest.
        let until = SystemClock().now + ms(50)
        while SystemClock().now < until {
          var p = pending.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
          _ = poll(&p, nfds_t(p.count), 10)
          var still: [(fd: Int32, request: String)] = []
          for (k, item) in pending.enumerated() {
            if p[k].revents & Int16(POLLOUT) != 0 {
              _ = send(item.fd, item.request, item.request.utf8.count, Int32(MSG_NOSIGNAL))
            } else if p[k].revents == 0 {
              still.append(item)
            }
          }
          pending = still
          for fds in held { for fd in fds { while recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {} } }
        }
      }
      for fds in held { for fd in fds { _ = Glibc.close(fd) } }
    }.start()
  }

  func stop() { lock.withLock { stopped = true } }
}
