import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// The control socket: a Unix stream socket in the device's own poll loop (no threads), one JSON
/// object a line each way (`ControlProtocol`). It never stalls the device: every descriptor is
/// non-blocking, at most `maxClients` clients, request lines up to `maxLine` bytes, a client
/// whose unsent output passes `maxPending` (a watcher that does not read) is dropped and logged,
/// and one that is not watching and has sent no request for `idleTimeout` is closed, so that
/// idle connections cannot keep `pomodoro ctl` and the bridge out. Watchers cannot either: at
/// most `maxWatchers` of them, and the one quiet longest (no request for `watcherQuiet`: a status
/// bar's `ctl watch`, never the bridge, which asks every 10 s) makes way for a new client when
/// every place is taken, or for a new watcher when every watcher's place is.
public final class ControlServer: LoopSource, DeviceObserver {
  public static let maxClients = 16
  /// Watchers at most: the other places stay for requests (`ctl`, scripts, the bridge's own
  /// connection before it watches).
  public static let maxWatchers = 8
  /// A watcher that has sent no request for this long may be closed to make room.
  public static let watcherQuiet: Nanoseconds = seconds(30)
  /// Request lines answered a client a wake at most, in turns among the clients: one that
  /// floods (800 toggles in one write) cannot hold the loop; the rest waits, read, for the next
  /// wake, which comes at once (`deadline`) after the buttons, the display, the alarm and the
  /// watchdog have had theirs.
  public static let linesPerWake = 16
  public static let maxLine = ControlProtocol.maxLine
  public static let maxPending = 65536
  /// How long a client that is not watching may stay connected without a request.
  public static let idleLimit: Nanoseconds = seconds(60)
  /// A list's item lines are queued while the client's unsent output is below this, a wake at
  /// most this much more: a long list goes out as the client reads it, never past `maxPending`
  /// and never all in one wake.
  public static let listChunk = maxPending / 2

  /// What a request comes to: its reply line, and, for a list (the config's keys), the item
  /// lines that go before it (`ControlProtocol.itemLine`), taken as the client reads them.
  public struct Answer {
    public var items: AnyIterator<String>?
    public var reply: String
    public init(reply: String) { self.reply = reply }
    /// `items` (made lazily, as the client reads), then `reply`.
    public init<S: Sequence>(items: S, reply: String) where S.Element == String {
      self.items = AnyIterator(items.makeIterator())
      self.reply = reply
    }
  }

  final class Client {
    let fd: Int32
    var input = LineBuffer(limit: ControlServer.maxLine)
    var output: [UInt8] = []
    /// The end of `output` waiting for a save: a batch's replies and watch lines, each batch's
    /// bytes with the number of the save that holds the state they report (`Device.saveTicket`),
    /// oldest first. They go out once that save has ended.
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
    var list: Answer?
    /// When it connected or sent its last request line: a client that is not watching is
    /// closed `idleTimeout` after.
    var lastRequest: Instant
    init(fd: Int32, at now: Instant) {
      self.fd = fd
      lastRequest = now
    }
  }

  public let path: String
  let device: Device
  let log: Log
  let wallClock: () -> WallTime
  let listener: Int32
  var clients: [Int32: Client] = [:]
  /// Who watched the device before the server (the simulator's screen, a transcript).
  weak var next: DeviceObserver?
  /// Requests answered since start.
  public private(set) var requests = 0
  /// Clients dropped for not reading, and refused for being one too many.
  public private(set) var dropped = 0
  public private(set) var refused = 0
  /// Clients closed for sending nothing for `idleTimeout` without watching.
  public private(set) var idleClosed = 0
  /// Quiet watchers closed to make room for a new client or watcher.
  public private(set) var watchersClosed = 0
  /// `idleLimit`; a test's shorter one.
  public var idleTimeout = ControlServer.idleLimit
  var closed = false
  /// While a batch of requests is answered: replies and watch lines wait in each client's output
  /// until the batch's state is saved, then go out together.
  var batching = false
  /// Whose turn is first in the next batch (a client's descriptor): the turns rotate.
  var firstTurn: Int32 = -1

  /// Listens at `path` (mode 0660, group `pomodoro` where that group exists) and watches
  /// `device` for state changes (the device's previous observer still sees them).
  public init(path: String, device: Device, log: Log, wallClock: @escaping () -> WallTime = WallTime.now) throws {
    self.path = path
    self.device = device
    self.log = log
    self.wallClock = wallClock
    let (fd, warning) = try UnixSocket.listen(path)
    listener = fd
    if let warning { log.warning(warning) }
    next = device.observer
    device.observer = self
  }

  /// Closes every connection and removes the socket file.
  public func close() {
    guard !closed else { return }
    closed = true
    for fd in clients.keys { drop(fd) }
    systemClose(listener)
    unlink(path)
  }

  /// Watchers connected now.
  public var watchers: Int { clients.values.filter(\.watching).count }

  /// For STATUS= and the log: "ctl 12 requests, 1 watching".
  public var summary: String {
    var text = "ctl \(requests) request\(requests == 1 ? "" : "s"), \(watchers) watching"
    if dropped > 0 { text += ", \(dropped) dropped" }
    if idleClosed > 0 { text += ", \(idleClosed) idle closed" }
    if watchersClosed > 0 { text += ", \(watchersClosed) watchers made way" }
    return text
  }

  // MARK: LoopSource

  /// The listener, and the clients with nothing left to answer (the others are read again once
  /// their lines are answered and their list is out: the kernel holds what they send meanwhile).
  public var readDescriptors: [Int32] {
    closed
      ? [] : [listener] + clients.values.filter { $0.waiting.isEmpty && !$0.ended && $0.list == nil }.map(\.fd).sorted()
  }
  /// The clients with bytes to send: what is not held, and what is held for a save that has ended
  /// (a batch's replies follow the save of the state they report, `Device.saveTicket`).
  public var writeDescriptors: [Int32] {
    let ended = device.savesEnded
    return clients.values.filter { client in
      client.ready > 0 || (client.held.first.map { $0.ticket <= ended } ?? (client.list != nil))
    }.map(\.fd).sorted()
  }

  public func handle(_ wake: Wake) {
    // A save a thread was writing may have ended: the replies that waited for it may go.
    device.collectSave()
    for fd in wake.writable { if let client = clients[fd] { flush(client) } }
    for fd in wake.readable {
      if fd == listener {
        acceptAll()
      } else if let client = clients[fd] {
        receive(client)
      }
    }
    answerWaiting()
    closeIdle()
  }

  /// Lines wait to be answered (the next wake must come at once); a client whose list is going
  /// out waits for the socket to take it instead.
  public var busy: Bool { clients.values.contains(where: answerable) }

  /// A client whose lines may be answered now: it has some, no list is going out, and it has
  /// less than `listChunk` of replies held for a save being written (the rest waits for the
  /// save to end: what is held stays bounded however long the disk takes).
  func answerable(_ client: Client) -> Bool {
    !client.waiting.isEmpty && client.list == nil && client.heldBytes < Self.listChunk
  }

  /// Now while lines wait to be answered; else the first moment a client that is not watching
  /// has been idle for `idleTimeout`.
  public var deadline: Instant? {
    if busy { return device.clock.now }
    return clients.values.filter { !$0.watching }.map { $0.lastRequest + idleTimeout }.min()
  }

  /// Serves whatever is ready now without blocking (tests, and loops that poll themselves).
  public func serviceNow() {
    var fds = readDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let reads = fds.count
    fds += writeDescriptors.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
    var wake = Wake()
    guard poll(&fds, nfds_t(fds.count), 0) > 0 else { return handle(wake) }
    for (i, p) in fds.enumerated() where p.revents != 0 {
      if i < reads { wake.readable.append(p.fd) } else { wake.writable.append(p.fd) }
    }
    handle(wake)
  }

  // MARK: Connections

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
        let line = Array(
          (ControlProtocol.errorReply("too many clients (\(Self.maxClients) at most); try again later") + "\n").utf8)
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, UnixSocket.sendFlags) }
        systemClose(fd)
        log.once(
          "control-full", .warning,
          "control socket \(path): a client was refused, \(Self.maxClients) are connected already (said once)")
        continue
      }
      clients[fd] = Client(fd: fd, at: device.clock.now)
    }
  }

  /// Closes the watcher quiet longest (no request for `watcherQuiet` or more), telling it why, to
  /// make room for `whom`; false when every watcher has asked something within `watcherQuiet`.
  @discardableResult
  func makeWay(for whom: String) -> Bool {
    let now = device.clock.now
    guard
      let quiet = clients.values.filter({ $0.watching && now - $0.lastRequest >= Self.watcherQuiet })
        .min(by: { ($0.lastRequest, $0.fd) < ($1.lastRequest, $1.fd) })
    else { return false }
    watchersClosed += 1
    let line = Array(
      (ControlProtocol.errorReply(
        "closed: this watcher made way for \(whom) (it sent nothing for \(DurationText.format(now - quiet.lastRequest)); "
          + "\(Self.maxClients) clients and \(Self.maxWatchers) watchers at most); watch again to come back") + "\n")
        .utf8)
    _ = line.withUnsafeBytes { send(quiet.fd, $0.baseAddress, $0.count, UnixSocket.sendFlags) }
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
    let now = device.clock.now
    for client in clients.values.sorted(by: { $0.fd < $1.fd })
    where !client.watching && now - client.lastRequest >= idleTimeout {
      idleClosed += 1
      let line = Array(
        (ControlProtocol.errorReply(
          "closed: no request for \(DurationText.format(idleTimeout)); send one sooner, or watch to stay connected")
          + "\n").utf8)
      _ = line.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, UnixSocket.sendFlags) }
      drop(client.fd)
      log.once(
        "control-idle", .notice,
        "control socket \(path): closed a client that sent no request for \(DurationText.format(idleTimeout)) (said once)"
      )
    }
  }

  /// Reads what a client sent into lines to answer, when it has none waiting: 4 KiB at a time
  /// until a whole line has come, 16 KiB a wake at most.
  func receive(_ client: Client) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var reads = 0
    while client.waiting.isEmpty, !client.ended, reads < 4 {
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

  /// Answers the waiting lines in turns, one a client a turn, at most `linesPerWake` a client;
  /// saves the state once for them all (`Device.saveIfDue`), and sends the replies and the watch
  /// lines once that save has ended (at once where the loop writes it; where a thread does, at
  /// the wake its end brings, the loop going on meanwhile), and closes the clients that are done.
  func answerWaiting() {
    let turns = clients.values.filter(answerable).map(\.fd).sorted()
    if !turns.isEmpty {
      // The first turn goes round: the client after the last batch's first.
      let first = turns.firstIndex { $0 > firstTurn } ?? 0
      let order = Array(turns[first...] + turns[..<first])
      firstTurn = order[0]
      batching = true
      for client in clients.values { client.batchMark = client.output.count }
      for _ in 0..<Self.linesPerWake {
        var any = false
        for fd in order {
          guard let client = clients[fd], !client.waiting.isEmpty, client.list == nil else { continue }
          any = true
          answer(client, client.waiting.removeFirst())
        }
        if !any { break }
      }
      batching = false
      // A step now: the buttons read (a press that came meanwhile holds the save back until it
      // acts: `Device.saveHold`), the panel painted, and the batch's state saved once.
      device.step()
      // What the batch queued waits for the save that holds its state.
      let ticket = device.saveTicket
      for client in clients.values where client.output.count > client.batchMark {
        let count = client.output.count - client.batchMark
        client.held.append((count, ticket))
        client.heldBytes += count
      }
    }
    for client in clients.values.sorted(by: { $0.fd < $1.fd }) {
      if client.ended && client.waiting.isEmpty { client.closing = true }
      guard client.ready > 0 || !client.held.isEmpty || client.closing || client.list != nil else { continue }
      flush(client)
      dropIfBehind(client)
    }
  }

  func answer(_ client: Client, _ item: LineBuffer.Item) {
    switch item {
    case .line(let line):
      if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return }
      client.lastRequest = device.clock.now
      answer(client, line)
    case .tooLong:
      client.lastRequest = device.clock.now
      queue(client, ControlProtocol.errorReply("request line longer than \(Self.maxLine) bytes; ignored"))
    }
  }

  func answer(_ client: Client, _ line: String) {
    requests += 1
    let answer = self.answer(client, to: ControlCommand.parse(json: line))
    guard answer.items != nil else { return queue(client, answer.reply) }
    client.list = answer
    pump(client)
    guard !batching else { return }
    flush(client)
    dropIfBehind(client)
  }

  /// The answer to a request: the command's reply, or a list of item lines and its reply.
  func answer(_ client: Client, to request: Result<ControlCommand, ControlProtocol.Refusal>) -> Answer {
    let command: ControlCommand
    switch request {
    case .failure(let refusal): return Answer(reply: ControlProtocol.errorReply(refusal.message))
    case .success(let c): command = c
    }
    func ok() -> String {
      ControlProtocol.okReply(StateFields.full(device.state, at: device.clock.now, wall: wallClock()))
    }
    if case .history(let days) = command {
      switch device.historyItems(days: days) {
      case .failure(let refusal): return Answer(reply: ControlProtocol.errorReply(refusal.message))
      case .success(let items): return Answer(items: items, reply: ok())
      }
    }
    if command.isConfig {
      switch device.settingsAnswer(command) {
      case .failure(let refusal): return Answer(reply: ControlProtocol.errorReply(refusal.message))
      case .success(let items): return Answer(items: items, reply: ok())
      }
    }
    switch ControlProtocol.events(for: command, in: device.state.phase, mode: device.state.mode) {
    case .failure(let refusal):
      return Answer(reply: ControlProtocol.errorReply(refusal.message))
    case .success(let events):
      if command == .watch && !client.watching && watchers >= Self.maxWatchers && !makeWay(for: "a new watcher") {
        return Answer(
          reply: ControlProtocol.errorReply(
            "too many watchers (\(Self.maxWatchers) at most, each asking within \(DurationText.format(Self.watcherQuiet))); "
              + "try again later"))
      }
      for event in events { device.perform(event) }
      if command == .watch { client.watching = true }
      if case .pair(let code) = command { device.showPairing(code) }
      return Answer(reply: ok())
    }
  }

  /// Queues a list's next item lines while the client's unsent output is under `listChunk`, and
  /// its reply after the last.
  func pump(_ client: Client) {
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
  func queue(_ client: Client, _ line: String) {
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
  func dropIfBehind(_ client: Client) {
    if clients[client.fd] != nil, client.ready > Self.maxPending {
      dropped += 1
      log.warning(
        "control socket \(path): dropped a \(client.watching ? "watcher" : "client") that does not read (\(client.output.count) bytes unsent)"
      )
      drop(client.fd)
    }
  }

  func flush(_ client: Client) {
    // What waited for a save that has ended may go.
    let ended = device.savesEnded
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

  // MARK: DeviceObserver

  public func stateChanged(_ state: EngineState, at: Instant) {
    next?.stateChanged(state, at: at)
    let watching = clients.values.filter(\.watching)
    guard !watching.isEmpty else { return }
    let line = ControlProtocol.watchLine(StateFields.full(state, at: at, wall: wallClock()))
    for client in watching.sorted(by: { $0.fd < $1.fd }) { queue(client, line) }
  }

  public func frameFlushed(bytes: Int, shown: String, at: Instant) {
    next?.frameFlushed(bytes: bytes, shown: shown, at: at)
  }
  public func buzzerChanged(_ on: Bool, at: Instant) { next?.buzzerChanged(on, at: at) }
  public func recorded(_ entry: HistoryEntry, at: Instant) { next?.recorded(entry, at: at) }
  public func displayChanged(_ look: DisplayCare.Look, at: Instant) { next?.displayChanged(look, at: at) }
}

/// Where the control socket lives.
public enum ControlPaths {
  /// The interactive simulator's per-user socket: `$XDG_RUNTIME_DIR/pomodoro-simulator.sock`, or,
  /// without a runtime directory, `simulator.sock` in `privateDirectory`.
  public static var simulator: String {
    if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty {
      return dir + "/pomodoro-simulator.sock"
    }
    return privateDirectory + "/simulator.sock"
  }

  /// `/tmp/pomodoro-UID`, the user's own folder (0700) for the simulator's socket where there is
  /// no runtime directory: a name right in /tmp could be bound first by another user.
  public static var privateDirectory: String { "/tmp/pomodoro-\(getuid())" }

  /// A folder that is not the user's own to keep a socket in.
  public struct UnsafeDirectory: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problem: String
    public var description: String { "\(path) \(problem)" }
  }

  /// Makes `directory` (0700) where it is missing, then checks it is this user's own: a folder,
  /// not a link to one, owned by this user, that no one else may enter or write. mkdir never
  /// follows a link, and lstat looks at the name itself.
  public static func makePrivate(_ directory: String) throws {
    if mkdir(directory, 0o700) != 0 && currentErrno() != EEXIST {
      throw SystemError("cannot create \(directory)")
    }
    var info = stat()
    guard lstat(directory, &info) == 0 else { throw SystemError("cannot look at \(directory)") }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw UnsafeDirectory(path: directory, problem: "is not a folder (a link or a file): remove it, then start again")
    }
    guard info.st_uid == getuid() else {
      throw UnsafeDirectory(
        path: directory,
        problem:
          "belongs to uid \(info.st_uid), not to you (uid \(getuid())): another user made it first; have root remove "
          + "it, or set XDG_RUNTIME_DIR")
    }
    guard info.st_mode & 0o077 == 0 else {
      throw UnsafeDirectory(
        path: directory,
        problem: "lets other users in (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 700 \(directory)")
    }
  }

  /// Whether a reply from a process of user `peer` is to be believed: the user itself, root, or
  /// the device's service user; anyone else may have bound the socket's name first.
  public static func trusts(peer: uid_t, me: uid_t = getuid(), service: uid_t? = serviceUID) -> Bool {
    peer == me || peer == 0 || peer == service
  }

  /// The service user's id, where that user exists.
  public static var serviceUID: uid_t? { getpwnam(UnixSocket.serviceUser).map { $0.pointee.pw_uid } }
}
