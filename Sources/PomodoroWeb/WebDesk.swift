import PomodoroCore
import PomodoroSystem

/// The Host names a request may carry: the device's host name, `<name>.local`, its addresses and
/// localhost. A page rebound to this device by DNS (its Origin then equals its Host) carries
/// another name and is refused with 421, which an Origin check alone would let through.
public struct AllowedHosts: Sendable {
  public let names: Set<String>

  public init(hostName: String, addresses: [String]) {
    let name = hostName.lowercased()
    names = Set([name, name + ".local", "localhost", "127.0.0.1", "::1"] + addresses.map { $0.lowercased() })
  }

  /// `host` without its port (and an IPv6 address without its brackets), lowercased.
  static func bare(_ host: String) -> String {
    var h = Substring(host.lowercased())
    if h.hasPrefix("[") {
      h = h.dropFirst()
      if let close = h.firstIndex(of: "]") { h = h[..<close] }
      return String(h)
    }
    if let colon = h.lastIndex(of: ":"), h.firstIndex(of: ":") == colon { h = h[..<colon] }
    return String(h)
  }

  public func allows(host: String?) -> Bool { host.map { names.contains(Self.bare($0)) } ?? false }

  /// An Origin header (`http://desk.local:8080`) of this device; nil (none sent) is allowed.
  public func allows(origin: String?) -> Bool {
    guard let origin else { return true }
    for scheme in ["http://", "https://"] where origin.lowercased().hasPrefix(scheme) {
      return allows(host: String(origin.dropFirst(scheme.count)))
    }
    return false
  }
}

/// The read-only half of `pomodoro web`: the device's state through the shared `DeviceLink`,
/// served over HTTP from the one poll loop: `GET /api/state` (the fields of `ctl status --json`)
/// and `GET /events` (Server-Sent Events: the whole state on connect and on every change,
/// `offline` while the desk cannot be reached, a comment every 15 s so that a stream whose client
/// left is found out; at most `limits.streams`, the oldest ended for a new one). Every request
/// is judged first by its Host (421) and Origin (403); no GET acts, and there are no CORS headers.
public final class WebDesk: LoopSource {
  public static let keepAlive = seconds(15)

  public let link: DeviceLink
  public let server: HTTPServer
  let hosts: AllowedHosts
  let clock: MonotonicClock
  let log: Log
  /// The state as the device last said it, in the state's field order.
  public private(set) var state: String?
  var streams: [Int32] = []
  var nextKeepAlive: Instant
  let limiter: LogLimiter

  public init(
    link: DeviceLink, address: String?, port: Int, hosts: AllowedHosts, limits: HTTPServer.Limits = .init(),
    clock: MonotonicClock, log: Log
  ) throws {
    self.link = link
    self.hosts = hosts
    self.clock = clock
    self.log = log
    limiter = LogLimiter(log: log)
    nextKeepAlive = clock.now + Self.keepAlive
    var route: ((HTTPRequest) -> HTTPResponse)?
    server = try HTTPServer(address: address, port: port, limits: limits, clock: clock) {
      route?($0) ?? .error(500, "")
    }
    route = { [unowned self] in respond($0) }
    server.onStream = { [unowned self] id, _ in opened(id) }
    link.onState = { [unowned self] in changed(FlatJSON.encode(StateFields.ordered($0))) }
    link.onAvailability = { [unowned self] available in if !available { broadcast(Self.event("offline", "{}")) } }
  }

  /// An event of the stream: `event: state` and its data line.
  static func event(_ name: String, _ data: String) -> String { "event: \(name)\ndata: \(data)\n\n" }

  public func respond(_ request: HTTPRequest) -> HTTPResponse {
    guard hosts.allows(host: request.host) else {
      limiter.say(
        "host", .warning, "refused a request for Host '\(request.host ?? "")' from \(request.client) (421)",
        what: "requests for other hosts", at: clock.now)
      return .error(421, "this desk answers to its own name and addresses only, not '\(request.host ?? "")'")
    }
    guard hosts.allows(origin: request.origin) else {
      limiter.say(
        "origin", .warning, "refused a request from the page of '\(request.origin ?? "")' (403)",
        what: "requests from other sites", at: clock.now)
      return .error(403, "requests from other sites are refused")
    }
    guard request.method == "GET" || request.method == "HEAD" else {
      return .error(405, "\(request.method) is not served here")
    }
    switch request.path {
    case "/api/state":
      guard link.available, let state else { return .error(503, "the desk cannot be reached now") }
      return .json(state)
    case "/events":
      let first = link.available ? state.map { Self.event("state", $0) } : nil
      return HTTPResponse(
        status: 200, contentType: "text/event-stream", body: Array((first ?? Self.event("offline", "{}")).utf8),
        stream: true)
    default:
      return PageAssets.response(for: request) ?? .error(404, "no such page: \(request.path)")
    }
  }

  func opened(_ id: Int32) {
    // The newest stream gets a place: the oldest is ended when all are taken.
    if let oldest = streams.first, streams.count >= server.streamLimit {
      server.end(oldest)
      streams.removeFirst()
    }
    streams.append(id)
  }

  func changed(_ fields: String) {
    guard fields != state else { return }
    state = fields
    broadcast(Self.event("state", fields))
  }

  func broadcast(_ text: String) {
    streams = streams.filter { server.send($0, text) }
  }

  // MARK: LoopSource: the keep-alive comments

  public var readDescriptors: [Int32] { [] }
  public var writeDescriptors: [Int32] { [] }
  public var deadline: Instant? { [nextKeepAlive, limiter.nextDeadline].compactMap { $0 }.min() }

  public func handle(_ wake: Wake) {
    let now = clock.now
    limiter.tick(now)
    if now >= nextKeepAlive {
      nextKeepAlive = now + Self.keepAlive
      broadcast(": keep-alive\n\n")
    }
  }
}
