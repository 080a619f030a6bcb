import PomodoroCore
import PomodoroSystem

/// A bridge's one link to the device (the MQTT bridge's, the web page's): the control socket,
/// watched from the moment it connects; a bounded queue of requests; the requests not answered
/// yet; a refresh while nothing else is asked; the device's silence; reconnection with back-off.
/// A `LoopSource`: it never blocks, and the bridge's one wait serves it.
///
/// Availability has hysteresis: the device is unavailable when it has said nothing for
/// `answerTimeout` while a request waits, and available again when it speaks: one change each
/// way per episode, however many requests a busy device has queued.
public final class DeviceLink: LoopSource {
  /// What became of a request handed to `send`.
  public enum Sent: Equatable {
    case sent
    /// No connection to the device now.
    case notConnected
    /// The device does not read its socket: `queued` bytes wait already.
    case full(queued: Int)
  }

  /// The most request bytes queued for a device that does not read (stopped, say).
  public static let maxQueued = 16 * ControlProtocol.maxLine

  public let socketPath: String
  let clock: MonotonicClock
  let log: Log
  /// Where the device's absence shows, for the log: "Home Assistant", "the page".
  let shownIn: String
  /// How often a connected device is asked for its status (it says nothing between phase
  /// changes; a running timer's remaining time moves, and a hung device is found out).
  public var refreshInterval: Nanoseconds = seconds(10)
  /// How long the device may say nothing while a request waits before it is unavailable.
  public var answerTimeout: Nanoseconds = seconds(5)

  /// Each state the device reports: its watch lines and the replies to requests.
  public var onState: ([String: JSONValue]) -> Void = { _ in }
  /// A request handed to `send` that the device refused: its label and why.
  public var onRefusal: (String, ControlProtocol.Refusal) -> Void = { _, _ in }
  /// A line from the device that is neither a state nor a reply.
  public var onUnexpected: (String) -> Void = { _ in }
  /// `available` changed.
  public var onAvailability: (Bool) -> Void = { _ in }

  var fd: Int32 = -1
  /// The longest line taken from the device: its state with 63 other desks at their longest
  /// (about 41 KB, RoomLimitsTests) fits.
  public static let maxLine = 1 << 16
  var input = LineBuffer(limit: DeviceLink.maxLine)
  var output: [UInt8] = []
  var retryAt: Instant?
  var backoff = Backoff(first: ms(250), last: seconds(5))
  /// Requests sent and not answered yet, oldest first (replies come in order). `own`: the link's
  /// (watch, status), whose refusal is not a refused command.
  var pending: [Pending] = []

  /// A request sent and not yet answered: what it was, whether this link sent it for itself, who
  /// waits for its answer and the item lines that came before it.
  struct Pending {
    var what: String
    var own: Bool
    var reply: ((Answer) -> Void)?
    var items: [[String: JSONValue]] = []
  }

  /// A request's answer: the reply (the state, or the refusal) and the item lines of a list
  /// reply (`history`, `config`), at most `maxItems`.
  public struct Answer {
    public var result: Result<[String: JSONValue], ControlProtocol.Refusal>
    public var items: [[String: JSONValue]]
  }

  /// The most item lines one answer keeps.
  public static let maxItems = 20000
  /// When the oldest pending request went out, or the device last spoke since: the silence is
  /// counted from the later.
  var waitingSince: Instant?
  var nextRefresh: Instant?
  var silent = false
  var heard = false
  var wasAvailable = false

  public init(socketPath: String, clock: MonotonicClock, log: Log, shownIn: String) {
    self.socketPath = socketPath
    self.clock = clock
    self.log = log
    self.shownIn = shownIn
    retryAt = clock.now
  }

  deinit { if fd >= 0 { systemClose(fd) } }

  /// Connected, heard from, and not silent.
  public var available: Bool { fd >= 0 && heard && !silent }
  /// Bytes waiting to go to the device.
  public var queued: Int { output.count }

  /// Queues `command` (its label for the log: the payload as received) and sends what it can; a
  /// refusal goes to `onRefusal`.
  public func send(_ command: ControlCommand, label: String) -> Sent {
    send(command, label: label, reply: nil)
  }

  /// Sends `command` (`history`, `config`: its request line is `ControlCommand.requestLine`)
  /// whose answer `reply` gets, item lines included; when the link is lost first, `reply` gets
  /// the refusal "the desk cannot be reached". The caller bounds how long it waits.
  public func send(_ command: ControlCommand, label: String, reply: ((Answer) -> Void)?) -> Sent {
    guard fd >= 0 else { return .notConnected }
    let line = Array((command.requestLine + "\n").utf8)
    guard output.count + line.count <= Self.maxQueued else { return .full(queued: output.count) }
    request(line, label, own: false, reply: reply)
    report()
    return .sent
  }

  /// Closes the connection (the process is leaving).
  public func close() {
    if fd >= 0 { systemClose(fd) }
    fd = -1
  }

  // MARK: LoopSource

  public var readDescriptors: [Int32] { fd >= 0 ? [fd] : [] }
  public var writeDescriptors: [Int32] { fd >= 0 && !output.isEmpty ? [fd] : [] }

  public var deadline: Instant? {
    let silence = silent ? nil : waitingSince.map { $0 + answerTimeout }
    return [retryAt, nextRefresh, silence].compactMap { $0 }.min()
  }

  public func handle(_ wake: Wake) {
    let now = clock.now
    if let at = retryAt, at <= now { connect() }
    if fd >= 0, wake.writable.contains(fd) { flush() }
    if fd >= 0, wake.readable.contains(fd) { read() }
    if let at = nextRefresh, at <= now { refresh(now) }
    checkSilence(clock.now)
    report()
  }

  // MARK: Inside

  /// The link's own request (watch, status), labelled by its name.
  func request(_ command: ControlCommand, own: Bool) {
    request(Array((command.requestLine + "\n").utf8), command.name, own: own)
  }

  func request(_ line: [UInt8], _ what: String, own: Bool, reply: ((Answer) -> Void)? = nil) {
    if pending.isEmpty { waitingSince = clock.now }
    output += line
    pending.append(Pending(what: what, own: own, reply: reply))
    flush()
  }

  /// Asks for the status when nothing else is waiting (a device that has not answered the last
  /// question is not asked again).
  func refresh(_ now: Instant) {
    nextRefresh = now + refreshInterval
    guard fd >= 0, pending.isEmpty else { return }
    request(.status, own: true)
  }

  func checkSilence(_ now: Instant) {
    guard !silent, let since = waitingSince, now - since >= answerTimeout, let first = pending.first else { return }
    silent = true
    log.warning(
      "the device at \(socketPath) has not answered '\(first.what)' for \(DurationText.format(answerTimeout)) (stopped or hung?); "
        + "unavailable in \(shownIn) until it answers")
  }

  func report() {
    guard available != wasAvailable else { return }
    wasAvailable = available
    onAvailability(wasAvailable)
  }

  func connect() {
    retryAt = nil
    do {
      fd = try UnixSocket.connect(socketPath)
    } catch {
      lost("\(error)")
      return
    }
    UnixSocket.setNonBlocking(fd)
    input = LineBuffer(limit: Self.maxLine)
    output = []
    pending = []
    silent = false
    heard = false
    nextRefresh = clock.now + refreshInterval
    request(.watch, own: true)
    log.forget("device")
    log.notice("watching the device at \(socketPath)")
  }

  func lost(_ why: String) {
    close()
    output = []
    let waiting = pending
    pending = []
    for p in waiting {
      p.reply?(Answer(result: .failure(.init("the desk cannot be reached: \(why)")), items: []))
    }
    waitingSince = nil
    silent = false
    heard = false
    nextRefresh = nil
    retryAt = clock.now + backoff.next()
    log.once(
      "device", .warning,
      "the device at \(socketPath): \(why); retrying with back-off (up to \(DurationText.format(backoff.last))), said once"
    )
  }

  func flush() {
    while fd >= 0 && !output.isEmpty {
      let n = output.withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if currentErrno() == EINTR { continue }
        if currentErrno() != EAGAIN { lost("write failed") }
        return
      }
      output.removeFirst(n)
    }
  }

  func read() {
    var buffer = [UInt8](repeating: 0, count: 16384)
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    if n < 0 {
      if currentErrno() != EAGAIN && currentErrno() != EINTR { lost("read failed") }
      return
    }
    guard n > 0 else { return lost("it closed the connection (stopped or restarting?)") }
    backoff.reset()
    let now = clock.now
    for case .line(let line) in input.feed(buffer[0..<n]) {
      // The device spoke: its silence, if any, is over, and the wait is counted from now.
      waitingSince = pending.isEmpty ? nil : now
      if silent {
        silent = false
        log.notice("the device at \(socketPath) answers again")
      }
      // An item line belongs to the oldest request's answer; a reply (not a watch line) answers it.
      if let item = ControlProtocol.decodeItem(line) {
        if !pending.isEmpty && pending[0].items.count < Self.maxItems { pending[0].items.append(item.fields) }
        continue
      }
      let answered = line.hasPrefix("{\"ok\"") && !pending.isEmpty ? pending.removeFirst() : nil
      if pending.isEmpty { waitingSince = nil }
      let decoded = ControlProtocol.decodeReply(line)
      if let answered, let reply = answered.reply, let decoded {
        reply(Answer(result: decoded, items: answered.items))
      }
      switch decoded {
      case .success(let fields)?:
        heard = true
        onState(fields)
      case .failure? where answered?.reply != nil:
        break  // told to the one who asked
      case .failure(let refusal)?:
        if let answered, !answered.own {
          onRefusal(answered.what, refusal)
        } else {
          log.once(
            "device-refused", .warning,
            "the device at \(socketPath) refused this link's own '\(answered?.what ?? "?")': \(refusal.message); said once"
          )
        }
      case nil:
        onUnexpected(line)
      }
    }
  }
}
