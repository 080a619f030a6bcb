import PomodoroCore
import PomodoroSystem

/// A room session message as the bridge handles it (docs/room.md, "Topics"): the plan, its
/// revision and origin, where it stands, and how it was published. What the bridge passes to the
/// device and publishes; checked field by field before anything is done with it.
public struct RoomSessionMessage: Equatable, Sendable {
  public var rev: Int64
  public var by: String
  public var modes: [String]
  public var lengths: [Int64]
  /// The revision that made the plan (a pause or resume keeps it): 1..rev.
  public var planRev: Int64
  public var phase: Int
  public var state: String
  public var elapsedMs: Int64
  public var expiry: Int64
  public var sentMs: Int64
  public var synced: Bool

  /// The largest session payload taken.
  public static let limit = 1024
  /// The largest revision (JSON's exact integers).
  public static let maxRev: Int64 = 1 << 53
  static let modeNames = ["focus", "short", "long"]
  static let states = ["running", "paused", "ended"]
  /// The longest expiry a session is published with (RoomWire's), and the latest `sent_ms`
  /// taken (the year 2200).
  public static let maxExpiry: Int64 = 86_400
  static let latestSent: Int64 = 7_258_118_400_000

  /// Its place in the precedence: higher `rev` wins, then the greater `by` byte-wise.
  public var key: RoomRevision { RoomRevision(rev: rev, by: by) }

  /// The fields in the spec's order (`v` first).
  public var fields: [(String, JSONValue)] {
    [
      ("v", .int(1)), ("rev", .int(rev)), ("by", .string(by)), ("modes", .list(modes.map { .string($0) })),
      ("lengths", .list(lengths.map { .int($0) })), ("plan_rev", .int(planRev)), ("phase", .int(Int64(phase))),
      ("state", .string(state)),
      ("elapsed_ms", .int(elapsedMs)), ("expiry", .int(expiry)), ("sent_ms", .int(sentMs)), ("synced", .bool(synced)),
    ]
  }

  public var json: String { FlatJSON.encode(fields) }

  /// The message in `text`, or why not (the field and what it must be).
  public static func parse(_ text: String) -> Result<RoomSessionMessage, RoomWireRefusal> {
    guard text.utf8.count <= limit else { return .failure(.init("over \(limit) bytes")) }
    guard let o = FlatJSON.decode(text) else { return .failure(.init("not a flat JSON object")) }
    return parse(fields: o)
  }

  /// The message in decoded fields (a topic's payload, or the device's `room_session` request
  /// line, whose `cmd` and `age_ms` are not the message's).
  public static func parse(fields o: [String: JSONValue]) -> Result<RoomSessionMessage, RoomWireRefusal> {
    guard o["v"]?.int == 1 else { return .failure(.init("v must be 1")) }
    guard let rev = o["rev"]?.int, (1...maxRev).contains(rev) else {
      return .failure(.init("rev must be an integer 1..\(maxRev)"))
    }
    guard let by = o["by"]?.string, RoomNames.isDesk(by) else {
      return .failure(.init("by must be a desk id (1-40 of A-Z a-z 0-9 . _ -)"))
    }
    guard let modeList = o["modes"]?.list, (1...8).contains(modeList.count) else {
      return .failure(.init("modes must be a list of 1-8 modes"))
    }
    let modes = modeList.compactMap(\.string)
    guard modes.count == modeList.count, modes.allSatisfy(modeNames.contains) else {
      return .failure(.init("modes must each be focus, short or long"))
    }
    guard let lengthList = o["lengths"]?.list, lengthList.count == modes.count else {
      return .failure(.init("lengths must be a list as long as modes"))
    }
    let lengths = lengthList.compactMap(\.int)
    guard lengths.count == lengthList.count, lengths.allSatisfy({ (5...86399).contains($0) }) else {
      return .failure(.init("lengths must each be whole seconds 5..86399"))
    }
    // Absent: the plan is this revision's. Present, it must be a number (a string is no absence).
    let planRev = o["plan_rev"] == nil ? rev : o["plan_rev"]?.int ?? 0
    guard (1...rev).contains(planRev) else { return .failure(.init("plan_rev must be 1..rev")) }
    guard let phase = o["phase"]?.int, (0..<Int64(modes.count)).contains(phase) else {
      return .failure(.init("phase must be an index into modes"))
    }
    guard let state = o["state"]?.string, states.contains(state) else {
      return .failure(.init("state must be running, paused or ended"))
    }
    guard let elapsed = o["elapsed_ms"]?.int, (0...lengths[Int(phase)] * 1000).contains(elapsed) else {
      return .failure(.init("elapsed_ms must be 0..the phase's length in ms"))
    }
    guard let expiry = o["expiry"]?.int, (1...maxExpiry).contains(expiry) else {
      return .failure(.init("expiry must be seconds 1..\(maxExpiry)"))
    }
    guard let sent = o["sent_ms"]?.int, (0...latestSent).contains(sent) else {
      return .failure(.init("sent_ms must be ms since the epoch"))
    }
    guard let synced = o["synced"]?.bool else { return .failure(.init("synced must be true or false")) }
    return .success(
      RoomSessionMessage(
        rev: rev, by: by, modes: modes, lengths: lengths, planRev: planRev, phase: Int(phase), state: state,
        elapsedMs: elapsed, expiry: expiry, sentMs: sent, synced: synced))
  }

  public init(
    rev: Int64, by: String, modes: [String], lengths: [Int64], planRev: Int64, phase: Int, state: String,
    elapsedMs: Int64, expiry: Int64, sentMs: Int64, synced: Bool
  ) {
    self.rev = rev
    self.by = by
    self.modes = modes
    self.lengths = lengths
    self.planRev = planRev
    self.phase = phase
    self.state = state
    self.elapsedMs = elapsedMs
    self.expiry = expiry
    self.sentMs = sentMs
    self.synced = synced
  }

  /// The session as the engine holds it (the modes and lengths typed).
  public var session: RoomSession {
    RoomSession(
      revision: rev, origin: by,
      plan: zip(modes, lengths).map { RoomSession.Phase(mode: Mode(rawValue: $0) ?? .focus, length: seconds($1)) },
      planRevision: planRev, phase: phase, state: RoomSession.State(rawValue: state) ?? .ended,
      elapsed: elapsedMs * 1_000_000)
  }

  /// The message of `session` as a desk holds it, with the sender's moment.
  public init(_ session: RoomSession, expiry: Int64, sentMs: Int64, synced: Bool) {
    self.init(
      rev: session.revision, by: session.origin, modes: session.plan.map(\.mode.rawValue),
      lengths: session.plan.map { wholeSeconds($0.length) }, planRev: session.planRevision, phase: session.phase,
      state: session.state.rawValue, elapsedMs: session.elapsed / 1_000_000, expiry: expiry, sentMs: sentMs,
      synced: synced)
  }

  /// The session as the device holds it (its `room_*` state fields), nil when it holds none or a
  /// field is missing or out of range.
  public static func held(_ f: [String: JSONValue]) -> RoomSessionMessage? {
    guard let rev = f["room_rev"]?.int, let by = f["room_by"]?.string, let modes = f["room_modes"]?.list,
      let lengths = f["room_lengths"]?.list, let phase = f["room_phase"]?.int, let state = f["room_state"]?.string,
      let elapsed = f["room_elapsed_ms"]?.int
    else { return nil }
    let m = RoomSessionMessage(
      rev: rev, by: by, modes: modes.compactMap(\.string), lengths: lengths.compactMap(\.int),
      planRev: f["room_plan_rev"]?.int ?? rev, phase: Int(phase), state: state, elapsedMs: elapsed, expiry: 600,
      sentMs: 0, synced: false)
    // Checked as any message is: the device's own rules made it, a mistake must not go out.
    guard case .success = parse(m.json) else { return nil }
    return m
  }

  /// The Message Expiry Interval it is published with: the plan's time left and 120 s while
  /// running, a day paused, 10 minutes ended.
  public var plannedExpiry: Int64 {
    switch state {
    case "running":
      let left = lengths[phase...].reduce(0, +) * 1000 - elapsedMs
      return min(Self.maxExpiry, (left + 999) / 1000 + 120)
    case "paused": return 86400
    default: return 600
    }
  }

  /// Where the session stands `by` ns later (a running one moves on through its phases); nil
  /// when its plan is over by then.
  public func advanced(by span: Nanoseconds) -> RoomSessionMessage? {
    guard state == "running" else { return self }
    // The engine's one reading of a running plan: anchored at zero, read `span` later.
    let held = RoomHeld(session: session, anchor: .zero)
    let later = Instant.zero + max(0, span)
    if case .ended = held.at(later) { return nil }
    return RoomSessionMessage(held.said(at: later), expiry: expiry, sentMs: sentMs, synced: synced)
  }
}

/// A session's place in the precedence (docs/room.md): higher `rev` wins; equal `rev`: the
/// greater `by`, compared byte by byte; equal both: the same session.
public struct RoomRevision: Equatable, Sendable, Comparable {
  public var rev: Int64
  public var by: String

  public static func < (a: RoomRevision, b: RoomRevision) -> Bool {
    RoomSession.orders(a.rev, a.by, before: b.rev, b.by)
  }
}

/// A member message: a desk of the room and what it is doing: the engine's own `RoomView.Member`,
/// read and written here for the broker and the control socket alike.
public typealias RoomMember = RoomView.Member

extension RoomView.Member {
  /// The largest member payload taken.
  public static let limit = 512

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
    guard RoomNames.isDesk(desk) else { return .failure(.init("desk must be a desk id (1-40 of A-Z a-z 0-9 . _ -)")) }
    guard let p = phase?.string.flatMap(Phase.init(rawValue:)) else {
      return .failure(.init("phase must be \(Phase.allCases.map(\.rawValue).joined(separator: ", "))"))
    }
    guard let m = mode?.string.flatMap(Mode.init(rawValue:)) else {
      return .failure(.init("mode must be one of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))"))
    }
    var l: SessionLabel?
    if let value = label {
      guard let text = value.string, case .success(let parsed) = SessionLabel.parse(text), (parsed?.text ?? "") == text
      else {
        return .failure(.init("label must be a session label (at most \(SessionLabel.maxCharacters) characters)"))
      }
      l = parsed
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
