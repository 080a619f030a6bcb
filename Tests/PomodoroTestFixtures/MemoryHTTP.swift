// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import PomodoroCore
  import PomodoroSystem
  import PomodoroWeb

  /// An `HTTPTransport` in memory, for `WebDesk` on any machine (no libmicrohttpd, no socket), as
  /// `ScriptedMQTTClient` is the MQTT bridge's broker. A request `arrive`s and is handed to the
  /// desk at the transport's next turn (`handle`), as libmicrohttpd handles what its socket read
  /// only when the loop serves it: a test orders a request's arrival, its handling and the
  /// device's doings (a stream opened while the desk goes away) exactly, turn by turn.
  /// What the shim does below the handler (headers and their limits, keep-alive, slow clients)
  /// is the real server's to test.
  package final class MemoryHTTP: HTTPTransport {
    /// A request and what the client got for it.
    package final class Exchange {
      package var request: HTTPRequest
      package var id: Int32 { request.id }
      /// Handed to the handler (at the transport's turn after it arrived).
      package var handled = false
      /// The answer: nil while it waits (not handled yet, or `.later` and not answered yet).
      package var response: HTTPResponse?
      /// An event stream is open: what the server sends on it goes to `received`.
      package var streaming = false
      /// The server ended the stream.
      package var ended = false
      /// The client went away.
      package var left = false
      /// A stream's bytes as the client got them, its first ones (the response's body) included.
      package var received = ""

      package init(_ request: HTTPRequest) { self.request = request }

      package var status: Int? { response?.status }
      package var body: String { response.map { String(decoding: $0.body, as: UTF8.self) } ?? "" }
      /// The cookie it set: `name=value`, without its attributes.
      package var cookie: String? { response?.setCookie.map { String($0.split(separator: ";")[0]) } }
      /// A stream's events, by name, in order (`state`, `offline`).
      package var events: [String] {
        received.components(separatedBy: "\n").filter { $0.hasPrefix("event: ") }.map {
          String($0.dropFirst("event: ".count))
        }
      }
    }

    package var handler: (HTTPRequest) -> HTTPResponse = { _ in .error(500, "nothing serves this transport yet") }
    package var onStream: (Int32, HTTPRequest) -> Void = { _, _ in }
    package let limits: HTTPLimits
    /// The port it "serves" on: what the desk's Origin check compares a page's port with.
    package var port = 8080
    /// Requests arrived and not handled yet, oldest first.
    private(set) var arrived: [Exchange] = []
    /// Requests whose handler said `.later`, by id.
    private var waiting: [Int32: Exchange] = [:]
    /// Open streams, oldest first.
    private var open: [Exchange] = []
    private var lastId: Int32 = 0
    /// Every request handed over, in order.
    private(set) var all: [Exchange] = []

    package init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// A request arrives; the transport's next turn hands it to the handler. Its body is cut at
    /// `limits.body` (and said too large), as the shim cuts it.
    @discardableResult
    package func arrive(_ request: HTTPRequest) -> Exchange {
      var request = request
      if request.body.count > limits.body {
        request.body = Array(request.body.prefix(limits.body))
        request.bodyTooLarge = true
      }
      let exchange = Exchange(request)
      arrived.append(exchange)
      return exchange
    }

    /// The client of `exchange` goes away: its stream's sends fail from now, and an answer that
    /// comes later finds nobody waiting.
    package func leave(_ exchange: Exchange) {
      exchange.left = true
      waiting[exchange.id] = nil
      open.removeAll { $0 === exchange }
    }

    /// A request as a browser sends it: `path` may carry a query (`/api/history?days=7`).
    package static func request(
      _ method: String, _ path: String, body: String = "", host: String? = "desk.local", origin: String? = nil,
      cookie: String? = nil, client: String = "192.0.2.50"
    ) -> HTTPRequest {
      let parts = path.split(separator: "?", maxSplits: 1)
      var query: [String: String] = [:]
      for pair in parts.count > 1 ? parts[1].split(separator: "&") : [] {
        let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
      }
      return HTTPRequest(
        method: method, path: parts.first.map(String.init) ?? "/", host: host, origin: origin, cookie: cookie,
        client: client, body: Array(body.utf8), query: query)
    }

    // MARK: HTTPTransport

    @discardableResult
    package func send(_ id: Int32, _ text: String) -> Bool {
      guard let stream = open.first(where: { $0.id == id }), !stream.ended else { return false }
      stream.received += text
      return true
    }

    @discardableResult
    package func answer(_ id: Int32, _ response: HTTPResponse) -> Bool {
      guard let exchange = waiting.removeValue(forKey: id) else { return false }
      exchange.response = response
      return true
    }

    package func end(_ id: Int32) {
      guard let stream = open.first(where: { $0.id == id }) else { return }
      stream.ended = true
      open.removeAll { $0 === stream }
    }

    package var streams: (count: Int, oldest: Int32?) { (open.count, open.first?.id) }

    // MARK: LoopSource: nothing to poll; a turn hands over what arrived, in order.

    package var readDescriptors: [Int32] { [] }
    package var writeDescriptors: [Int32] { [] }

    package func handle(_ wake: Wake) {
      let now = arrived
      arrived = []
      for exchange in now where !exchange.left { hand(exchange) }
    }

    /// As `HTTPServer` does: the handler, then (for a stream) `onStream`, then a place for the
    /// stream, of as many as the shim has (`HTTPServer.streamSlots`: the desk decides which
    /// streams stay, the shim only holds them while they end).
    private func hand(_ exchange: Exchange) {
      lastId += 1
      exchange.request.id = lastId
      exchange.handled = true
      all.append(exchange)
      let response = handler(exchange.request)
      if response.deferred {
        waiting[lastId] = exchange
        return
      }
      guard response.stream else {
        exchange.response = response
        return
      }
      onStream(lastId, exchange.request)
      guard open.count < HTTPServer.streamSlots(limits) else {
        exchange.response = .error(503, "too many event streams")
        return
      }
      exchange.response = response
      exchange.streaming = true
      exchange.received = String(decoding: response.body, as: UTF8.self)
      open.append(exchange)
    }
  }
#endif
