import PomodoroCore
import PomodoroSystem

/// A room session message as the bridge handles it (docs/room.md, "Topics"): the engine's
/// session, its Message Expiry Interval and the sender's moment. Its author is the desk whose
/// session topic it came on (the broker's ACL proves it), never a field of the payload: `by` on
/// the wire is only the control socket's, from the bridge that heard it. Parsed at the edge into
/// the engine's types; every limit is `RoomSession`'s.
public struct RoomSessionMessage: Equatable, Sendable {
  public var session: RoomSession
  /// The Message Expiry Interval it was published with, in seconds.
  public var expiry: Int64
  public var sentMs: Int64
  public var synced: Bool

  /// The room wire's version: 2 since sessions went on each desk's own topic with their lengths in
  /// ms and their revisions as serial numbers (a desk of a release before 0.3.0 says 1).
  public static let version: Int64 = 2
  /// The largest session payload taken.
  public static let limit = 1024
  /// The longest expiry a session is published with, and the latest `sent_ms` taken (the year
  /// 2200).
  public static let maxExpiry = wholeSeconds(RoomSession.mostLife)
  static let latestSent: Int64 = 7_258_118_400_000

  public init(_ session: RoomSession, expiry: Int64, sentMs: Int64, synced: Bool) {
    self.session = session
    self.expiry = expiry
    self.sentMs = sentMs
    self.synced = synced
  }

  /// Its place in the precedence, anchored at `anchor` (when its `elapsed` held, on this clock).
  public func key(at anchor: Instant) -> RoomRevision {
    RoomRevision(rev: session.revision, by: session.origin, at: anchor)
  }

  /// The payload's fields in the spec's order (`v` first; no author: the topic says it).
  public var fields: [(String, JSONValue)] {
    let s = session
    return [
      ("v", .int(Self.version)), ("rev", .int(s.revision)), ("modes", .list(s.plan.map { .string($0.mode.rawValue) })),
      ("lengths_ms", .list(s.plan.map { .int(wholeMilliseconds($0.length)) })), ("plan_rev", .int(s.planRevision)),
      ("phase", .int(Int64(s.phase))), ("state", .string(s.state.rawValue)),
      ("elapsed_ms", .int(wholeMilliseconds(s.elapsed))), ("expiry", .int(expiry)), ("sent_ms", .int(sentMs)),
      ("synced", .bool(synced)),
    ]
  }

  public var json: String { FlatJSON.encode(fields) }

  /// The message in `text`, heard on the session topic of the desk `by`, or why not (the field
  /// and what it must be).
  public static func parse(_ text: String, by: String) -> Result<RoomSessionMessage, RoomWireRefusal> {
    guard text.utf8.count <= limit else { return .failure(.init("over \(limit) bytes")) }
    guard let o = FlatJSON.decode(text) else { return .failure(.init("not a flat JSON object")) }
    return parse(fields: o, by: by)
  }

  /// The message in decoded fields (a topic's payload, or the device's `room_session` request
  /// line, whose `cmd`, `by`, `age_ms` and `at_ms` are not the payload's), made by the desk `by`.
  public static func parse(fields o: [String: JSONValue], by: String) -> Result<RoomSessionMessage, RoomWireRefusal> {
    guard o["v"]?.int == version else {
      if o["v"]?.int == 1 { return .failure(.init(earlierRelease)) }
      return .failure(.init("v must be \(version)"))
    }
    guard RoomNames.isDesk(by) else { return .failure(.init("the author must be a desk id (\(RoomNames.rule))")) }
    let top = RoomSession.revisions - 1
    guard let rev = o["rev"]?.int, (0...top).contains(rev) else {
      return .failure(.init("rev must be an integer 0..\(top) (a serial number)"))
    }
    guard let modeList = o["modes"]?.list, (1...RoomSession.mostPhases).contains(modeList.count) else {
      return .failure(.init("modes must be a list of 1-\(RoomSession.mostPhases) modes"))
    }
    let modes = modeList.compactMap { $0.string.flatMap(Mode.init(rawValue:)) }
    let shared = Mode.allCases.filter(RoomSession.shares).map(\.rawValue)
    guard modes.count == modeList.count, modes.allSatisfy(RoomSession.shares) else {
      return .failure(.init("modes must each be \(shared.joined(separator: ", "))"))
    }
    let range = RoomSession.lengths
    guard let lengthList = o["lengths_ms"]?.list, lengthList.count == modes.count else {
      return .failure(.init("lengths_ms must be a list as long as modes"))
    }
    let lengths = lengthList.compactMap { $0.int.map(ms) }
    guard lengths.count == lengthList.count, lengths.allSatisfy(range.contains) else {
      return .failure(
        .init(
          "lengths_ms must each be whole milliseconds \(wholeMilliseconds(range.lowerBound))..\(wholeMilliseconds(range.upperBound))"
        ))
    }
    guard let planRev = o["plan_rev"]?.int, (0...top).contains(planRev) else {
      return .failure(.init("plan_rev must be an integer 0..\(top), the revision that made the plan"))
    }
    guard let phase = o["phase"]?.int, (0..<Int64(modes.count)).contains(phase) else {
      return .failure(.init("phase must be an index into modes"))
    }
    guard let state = o["state"]?.string.flatMap(RoomSession.State.init(rawValue:)) else {
      return .failure(
        .init("state must be \(RoomSession.State.allCases.map(\.rawValue).joined(separator: ", "))"))
    }
    guard let elapsed = o["elapsed_ms"]?.int, (0...wholeMilliseconds(lengths[Int(phase)])).contains(elapsed) else {
      return .failure(.init("elapsed_ms must be 0..the phase's length in ms"))
    }
    guard let expiry = o["expiry"]?.int, (1...maxExpiry).contains(expiry) else {
      return .failure(.init("expiry must be seconds 1..\(maxExpiry)"))
    }
    guard let sent = o["sent_ms"]?.int, (0...latestSent).contains(sent) else {
      return .failure(.init("sent_ms must be ms since the epoch"))
    }
    guard let synced = o["synced"]?.bool else { return .failure(.init("synced must be true or false")) }
    let session = RoomSession(
      revision: rev, origin: by, plan: zip(modes, lengths).map { RoomSession.Phase(mode: $0, length: $1) },
      planRevision: planRev, phase: Int(phase), state: state, elapsed: ms(elapsed))
    return .success(RoomSessionMessage(session, expiry: expiry, sentMs: sent, synced: synced))
  }

  /// What a bridge says of a message of the first room wire (one session topic for the room,
  /// `v` 1): the desk that sent it runs an earlier build.
  public static let earlierRelease =
    "a desk of an earlier build (room messages v1): it is not followed; update it (sudo apt upgrade pomodoro pomodoro-mqtt)"

  /// The session as the device holds it (its `room_*` state fields), nil when it holds none or a
  /// field is missing or out of range.
  public static func held(_ f: [String: JSONValue]) -> RoomSessionMessage? {
    guard let by = f["room_by"]?.string else { return nil }
    var o = f.filter { $0.key.hasPrefix("room_") }.reduce(into: [String: JSONValue]()) {
      $0[String($1.key.dropFirst(5))] = $1.value
    }
    o["v"] = .int(version)
    o["expiry"] = .int(1)
    o["sent_ms"] = .int(0)
    o["synced"] = .bool(false)
    // Checked as any message is: the device's own rules made it, a mistake must not go out.
    guard case .success(var m) = parse(fields: o, by: by) else { return nil }
    m.expiry = m.plannedExpiry
    return m
  }

  /// The Message Expiry Interval it is published with: the session's life, in whole seconds
  /// rounded up.
  public var plannedExpiry: Int64 { min(Self.maxExpiry, (session.life + seconds(1) - 1) / seconds(1)) }

  /// Where the session stands `by` ns later (a running one moves on through its phases); nil
  /// when its plan is over by then.
  public func advanced(by span: Nanoseconds) -> RoomSessionMessage? {
    guard session.state == .running else { return self }
    // The engine's one reading of a running plan: anchored at zero, read `span` later.
    let held = RoomHeld(session: session, anchor: .zero)
    let later = Instant.zero + max(0, span)
    if case .ended = held.at(later) { return nil }
    return RoomSessionMessage(held.said(at: later), expiry: expiry, sentMs: sentMs, synced: synced)
  }
}

/// A session's place in the precedence (docs/room.md, `RoomSession.wins`): its revision, its
/// author and its anchor on this desk's clock. Two are the same session when revision and author
/// are (the anchor of a copy differs).
public struct RoomRevision: Equatable, Sendable {
  public var rev: Int64
  public var by: String
  public var at: Instant
  public init(rev: Int64, by: String, at: Instant) {
    self.rev = rev
    self.by = by
    self.at = at
  }

  public static func == (a: RoomRevision, b: RoomRevision) -> Bool { a.rev == b.rev && a.by == b.by }

  /// Whether this one wins over `other`.
  public func supersedes(_ other: RoomRevision) -> Bool {
    RoomSession.wins(rev, by, at: at, over: other.rev, other.by, at: other.at)
  }
}

/// A member message: a desk of the room and what it is doing: the engine's own `RoomView.Member`,
/// read and written here for the broker and the control socket alike.
public typealias RoomMember = RoomView.Member

extension RoomView.Member {
  /// The largest member payload taken: the longest desk id and the label that JSON writes
  /// longest (`SessionLabel.maxBytes` of invisible four-byte characters, each two `\u` escapes:
  /// 480 bytes) fit with room to spare (RoomLimitsTests).
  public static let limit = 1024

  /// The member message (docs/room.md): no `label` when there is none.
  public var json: String {
    FlatJSON.encode(
      [("v", .int(1)), ("desk", .string(desk)), ("phase", .string(phase.rawValue)), ("mode", .string(mode.rawValue))]
        + (label.map { [("label", .string($0.text))] } ?? []) + [("following", .bool(following))])
  }

  /// The member in `text`, published on the member topic of `desk`, or why not.
  public static func parse(_ text: String, desk: String) -> Result<RoomView.Member, RoomWireRefusal> {
    guard text.utf8.count <= limit else { return .failure(.init("over \(limit) bytes")) }
    guard let o = FlatJSON.decode(text) else { return .failure(.init("not a flat JSON object")) }
    guard o["v"]?.int == 1 else { return .failure(.init("v must be 1")) }
    guard o["desk"]?.string == desk else { return .failure(.init("desk must be the topic's last level, \(desk)")) }
    return checked(desk: desk, phase: o["phase"], mode: o["mode"], label: o["label"], following: o["following"])
  }

  /// A member's fields checked as every reader checks them (a member message on the broker, each
  /// member of the bridge's `room_status` at the desk): the member, or the field at fault. No
  /// label, or an empty one: none.
  public static func checked(
    desk: String, phase: JSONValue?, mode: JSONValue?, label: JSONValue?, following: JSONValue?
  ) -> Result<RoomView.Member, RoomWireRefusal> {
    guard RoomNames.isDesk(desk) else { return .failure(.init("desk must be a desk id (\(RoomNames.rule))")) }
    guard let p = phase?.string.flatMap(Phase.init(rawValue:)) else {
      return .failure(.init("phase must be \(Phase.allCases.map(\.rawValue).joined(separator: ", "))"))
    }
    guard let m = mode?.string.flatMap(Mode.init(rawValue:)) else {
      return .failure(.init("mode must be one of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))"))
    }
    var l: SessionLabel?
    if let value = label {
      guard let text = value.string, text.isEmpty || SessionLabel.stored(text) != nil else {
        return .failure(.init("label must be a session label (\(SessionLabel.limits), no control characters)"))
      }
      l = SessionLabel.stored(text)
    }
    guard let f = following?.bool else { return .failure(.init("following must be true or false")) }
    return .success(RoomView.Member(desk: desk, phase: p, mode: m, label: l, following: f))
  }

  /// This desk's member message from the device's state fields; nil while they lack its phase
  /// or mode.
  public static func own(_ f: [String: JSONValue], desk: String) -> RoomView.Member? {
    guard
      case .success(let m) = checked(
        desk: desk, phase: f["phase"], mode: f["mode"], label: f["label"],
        following: f["room_following"] ?? .bool(false))
    else { return nil }
    return m
  }
}

/// Why a room message was refused: the field and what it must be.
public struct RoomWireRefusal: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
