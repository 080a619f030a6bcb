import CPomodoroWeb
import PomodoroCore
import PomodoroSystem

/// Why the server did not start.
public struct HTTPServerError: Error, CustomStringConvertible {
  public var description: String
}

/// GNU libmicrohttpd in the one poll loop (no thread of its own): its epoll descriptor among the
/// loop's, `MHD_run` when it is readable or its timeout comes. The `HTTPTransport` of `pomodoro
/// web`.
public final class HTTPServer: HTTPTransport {
  public static var available: Bool { pomo_web_available() == 1 }
  /// Why libmicrohttpd (compiled in) cannot be loaded now, with the fix; nil once it is loaded.
  public static var loadError: String? { pomo_web_load().map { String(cString: $0) } }

  public typealias Limits = HTTPLimits

  /// Answers a whole request; the query names it wants are read for it.
  public typealias Handler = (HTTPRequest) -> HTTPResponse

  let server: OpaquePointer
  let clock: MonotonicClock
  /// Answers until the desk takes it: 500.
  public var handler: Handler = { _ in .error(500, "nothing serves this server yet") }
  /// The query arguments a request's handler may read.
  let queryNames: [String]
  /// A stream just opened by the handler's response: its id.
  public var onStream: (Int32, HTTPRequest) -> Void = { _, _ in }
  public let port: Int
  public let limits: Limits

  public init(
    address: String?, port: Int, limits: Limits = Limits(), queryNames: [String] = [], clock: MonotonicClock
  ) throws {
    self.clock = clock
    self.queryNames = queryNames
    self.limits = limits
    var error = [CChar](repeating: 0, count: 512)
    // The context is set once the object exists: the C side calls back only from `handle`.
    let box = HandlerBox()
    guard
      let s = pomo_web_start(
        address, Int32(port), Int32(limits.connections), Int32(limits.perAddress), Int32(limits.idleSeconds),
        Int32(limits.requestSeconds), Int32(limits.body), Int32(Self.streamSlots(limits)), httpTrampoline,
        Unmanaged.passUnretained(box).toOpaque(), &error, error.count)
    else { throw HTTPServerError(description: text(ofCString: error)) }
    server = s
    self.port = Int(pomo_web_port(s))
    self.box = box
    box.server = self
  }

  let box: HandlerBox

  /// The streams the shim holds at most: as many as there are connections (the desk decides which
  /// streams stay, by `limits.streams` and `limits.streamsPerAddress`; one it ends keeps its place
  /// until its connection is done, while the newcomer's opens).
  public static func streamSlots(_ limits: Limits) -> Int { max(limits.streams + 1, limits.connections) }

  /// Connections closed by the server: a request not whole within `limits.requestSeconds`, and
  /// the oldest without a whole request closed for a newcomer at the connection limit.
  public var closed: (late: Int, forRoom: Int) {
    var late: UInt64 = 0
    var forRoom: UInt64 = 0
    pomo_web_closed(server, &late, &forRoom)
    return (Int(late), Int(forRoom))
  }

  deinit { pomo_web_stop(server) }

  /// Sends `text` on stream `id`; false when the stream has ended (or its client stopped reading).
  @discardableResult
  public func send(_ id: Int32, _ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { b in
      b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
        pomo_web_stream_send(server, id, $0, b.count)
      }
    } == 0
  }

  /// Answers the request `id` whose handler said `.later`; false when it no longer waits.
  @discardableResult
  public func answer(_ id: Int32, _ response: HTTPResponse) -> Bool {
    response.contentType.withCString { type in
      withOptionalCString(response.setCookie) { cookie in
        response.body.withUnsafeBufferPointer { b in
          b.withMemoryRebound(to: CChar.self) { body in
            var r = pomo_web_response(
              status: Int32(response.status), content_type: type, body: body.baseAddress, body_length: body.count,
              set_cookie: cookie, stream: 0, deferred: 0, headers: nil, header_count: 0)
            return pomo_web_answer(server, id, &r) == 0
          }
        }
      }
    }
  }

  /// Ends stream `id` once what it holds is sent.
  public func end(_ id: Int32) { pomo_web_stream_end(server, id) }

  /// The streams open now, and the oldest's id.
  public var streams: (count: Int, oldest: Int32?) {
    var oldest: Int32 = -1
    let n = pomo_web_streams(server, &oldest)
    return (Int(n), oldest >= 0 ? oldest : nil)
  }

  // MARK: LoopSource

  public var readDescriptors: [Int32] { [pomo_web_fd(server)] }
  public var writeDescriptors: [Int32] { [] }
  public var deadline: Instant? {
    let ms = pomo_web_timeout_ms(server)
    return ms < 0 ? nil : clock.now + PomodoroCore.ms(ms)
  }

  public func handle(_ wake: Wake) { pomo_web_run(server) }

  func answer(
    _ request: UnsafePointer<pomo_web_request>, _ response: UnsafeMutablePointer<pomo_web_response>, id: Int32
  ) {
    let r = request.pointee
    func optional(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
    var query: [String: String] = [:]
    for name in queryNames { if let v = pomo_web_query(request, name) { query[name] = String(cString: v) } }
    let body = r.body.map { Array(UnsafeRawBufferPointer(start: $0, count: r.body_length)) } ?? []
    let req = HTTPRequest(
      method: optional(r.method) ?? "", path: optional(r.path) ?? "", host: optional(r.host),
      origin: optional(r.origin), cookie: optional(r.cookie), client: optional(r.client) ?? "", body: body,
      bodyTooLarge: r.body_too_large != 0, query: query, id: id, ifNoneMatch: optional(r.if_none_match),
      hostHeaders: Int(r.host_count))
    let answer = handler(req)
    // The shim copies the body and header texts before the call returns; the box holds them
    // until the next request.
    response.pointee.status = Int32(answer.status)
    response.pointee.stream = answer.stream ? 1 : 0
    response.pointee.deferred = answer.deferred ? 1 : 0
    box.contentType = strdup(answer.contentType)
    box.cookie = answer.setCookie.map { strdup($0) } ?? nil
    response.pointee.content_type = UnsafePointer(box.contentType)
    response.pointee.set_cookie = UnsafePointer(box.cookie)
    box.headers = answer.headers.flatMap { [strdup($0.0), strdup($0.1)] }
    box.headerArray = .allocate(capacity: max(1, box.headers.count))
    for (i, text) in box.headers.enumerated() { box.headerArray?[i] = UnsafePointer(text) }
    response.pointee.headers = UnsafePointer(box.headerArray)
    response.pointee.header_count = answer.headers.count
    box.body = malloc(max(1, answer.body.count))?.assumingMemoryBound(to: CChar.self)
    if let target = box.body {
      answer.body.withUnsafeBytes { if let base = $0.baseAddress { memcpy(target, base, $0.count) } }
      response.pointee.body = UnsafePointer(target)
      response.pointee.body_length = answer.body.count
    }
    if answer.stream { onStream(id, req) }
  }
}

/// What the C side calls back into, and what it borrows until the call returns.
final class HandlerBox {
  weak var server: HTTPServer?
  var body: UnsafeMutablePointer<CChar>? {
    willSet { free(body) }
  }
  var contentType: UnsafeMutablePointer<CChar>? {
    willSet { free(contentType) }
  }
  var cookie: UnsafeMutablePointer<CChar>? {
    willSet { free(cookie) }
  }
  /// The extra headers' names and values, and the array of them the C side reads.
  var headers: [UnsafeMutablePointer<CChar>?] = [] {
    willSet { for h in headers { free(h) } }
  }
  var headerArray: UnsafeMutablePointer<UnsafePointer<CChar>?>? {
    willSet { headerArray?.deallocate() }
  }
  deinit {
    free(body)
    free(contentType)
    free(cookie)
    for h in headers { free(h) }
    headerArray?.deallocate()
  }
}

private func httpTrampoline(
  context: UnsafeMutableRawPointer?, request: UnsafePointer<pomo_web_request>?,
  response: UnsafeMutablePointer<pomo_web_response>?, id: Int32
) {
  guard let context, let request, let response else { return }
  let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
  box.server?.answer(request, response, id: id)
}

/// `body` with `text` as a C string, or with nil.
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
  guard let text else { return body(nil) }
  return text.withCString { body($0) }
}
