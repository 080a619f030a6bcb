import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// One client of the control socket (`ControlConnections`): its buffers, its turn's lines, what
/// is held for a save, and when it last asked.
final class ControlClient {
  let fd: Int32
  var input = LineBuffer(limit: ControlConnections.maxLine)
  var output: [UInt8] = []
  /// The end of `output` waiting for a save: a batch's replies and watch lines, each batch's
  /// bytes with the number of the save that holds the state they report (`ReplyHold`), oldest
  /// first. They go out once that save has ended.
  var held: [(count: Int, ticket: Int)] = []
  var heldBytes = 0
  /// Where `output` ended when the batch being answered began.
  var batchMark = 0
  /// The bytes that may go out now (before those held).
  var ready: Int { output.count - heldBytes }
  var watching = false
  /// The client has closed its side: close once the output is out.
  var closing = false
  /// It sent its last byte: closed once its lines are answered and its replies out.
  var ended = false
  /// Lines read and not answered yet, oldest first: one read's worth at most (the socket holds
  /// the rest until these are answered).
  var waiting: [LineBuffer.Item] = []
  /// A list going out: its item lines not queued yet, then its reply. Its next request lines
  /// wait (unread) until it is out.
  var list: ControlAnswer?
  /// When it connected or sent its last request line: a client that is not watching is
  /// closed `idleTimeout` after.
  var lastRequest: Instant
  init(fd: Int32, at now: Instant) {
    self.fd = fd
    lastRequest = now
  }
}

/// The connections' traffic: accepting (and refusing), making way, closing the idle, reading,
/// queueing, sending, dropping.
extension ControlConnections {
  func acceptAll() {
    while true {
      let fd = retryingOnInterrupt { accept(listener, nil, nil) }
      if fd < 0 {
        let e = currentErrno()
        if e != EAGAIN && e != EWOULDBLOCK {
          log.once("control-accept", .warning, "\(SystemError("accept on \(path)"))")
        }
        return
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      UnixSocket.setNonBlocking(fd)
      if clients.count >= Self.maxClients { makeWay(for: "a new client") }
      guard clients.count < Self.maxClients else {
        refused += 1
        say(fd, "too many clients (\(Self.maxClients) at most); try again later")
        systemClose(fd)
        log.once(
          "control-full", .warning,
          "control socket \(path): a client was refused, \(Self.maxClients) are connected already (said once)")
        continue
      }
      clients[fd] = ControlClient(fd: fd, at: clock.now)
    }
  }

  /// Sends an error line to `fd` as it is closed (what the socket takes; it is closed anyway).
  func say(_ fd: Int32, _ message: String) {
    let line = Array((ControlProtocol.errorReply(message) + "\n").utf8)
    _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, UnixSocket.sendFlags) }
  }

  /// Lets `client` watch: nil when it may (it watches from now on), else why not (every
  /// watcher's place is taken by one that asked within `watcherQuiet`).
  func admitWatcher(_ client: ControlClient) -> ControlProtocol.Refusal? {
    if !client.watching && watchers >= Self.maxWatchers && !makeWay(for: "a new watcher") {
      return .init(
        "too many watchers (\(Self.maxWatchers) at most, each asking within \(DurationText.format(Self.watcherQuiet))); "
          + "try again later")
    }
    client.watching = true
    return nil
  }

  /// Closes the watcher quiet longest (no request for `watcherQuiet` or more), telling it why, to
  /// make room for `whom`; false when every watcher has asked something within `watcherQuiet`.
  @discardableResult
  func makeWay(for whom: String) -> Bool {
    let now = clock.now
    guard
      let quiet = clients.values.filter({ $0.watching && now - $0.lastRequest >= Self.watcherQuiet })
        .min(by: { ($0.lastRequest, $0.fd) < ($1.lastRequest, $1.fd) })
    else { return false }
    watchersClosed += 1
    say(
      quiet.fd,
      "closed: this watcher made way for \(whom) (it sent nothing for \(DurationText.format(now - quiet.lastRequest)); "
        + "\(Self.maxClients) clients and \(Self.maxWatchers) watchers at most); watch again to come back")
    drop(quiet.fd)
    log.once(
      "control-make-way", .notice,
      "control socket \(path): closed the watcher quiet longest to make room for \(whom) (\(Self.maxClients) clients and "
        + "\(Self.maxWatchers) watchers at most; said once)")
    return true
  }

  /// Closes the clients that are not watching and have sent no request for `idleTimeout`,
  /// telling them why.
  func closeIdle() {
    let now = clock.now
    for client in clients.values.sorted(by: { $0.fd < $1.fd })
    where !client.watching && now - client.lastRequest >= idleTimeout {
      idleClosed += 1
      say(
        client.fd,
        "closed: no request for \(DurationText.format(idleTimeout)); send one sooner, or watch to stay connected")
      drop(client.fd)
      log.once(
        "control-idle", .notice,
        "control socket \(path): closed a client that sent no request for \(DurationText.format(idleTimeout)) (said once)"
      )
    }
  }

  /// The most a client's input is read in one wake (4 KiB at a time): a longer line takes more
  /// than one, and the other clients are served between.
  public static let readPerWake = 16 * 1024

  /// Reads what a client sent into lines to answer, when it has none waiting: 4 KiB at a time
  /// until a whole line has come, `readPerWake` a wake at most.
  func receive(_ client: ControlClient) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var reads = 0
    while client.waiting.isEmpty, !client.ended, reads < Self.readPerWake / buffer.count {
      reads += 1
      let n = retryingOnInterrupt { buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) } }
      if n < 0 {
        let e = currentErrno()
        if e != EAGAIN && e != EWOULDBLOCK { drop(client.fd) }
        return
      }
      if n == 0 {
        // The client is done sending: its last unterminated line is answered too, then it is
        // closed once its replies are out.
        if let last = client.input.finish() { client.waiting.append(.line(last)) }
        client.ended = true
        return
      }
      client.waiting += client.input.feed(buffer[0..<n])
    }
  }

  /// Queues a list's next item lines while the client's unsent output is under `listChunk`, and
  /// its reply after the last.
  func pump(_ client: ControlClient) {
    while var list = client.list, client.output.count < Self.listChunk {
      if let item = list.items?.next() {
        client.output += Array(item.utf8)
        client.output.append(0x0A)
        client.list = list
      } else {
        client.list = nil
        client.output += Array(list.reply.utf8)
        client.output.append(0x0A)
      }
    }
  }

  /// Queues a line and sends what the socket takes now (after the batch, while one is answered;
  /// after the lines held for a save, while some are); a client past `maxPending` is dropped.
  func queue(_ client: ControlClient, _ line: String) {
    guard clients[client.fd] != nil else { return }
    client.output += Array(line.utf8)
    client.output.append(0x0A)
    guard !batching else { return }
    if !client.held.isEmpty {
      // Behind the held lines, and out with them.
      client.held[client.held.count - 1].count += line.utf8.count + 1
      client.heldBytes += line.utf8.count + 1
      return
    }
    flush(client)
    dropIfBehind(client)
  }

  /// Drops a client whose unsent output passed `maxPending` (what is held for a save is ours to
  /// send, not its to read: `answerable` bounds it).
  func dropIfBehind(_ client: ControlClient) {
    if clients[client.fd] != nil, client.ready > Self.maxPending {
      dropped += 1
      log.warning(
        "control socket \(path): dropped a \(client.watching ? "watcher" : "client") that does not read (\(client.output.count) bytes unsent)"
      )
      drop(client.fd)
    }
  }

  func flush(_ client: ControlClient) {
    // What waited for a save that has ended may go.
    let ended = hold.savesEnded
    while let first = client.held.first, first.ticket <= ended {
      client.held.removeFirst()
      client.heldBytes -= first.count
    }
    // A list's next lines, as much as the client has read of it (once a flush), behind
    // anything held.
    if client.held.isEmpty { pump(client) }
    while client.ready > 0 {
      let n = retryingOnInterrupt {
        client.output.withUnsafeBytes { send(client.fd, $0.baseAddress, client.ready, UnixSocket.sendFlags) }
      }
      if n < 0 {
        let e = currentErrno()
        if e != EAGAIN && e != EWOULDBLOCK { drop(client.fd) }
        return
      }
      client.output.removeFirst(n)
    }
    if client.closing && client.list == nil && client.output.isEmpty { drop(client.fd) }
  }

  func drop(_ fd: Int32) {
    guard clients.removeValue(forKey: fd) != nil else { return }
    systemClose(fd)
  }
}
