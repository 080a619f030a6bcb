import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What `pomodoro web` serves, one row a path and method: who may ask, and the answer.
struct Route: Sendable {
  enum Who {
    /// Anyone on the LAN (pairing itself).
    case anyone
    /// Anyone, unless `web_view = paired`.
    case viewer
    /// A paired browser only.
    case paired
  }
  let who: Who
  let answer: @Sendable (WebDesk) -> (HTTPRequest) -> HTTPResponse
}

extension WebDesk {
  /// Path, then method. No GET acts: every GET is a viewer's.
  static let routes: [String: [String: Route]] = [
    "/api/session": ["GET": Route(who: .anyone, answer: { $0.session })],
    "/api/state": ["GET": Route(who: .viewer, answer: { $0.currentState })],
    "/events": ["GET": Route(who: .viewer, answer: { $0.events })],
    "/api/settings": [
      "GET": Route(who: .viewer, answer: { $0.settings }), "POST": Route(who: .paired, answer: { $0.changeSetting }),
    ],
    "/api/history": ["GET": Route(who: .viewer, answer: { $0.history })],
    "/api/stats.svg": ["GET": Route(who: .viewer, answer: { $0.statsPicture })],
    "/api/command": ["POST": Route(who: .paired, answer: { $0.command })],
    "/api/pair": ["POST": Route(who: .anyone, answer: { $0.pair })],
  ]

  func session(_ request: HTTPRequest) -> HTTPResponse {
    let now = clock.now
    return .json(
      FlatJSON.encode([
        ("paired", .bool(pairings.paired(cookieHeader: request.cookie))), ("view", .string(view.rawValue)),
        ("pairing_locked", .bool(gate.lockedUntil(for: request.client, at: now) != nil)),
        ("desk_code_locked", .bool(gate.deskCodeLocked(at: now) != nil)),
      ]))
  }

  func currentState(_ request: HTTPRequest) -> HTTPResponse {
    guard link.available, let state else { return .error(503, "the desk cannot be reached now") }
    return .json(state)
  }

  func events(_ request: HTTPRequest) -> HTTPResponse {
    // HEAD: a stream's headers, and no stream.
    if request.method == "HEAD" { return HTTPResponse(status: 200, contentType: "text/event-stream") }
    if let refusal = makeRoom(for: request.client) { return refusal }
    let first = link.available ? state.map { Self.event("state", $0) } : nil
    return HTTPResponse(
      status: 200, contentType: "text/event-stream", body: Array((first ?? Self.event("offline", "{}")).utf8),
      stream: true)
  }

  /// `POST /api/command`: the control protocol's JSON, judged by the device as a button's press.
  func command(_ request: HTTPRequest) -> HTTPResponse {
    let body = String(decoding: request.body, as: UTF8.self)
    switch ControlCommand.parse(json: body) {
    case .failure(let refusal):
      return .error(400, refusal.message)
    case .success(.watch):
      return .error(400, "watch is the event stream here: GET /events")
    case .success(let command):
      return ask(command, "\(command.name) from the page", for: request) { answer in
        switch answer.result {
        case .success(let fields):
          return .json("{\"ok\":true,\"state\":" + FlatJSON.encode(StateFields.ordered(fields)) + "}")
        case .failure(let refusal):
          return .error(409, refusal.message)
        }
      }
    }
  }

  /// `GET /api/settings`: every key the page and `ctl config` may change, its value and where
  /// the value comes from.
  func settings(_ request: HTTPRequest) -> HTTPResponse {
    ask(.config, "config from the page", for: request) { answer in
      switch answer.result {
      case .success: return .json("{\"settings\":" + Self.list(answer.items, first: Self.settingOrder) + "}")
      case .failure(let refusal): return .error(502, refusal.message)
      }
    }
  }

  static let settingOrder = ["key", "value", "from", "about", "accepts"]

  /// `POST /api/settings`: `{"key":"focus","value":"30m"}`, or `{"key":"focus","reset":true}`
  /// to go back to the config file's value.
  func changeSetting(_ request: HTTPRequest) -> HTTPResponse {
    guard let body = FlatJSON.decode(String(decoding: request.body, as: UTF8.self)), let key = body["key"]?.string
    else {
      return .error(400, "expected {\"key\":\"focus\",\"value\":\"30m\"} or {\"key\":\"focus\",\"reset\":true}")
    }
    let command: ControlCommand
    if body["reset"]?.bool == true {
      command = .configReset(key: key)
    } else if let value = body["value"]?.string {
      command = .configSet(key: key, value: value)
    } else {
      return .error(400, "\"value\" must be a string, like \"30m\" (or \"reset\": true)")
    }
    return ask(command, "config \(key) from the page", for: request) { answer in
      switch answer.result {
      case .success:
        guard let row = answer.items.first else { return .error(502, "the desk changed \(key) but did not say how") }
        return .json("{\"setting\":" + Self.object(row, first: Self.settingOrder) + "}")
      case .failure(let refusal): return .error(400, refusal.message)
      }
    }
  }

  /// `POST /api/pair`: `{}` shows a new code on the desk's screen; `{"code":"123456"}` pairs this
  /// browser when it is that code (or one `pomodoro web pair` printed), with a cookie for a year.
  /// Asking again while a code is good shows nothing again: the desk shows a code once, for its 2
  /// minutes, and a press at the desk puts it away for good; a new one is shown only once it has
  /// expired (or paired). Every ask is logged through the limiter.
  func pair(_ request: HTTPRequest) -> HTTPResponse {
    let now = clock.now
    guard let body = FlatJSON.decode(String(decoding: request.body, as: UTF8.self)) else {
      return .error(400, "expected {} to show a code on the desk, or {\"code\":\"123456\"}")
    }
    if let until = gate.lockedUntil(for: request.client, at: now) { return locked(until, now) }
    guard let typed = body["code"]?.string else {
      limiter.say(
        "pair-ask", .notice, "a pairing code was asked for from \(request.client)", what: "pairing codes asked for",
        at: now)
      if let until = gate.deskCodeLocked(at: now) { return deskLocked(until, now) }
      if gate.live(at: now) != nil {
        return HTTPResponse(
          status: 202,
          body: Array(
            FlatJSON.encode([
              ("shown", .string("on the desk's screen already (until a press there puts it away, for 2 minutes)"))
            ]).utf8))
      }
      let digits = gate.issue(at: now)
      let url = pageURL(request.client)
      return ask(.pair(code: digits, url: url), "pair", for: request) { [weak self] answer in
        switch answer.result {
        case .success:
          return HTTPResponse(
            status: 202, body: Array(FlatJSON.encode([("shown", .string("on the desk's screen for 2 minutes"))]).utf8))
        case .failure(let refusal):
          self?.gate.clear()
          return .error(503, "the desk could not show a code: \(refusal.message)")
        }
      }
    }
    // The code `pomodoro web pair` left, judged (and hashed) only when the desk's is not it.
    var wasLeft = false
    let verdict = gate.check(typed, from: request.client, at: now) { code in
      guard let left = pairings.leftCode(), now < left.until, let hash = Pairings.hash(code) else { return false }
      wasLeft = PairingGate.same(hash, left.hash)
      return wasLeft
    }
    switch verdict {
    case .paired:
      if wasLeft { pairings.removeLeftCode() }
      // The code leaves the desk's screen.
      _ = link.send(.pair(code: nil), label: "pair done") { _ in }
      do {
        let token = try pairings.pair(at: wall())
        log.notice("paired a browser at \(request.client) (\(pairings.count) paired)")
        return HTTPResponse(
          status: 200, body: Array(FlatJSON.encode([("paired", .bool(true))]).utf8),
          setCookie: Pairings.setCookie(token))
      } catch {
        log.error("cannot keep a pairing: \(error)")
        return .error(500, "the desk could not keep the pairing: \(error)")
      }
    case .wrong:
      limiter.say(
        "pair-wrong", .warning, "a wrong pairing code from \(request.client)", what: "wrong pairing codes", at: now)
      return .error(403, "that is not the code on the desk's screen (a code is good for 2 minutes)")
    case .locked(let until):
      limiter.say(
        "pair-lock", .warning,
        "pairing locked for \(request.client) for a minute after \(PairingGate.attempts) wrong codes within a minute",
        what: "addresses locked out of pairing", at: now)
      return locked(until, now)
    case .deskCodeLocked(let until):
      limiter.say(
        "pair-wrong", .warning, "a wrong pairing code from \(request.client)", what: "wrong pairing codes", at: now)
      return deskLocked(until, now)
    }
  }

  func locked(_ until: Instant, _ now: Instant) -> HTTPResponse {
    .error(429, "too many wrong codes: pairing is locked; try again in \(Self.secondsLeft(until, now)) s")
  }

  func deskLocked(_ until: Instant, _ now: Instant) -> HTTPResponse {
    if lockSaid != until {
      lockSaid = until
      log.warning(
        "the desk's pairing code is locked for a minute after \(PairingGate.attempts) wrong codes within a minute on the LAN"
          + " (`pomodoro web pair`'s code still pairs)")
    }
    let reason =
      "too many wrong codes on the network: the desk's code is locked; try again in \(Self.secondsLeft(until, now)) s,"
      + " or type the code `sudo pomodoro web pair` prints"
    // The page still offers the form: a printed code pairs.
    return HTTPResponse(
      status: 429, body: Array(FlatJSON.encode([("error", .string(reason)), ("printed_code_pairs", .bool(true))]).utf8))
  }

  static func secondsLeft(_ until: Instant, _ now: Instant) -> Int64 {
    max(1, (until - now + seconds(1) - 1) / seconds(1))
  }

  /// A JSON array of flat objects, each with the keys of `first` in that order, then the rest
  /// alphabetically.
  static func list(_ items: [[String: JSONValue]], first: [String]) -> String {
    "[" + items.map { object($0, first: first) }.joined(separator: ",") + "]"
  }

  static func object(_ fields: [String: JSONValue], first: [String]) -> String {
    let rest = fields.keys.filter { !first.contains($0) }.sorted()
    return FlatJSON.encode((first + rest).compactMap { key in fields[key].map { (key, $0) } })
  }
}
