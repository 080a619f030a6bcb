import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What a request comes to: its reply line, and, for a list (the config's keys, the history),
/// the item lines that go before it (`ControlProtocol.itemLine`), taken as the client reads them.
public struct ControlAnswer {
  public var items: AnyIterator<String>?
  public var reply: String
  public init(reply: String) { self.reply = reply }
  /// `items` (made lazily, as the client reads), then `reply`.
  public init<S: Sequence>(items: S, reply: String) where S.Element == String {
    self.items = AnyIterator(items.makeIterator())
    self.reply = reply
  }
}

/// The hold-until-saved rule, as the connections see it: a batch's replies and watch lines are
/// held until the save that holds the state they report has ended (`Device`'s save tickets).
public protocol ReplyHold: AnyObject {
  /// The number of the save that holds the state as it is now (being written, or due next).
  var saveTicket: Int { get }
  /// Saves ended since start: what was held for a ticket up to this may go.
  var savesEnded: Int { get }
  /// Takes the end of a save a thread was writing, if it has ended (never waits).
  func collectSave()
}

/// The control socket's connections: the server-side twin of `DeviceLink`. A Unix stream
/// socket served in the one loop (a `LoopSource`: every descriptor non-blocking, never a
/// thread), one line a request; what each request comes to is the handler's (`answer`). It
/// bounds everything a client can make it hold: at most `maxClients` clients, request lines up
/// to `maxLine` bytes, a client whose unsent output passes `maxPending` (a watcher that does not
/// read) dropped and logged, one that is not watching and has sent no request for
/// `idleTimeout` closed, at most `maxWatchers` watchers (the one quiet longest, no request for
/// `watcherQuiet`, makes way for a newcomer when every place is taken), and `linesPerWake`
/// lines a client a wake, in turns that rotate.
public final class ControlConnections: LoopSource {
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
  /// Two of the longest lines a client may be sent (a state with a full room whose labels JSON
  /// writes longest is 38 KB: RoomLimitsTests): a watcher one line behind is not dropped.
  public static let maxPending = 2 * DeviceLink.maxLine
  /// How long a client that is not watching may stay connected without a request.
  public static let idleLimit: Nanoseconds = seconds(60)
  /// A list's item lines are queued while the client's unsent output is below this, a wake at
  /// most this much more: a long list goes out as the client reads it, never past `maxPending`
  /// and never all in one wake.
  public static let listChunk = maxPending / 2

  public let path: String
  let clock: MonotonicClock
  let log: Log
  let hold: ReplyHold
  let listener: Int32
  var clients: [Int32: ControlClient] = [:]
  /// What a request (parsed, or refused by the protocol) from a client comes to.
  var answer: (Result<ControlCommand, ControlProtocol.Refusal>, ControlClient) -> ControlAnswer = { _, _ in
    ControlAnswer(reply: ControlProtocol.errorReply("not served"))
  }
  /// Requests answered since start.
  public private(set) var requests = 0
  /// Clients dropped for not reading, and refused for being one too many.
  public internal(set) var dropped = 0
  public internal(set) var refused = 0
  /// Clients closed for sending nothing for `idleTimeout` without watching.
  public internal(set) var idleClosed = 0
  /// Quiet watchers closed to make room for a new client or watcher.
  public internal(set) var watchersClosed = 0
  /// `idleLimit`; a test's shorter one.
  public var idleTimeout = ControlConnections.idleLimit
  var closed = false
  /// While a batch of requests is answered: replies and watch lines wait in each client's output
  /// until the batch's state is saved, then go out together.
  var batching = false
  /// Whose turn is first in the next batch (a client's descriptor): the turns rotate.
  var firstTurn: Int32 = -1

  /// Listens at `path` (mode 0660, group `pomodoro` where that group exists).
  public init(path: String, clock: MonotonicClock, log: Log, hold: ReplyHold) throws {
    self.path = path
    self.clock = clock
    self.log = log
    self.hold = hold
    let (fd, warning) = try UnixSocket.listen(path)
    listener = fd
    if let warning { log.warning(warning) }
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

  /// Queues `line` for every watcher (behind what is held for a save, and out with it).
  public func broadcast(_ line: String) {
    for client in clients.values.filter(\.watching).sorted(by: { $0.fd < $1.fd }) { queue(client, line) }
  }

  /// Sends what was held for a save that has ended (the device says when one ends: in the
  /// loop's step that wrote it, or took its end from the writer thread).
  public func release() {
    let ended = hold.savesEnded
    for client in clients.values.sorted(by: { $0.fd < $1.fd }) where (client.held.first?.ticket ?? .max) <= ended {
      flush(client)
      dropIfBehind(client)
    }
  }

  // MARK: LoopSource

  /// The listener, and the clients with nothing left to answer (the others are read again once
  /// their lines are answered and their list is out: the kernel holds what they send meanwhile).
  public var readDescriptors: [Int32] {
    closed
      ? [] : [listener] + clients.values.filter { $0.waiting.isEmpty && !$0.ended && $0.list == nil }.map(\.fd).sorted()
  }
  /// The clients with bytes to send: what is not held, and what is held for a save that has ended.
  public var writeDescriptors: [Int32] {
    let ended = hold.savesEnded
    return clients.values.filter { client in
      client.ready > 0 || (client.held.first.map { $0.ticket <= ended } ?? (client.list != nil))
    }.map(\.fd).sorted()
  }

  public func handle(_ wake: Wake) {
    // A save a thread was writing may have ended: the replies that waited for it may go.
    hold.collectSave()
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
  func answerable(_ client: ControlClient) -> Bool {
    !client.waiting.isEmpty && client.list == nil && client.heldBytes < Self.listChunk
  }

  /// Now while lines wait to be answered; else the first moment a client that is not watching
  /// has been idle for `idleTimeout`.
  public var deadline: Instant? {
    if busy { return clock.now }
    return clients.values.filter { !$0.watching }.map { $0.lastRequest + idleTimeout }.min()
  }

  /// Answers the waiting lines in turns, one a client a turn, at most `linesPerWake` a client;
  /// what the batch queued is held for the save that holds its state (`ReplyHold.saveTicket`:
  /// the loop's next step makes it), and goes out once that save has ended (at the next wake
  /// where the loop writes it; where a thread does, at the wake its end brings). Then sends what
  /// may go and closes the clients that are done.
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
      let ticket = hold.saveTicket
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

  func answer(_ client: ControlClient, _ item: LineBuffer.Item) {
    switch item {
    case .line(let line):
      if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return }
      client.lastRequest = clock.now
      requests += 1
      let answer = self.answer(ControlCommand.parse(json: line), client)
      guard answer.items != nil else { return queue(client, answer.reply) }
      client.list = answer
      pump(client)
      guard !batching else { return }
      flush(client)
      dropIfBehind(client)
    case .tooLong:
      client.lastRequest = clock.now
      queue(client, ControlProtocol.errorReply("request line longer than \(Self.maxLine) bytes; ignored"))
    }
  }
}
