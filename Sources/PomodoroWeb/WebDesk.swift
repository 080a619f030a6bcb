import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// `pomodoro web`'s server: the device through the shared `DeviceLink`, served over HTTP from
/// the one poll loop. Every request is judged first by its Host (421: a page rebound by DNS
/// carries another name) and Origin (403: another site's page), then by who asks: viewing is open
/// (unless `web_view = paired`), every command and setting needs a paired browser, and
/// `POST /api/pair` is the only POST without one. No GET acts; there are no CORS headers.
/// `GET /events` streams the state (Server-Sent Events: the whole state on connect and on every
/// change, `offline` while the desk cannot be reached, a comment every 15 s so that a stream whose
/// client left is found out; at most `limits.streams`, and `limits.streamsPerAddress` from one
/// address: `makeRoom`). What the
/// device answers later (a command, the history, the settings) is answered when it comes, or with
/// 504 after the link's answer timeout.
public final class WebDesk: LoopSource {
  public static let keepAlive = seconds(15)

  public let link: DeviceLink
  /// The HTTP side: libmicrohttpd's server, or a test's double.
  public let server: HTTPTransport
  var hosts: AllowedHosts
  /// Reads the names and addresses again (an address DHCP gave later), at most every 10 s, when
  /// a request names a host not among them.
  let rereadHosts: (() -> AllowedHosts)?
  var hostsReadAt: Instant
  let view: WebView
  let pairings: Pairings
  let clock: MonotonicClock
  let wall: () -> WallTime
  let log: Log
  /// The state as the device last said it, in the state's field order.
  public private(set) var state: String?
  /// The open streams, oldest first, with the address that asked for each.
  var open: [(id: Int32, client: String)] = []
  /// Their ids, oldest first.
  var streams: [Int32] { open.map(\.id) }
  var nextKeepAlive: Instant
  let limiter: LogLimiter
  var gate = PairingGate()
  /// The lock last logged (a lock is logged once).
  var lockSaid: Instant?
  /// Requests waiting for the device: their ids and when they are given up.
  var waiting: [Int32: Instant] = [:]

  /// Unpaired viewers' history reads (`/api/history`, `/api/stats.svg`): one at a time at the
  /// device, so that a paired browser's command never queues behind more than one; the others wait
  /// here (those asking the same, path and query, share its answer, made once), at most
  /// `historyQueueLimit`.
  var historyInFlight = false
  var historyQueue: [HistoryAsk] = []
  public static let historyQueueLimit = 64

  struct HistoryAsk {
    /// What is asked: the same path and query get the same answer.
    let key: String
    let command: ControlCommand
    let label: String
    let id: Int32
    let answer: (DeviceLink.Answer) -> HTTPResponse
  }

  /// The page's address on the LAN for a pairing asked by the client at this address
  /// (`PageAddress.url`), sent to the desk with the code for its QR code; nil: the digits alone.
  public var pageURL: (_ client: String) -> String? = { _ in nil }

  /// The query arguments the routes read (the transport reads only these).
  public static let queryNames = ["days"]

  /// Serves the desk at `link` over `server` (libmicrohttpd's `HTTPServer`, made with
  /// `queryNames`; a test's in-memory double).
  public init(
    link: DeviceLink, server: HTTPTransport, hosts: AllowedHosts, rereadHosts: (() -> AllowedHosts)? = nil,
    view: WebView = .open, pairings: Pairings, clock: MonotonicClock, wall: @escaping () -> WallTime = WallTime.now,
    log: Log
  ) {
    self.link = link
    self.server = server
    self.hosts = hosts
    self.rereadHosts = rereadHosts
    hostsReadAt = clock.now
    self.view = view
    self.pairings = pairings
    self.clock = clock
    self.wall = wall
    self.log = log
    limiter = LogLimiter(log: log)
    nextKeepAlive = clock.now + Self.keepAlive
    server.handler = { [unowned self] in respond($0) }
    server.onStream = { [unowned self] id, request in open.append((id, request.client)) }
    link.onState = { [unowned self] in changed(FlatJSON.encode(StateFields.ordered($0))) }
    link.onAvailability = { [unowned self] available in
      guard !available else { return }
      broadcast(Self.event("offline", "{}"))
      // The next state the desk says is news, even when it is the one it said before going.
      state = nil
    }
  }

  /// An event of the stream: `event: state` and its data line.
  static func event(_ name: String, _ data: String) -> String { "event: \(name)\ndata: \(data)\n\n" }

  public func respond(_ request: HTTPRequest) -> HTTPResponse {
    guard request.hostHeaders <= 1 else {
      limiter.say(
        "host", .warning, "refused a request with \(request.hostHeaders) Host headers from \(request.client) (400)",
        what: "requests for other hosts", at: clock.now)
      return .error(400, "a request carries one Host header")
    }
    if !hosts.allows(host: request.host), let reread = rereadHosts, clock.now - hostsReadAt >= seconds(10) {
      hosts = reread()
      hostsReadAt = clock.now
    }
    guard hosts.allows(host: request.host) else {
      limiter.say(
        "host", .warning, "refused a request for Host '\(request.host ?? "")' from \(request.client) (421)",
        what: "requests for other hosts", at: clock.now)
      return .error(421, "this desk answers to its own name and addresses only, not '\(request.host ?? "")'")
    }
    guard hosts.allows(origin: request.origin, port: server.port) else {
      limiter.say(
        "origin", .warning, "refused a request from the page of '\(request.origin ?? "")' (403)",
        what: "requests from other sites", at: clock.now)
      return .error(403, "requests from other sites are refused")
    }
    guard let methods = Self.routes[request.path] else {
      guard request.method == "GET" || request.method == "HEAD" else {
        return .error(405, "\(request.method) is not served here")
      }
      return PageAssets.response(for: request) ?? .error(404, "no such page: \(request.path)")
    }
    guard let route = methods[request.method == "HEAD" ? "GET" : request.method] else {
      return .error(
        405, "\(request.path) takes \(methods.keys.sorted().joined(separator: " or ")), not \(request.method)")
    }
    if request.bodyTooLarge { return .error(413, "the request's body is over \(server.limits.body) bytes") }
    switch route.who {
    case .anyone: break
    case .viewer:
      if view == .paired && !pairings.paired(cookieHeader: request.cookie) {
        return .error(401, "this desk shows itself to paired browsers only: Pair, and type the code its screen shows")
      }
    case .paired:
      guard pairings.paired(cookieHeader: request.cookie) else {
        return .error(401, "pair this browser first: Pair shows a code on the desk's screen to type here")
      }
    }
    return route.answer(self)(request)
  }

  /// Room for a stream from `client`, or the refusal: an address at its own limit
  /// (`limits.streamsPerAddress`) gives up its own oldest stream; at the limit of all
  /// (`limits.streams`), the address holding the most gives up its oldest, when it holds at least
  /// two more than `client` does (so that it keeps at least as many as `client` will have: a lone
  /// stream, the owner's phone, is never ended for another address); else 503.
  func makeRoom(for client: String) -> HTTPResponse? {
    let mine = open.filter { $0.client == client }
    if mine.count >= max(1, server.limits.streamsPerAddress), let oldest = mine.first {
      end(oldest.id)
      return nil
    }
    guard open.count >= server.streamLimit else { return nil }
    // Streams whose clients left (a phone that slept) are found out by a write: a comment.
    open = open.filter { server.send($0.id, ":\n\n") }
    guard open.count >= server.streamLimit else { return nil }
    var held: [String: Int] = [:]
    for stream in open { held[stream.client, default: 0] += 1 }
    let most = held.values.max() ?? 0
    if most >= mine.count + 2, let oldest = open.first(where: { held[$0.client] == most }) {
      end(oldest.id)
      return nil
    }
    limiter.say(
      "streams", .notice, "refused an event stream to \(client): \(open.count) are open, from other addresses (503)",
      what: "event streams refused", at: clock.now)
    return .error(503, "too many event streams are open from other addresses; try again later")
  }

  func end(_ id: Int32) {
    server.end(id)
    open.removeAll { $0.id == id }
  }

  func changed(_ fields: String) {
    guard fields != state else { return }
    state = fields
    broadcast(Self.event("state", fields))
  }

  func broadcast(_ text: String) {
    open = open.filter { server.send($0.id, text) }
  }

  /// Sends `command` to the device and answers `request` with what `answer` makes of the reply
  /// (or 503 now, or 504 when the device is silent for the link's answer timeout).
  func ask(
    _ command: ControlCommand, _ label: String, for request: HTTPRequest,
    _ answer: @escaping (DeviceLink.Answer) -> HTTPResponse
  )
    -> HTTPResponse
  {
    guard link.available else { return .error(503, "the desk cannot be reached now; try again in a moment") }
    let id = request.id
    let sent = link.send(command, label: label) { [weak self] reply in
      guard let self, waiting.removeValue(forKey: id) != nil else { return }
      server.answer(id, answer(reply))
    }
    switch sent {
    case .sent:
      waiting[id] = clock.now + link.answerTimeout
      return .later
    case .notConnected: return .error(503, "the desk cannot be reached now; try again in a moment")
    case .full: return .error(503, "the desk is busy with other requests; try again in a moment")
    }
  }

  /// `ask` for a history read: at once for a paired browser; for anyone else one at a time, the
  /// rest queued (504 when the device's answer timeout passes first).
  func askHistory(
    _ command: ControlCommand, _ label: String, for request: HTTPRequest,
    _ answer: @escaping (DeviceLink.Answer) -> HTTPResponse
  ) -> HTTPResponse {
    if pairings.paired(cookieHeader: request.cookie) { return ask(command, label, for: request, answer) }
    guard link.available else { return .error(503, "the desk cannot be reached now; try again in a moment") }
    let key = request.path + "?" + request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined()
    let item = HistoryAsk(key: key, command: command, label: label, id: request.id, answer: answer)
    guard historyInFlight else { return sendHistory(item) }
    guard historyQueue.count < Self.historyQueueLimit else {
      return .error(503, "the desk is busy reading its history for others; try again in a moment")
    }
    historyQueue.append(item)
    waiting[request.id] = clock.now + link.answerTimeout
    return .later
  }

  func sendHistory(_ item: HistoryAsk) -> HTTPResponse {
    let sent = link.send(item.command, label: item.label) { [weak self] reply in
      guard let self else { return }
      historyInFlight = false
      let response = item.answer(reply)
      if waiting.removeValue(forKey: item.id) != nil { server.answer(item.id, response) }
      // Those asking the same share the answer.
      historyQueue.removeAll { other in
        guard other.key == item.key else { return false }
        if waiting.removeValue(forKey: other.id) != nil { server.answer(other.id, response) }
        return true
      }
      nextHistory()
    }
    switch sent {
    case .sent:
      historyInFlight = true
      waiting[item.id] = clock.now + link.answerTimeout
      return .later
    case .notConnected: return .error(503, "the desk cannot be reached now; try again in a moment")
    case .full: return .error(503, "the desk is busy with other requests; try again in a moment")
    }
  }

  /// The next queued history read whose client still waits.
  func nextHistory() {
    while !historyInFlight, !historyQueue.isEmpty {
      let next = historyQueue.removeFirst()
      guard waiting[next.id] != nil else { continue }
      let response = sendHistory(next)
      if !response.deferred {
        waiting[next.id] = nil
        server.answer(next.id, response)
      }
    }
  }

  // MARK: LoopSource: the keep-alive comments, the requests the device has not answered

  public var readDescriptors: [Int32] { [] }
  public var writeDescriptors: [Int32] { [] }
  public var deadline: Instant? {
    ([nextKeepAlive, limiter.nextDeadline].compactMap { $0 } + Array(waiting.values)).min()
  }

  public func handle(_ wake: Wake) {
    let now = clock.now
    limiter.tick(now)
    if now >= nextKeepAlive {
      nextKeepAlive = now + Self.keepAlive
      broadcast(": keep-alive\n\n")
    }
    for (id, until) in waiting where until <= now {
      waiting[id] = nil
      server.answer(
        id, .error(504, "the desk did not answer within \(DurationText.format(link.answerTimeout)); is it running?"))
    }
  }
}
