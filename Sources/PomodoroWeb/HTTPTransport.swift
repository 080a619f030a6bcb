import PomodoroCore
import PomodoroSystem

/// What `WebDesk` needs of an HTTP server, and all a test double has to provide (as `MQTTClient`
/// is for the MQTT bridge): whole requests handed to `handler` from the loop's turn, answers
/// given now, later (`answer`) or as an event stream (`send`, `end`). `HTTPServer` is
/// libmicrohttpd's; the tests' `MemoryHTTP` (Tests/PomodoroTestFixtures) hands requests over
/// in memory, in the order a test chooses, with no socket. A `LoopSource`: the loop drives it.
public protocol HTTPTransport: LoopSource {
  /// Answers each whole request, called from `handle` only.
  var handler: (HTTPRequest) -> HTTPResponse { get set }
  /// A stream the handler's response just opened: its id and request; called after `handler`
  /// returns, before the next request.
  var onStream: (Int32, HTTPRequest) -> Void { get set }
  /// The port served (the one the system gave for port 0); 0 where there is none.
  var port: Int { get }
  /// The limits it serves by.
  var limits: HTTPLimits { get }
  /// Sends `text` on stream `id`; false when the stream has ended (or its client stopped reading).
  @discardableResult func send(_ id: Int32, _ text: String) -> Bool
  /// Answers the request `id` whose handler said `.later`; false when it no longer waits.
  @discardableResult func answer(_ id: Int32, _ response: HTTPResponse) -> Bool
  /// Ends stream `id` once what it holds is sent.
  func end(_ id: Int32)
  /// The streams open now, and the oldest's id.
  var streams: (count: Int, oldest: Int32?) { get }
}

extension HTTPTransport {
  /// At most this many event streams at once.
  public var streamLimit: Int { limits.streams }
}

/// The limits: connections in all and from one address, seconds an idle one may stay, seconds a
/// request's headers and body may take, the longest body, event streams at once and from one
/// address.
public struct HTTPLimits: Sendable {
  public var connections = 32
  public var perAddress = 16
  public var idleSeconds = 30
  /// A connection's request (its headers and body) must be whole this long after the connection
  /// was accepted or its last answer was sent, however it trickles; at the connection limit the
  /// oldest connection without a whole request is closed for a newcomer before that.
  public var requestSeconds = 10
  public var body = 4096
  public var streams = 16
  public var streamsPerAddress = 4
  public init() {}
}

/// A request as the transport's handler sees it: whole, its body at most `HTTPLimits.body`.
public struct HTTPRequest: Sendable {
  public var method: String
  public var path: String
  public var host: String?
  public var origin: String?
  public var cookie: String?
  /// The client's address.
  public var client: String
  public var body: [UInt8]
  /// The body passed the limit (it is cut there): answer 413.
  public var bodyTooLarge: Bool
  /// The query's arguments the handler asked for.
  public var query: [String: String]
  /// The request's id: what `HTTPServer.answer` takes for a response given `.later`.
  public var id: Int32 = 0
  /// The If-None-Match header: the ETag of the copy the client has.
  public var ifNoneMatch: String? = nil
  /// How many Host headers it carried: more than one is refused (400, RFC 9112).
  public var hostHeaders = 1

  public init(
    method: String, path: String, host: String?, origin: String? = nil, cookie: String? = nil, client: String,
    body: [UInt8] = [], bodyTooLarge: Bool = false, query: [String: String] = [:], id: Int32 = 0,
    ifNoneMatch: String? = nil, hostHeaders: Int = 1
  ) {
    self.method = method
    self.path = path
    self.host = host
    self.origin = origin
    self.cookie = cookie
    self.client = client
    self.body = body
    self.bodyTooLarge = bodyTooLarge
    self.query = query
    self.id = id
    self.ifNoneMatch = ifNoneMatch
    self.hostHeaders = hostHeaders
  }
}

/// What the handler answers: a body, or an event stream the server keeps open.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var contentType: String
  public var body: [UInt8]
  public var setCookie: String?
  /// Open an event stream (text/event-stream) that starts with `body`; its id is handed to
  /// `onStream`.
  public var stream: Bool
  /// The answer comes later, through `HTTPServer.answer` with the request's id.
  public var deferred = false
  /// More headers, in order (a Cache-Control among them replaces the server's `no-store`); not
  /// sent with a deferred answer.
  public var headers: [(String, String)]

  /// The answer comes later: the connection waits (suspended, not polled) until then.
  public static var later: HTTPResponse {
    var r = HTTPResponse(status: 0)
    r.deferred = true
    return r
  }

  public init(
    status: Int, contentType: String = "application/json", body: [UInt8] = [], setCookie: String? = nil,
    stream: Bool = false, headers: [(String, String)] = []
  ) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.setCookie = setCookie
    self.stream = stream
    self.headers = headers
  }

  /// `{"error": reason}` with `status`: a reason a person can read.
  public static func error(_ status: Int, _ reason: String) -> HTTPResponse {
    HTTPResponse(status: status, body: Array(FlatJSON.encode([("error", .string(reason))]).utf8))
  }

  public static func json(_ text: String) -> HTTPResponse { HTTPResponse(status: 200, body: Array(text.utf8)) }
}
