/// A room's shared session (docs/room.md): a plan of countdown phases run back to back, the
/// revision that last changed it and the desk that made that revision, the phase it is in, and
/// how it stands: running, paused or ended, with the time counted in the phase at the instant the
/// revision was made. Every desk derives the countdown from it; nobody sends ticks.
public struct RoomSession: Equatable, Sendable {
  /// One phase of the plan: a countdown mode and its length.
  public struct Phase: Equatable, Sendable {
    public var mode: Mode
    public var length: Nanoseconds
    public init(mode: Mode, length: Nanoseconds) {
      self.mode = mode
      self.length = length
    }
  }

  public enum State: String, CaseIterable, Sendable {
    case running
    case paused
    case ended
  }

  /// At most this many phases a plan.
  public static let mostPhases = 8
  /// A phase's length: what the dial sets.
  public static let lengths = Dial.shortest...Dial.longest
  /// Revisions are serial numbers of 32 bits (RFC 1982, as DNS zone serials): 0..<2^32, the next
  /// after 2^32 - 1 is 0, and the next from any revision is newer than it. No revision is the
  /// last, so none wins for good: whatever a desk holds, its next press supersedes it.
  public static let revisions: Int64 = 1 << 32
  /// The revision that supersedes `revision` (1 when the desk holds none).
  public static func next(after revision: Int64?) -> Int64 { ((revision ?? 0) + 1) & (revisions - 1) }
  /// How long a session lives after the moment its `elapsed` held (the Message Expiry Interval
  /// it is published with): running, the plan's time left and 2 minutes; paused, a day; ended,
  /// 10 minutes. A desk forgets a session it holds once it expired (a forged one too).
  public static let mostLife = seconds(86_400)
  public var life: Nanoseconds {
    switch state {
    case .running:
      let left = plan[min(phase, plan.count - 1)...].reduce(0) { $0 + $1.length } - elapsed
      return min(Self.mostLife, max(0, left) + seconds(120))
    case .paused: return Self.mostLife
    case .ended: return minutes(10)
    }
  }
  /// The modes a room shares: the pomodoro's countdowns (a flow counts up to no end, an egg is
  /// the cook's own).
  public static func shares(_ mode: Mode) -> Bool {
    switch mode.kind {
    case .focus, .rest: return true
    case .flow, .egg: return false
    }
  }

  public var revision: Int64
  /// The desk that made this revision (its `mqtt_device_id`).
  public var origin: String
  public var plan: [Phase]
  /// The revision that started this plan (a start); a pause, a resume or a skip keeps it.
  public var planRevision: Int64
  /// The current phase's index in `plan`.
  public var phase: Int
  public var state: State
  /// Time counted in the current phase when the revision was made (its anchor).
  public var elapsed: Nanoseconds

  public init(
    revision: Int64, origin: String, plan: [Phase], planRevision: Int64? = nil, phase: Int, state: State,
    elapsed: Nanoseconds
  ) {
    self.revision = revision
    self.origin = origin
    self.plan = plan
    self.planRevision = planRevision ?? revision
    self.phase = phase
    self.state = state
    self.elapsed = elapsed
  }

  /// Whether this revision wins over `other`: the newer revision in serial arithmetic; of two
  /// with the same one (two desks that started in the same second), or exactly half the space
  /// apart (RFC 1982 leaves it undefined), the one whose origin sorts last byte by byte. The same
  /// revision from the same desk is the same session: neither wins.
  public func supersedes(_ other: RoomSession) -> Bool {
    Self.orders(other.revision, other.origin, before: revision, origin)
  }

  /// Revisions this far apart (a quarter of the space) are no desk's steps of one room: one of
  /// them is a forger's, or a desk's from before a forger moved the room on. For them, and only
  /// for them, the later one in time wins: its anchor (when its `elapsed` held, from the age the
  /// broker measured) against the other's, when they lie `sameMoment` or more apart.
  public static let far: Int64 = 1 << 30
  public static let sameMoment = seconds(2)

  /// Whether revision `b` of `bBy`, anchored at `bAt`, wins over revision `a` of `aBy` anchored at
  /// `aAt` (both instants on this desk's clock): serial order, but by time for revisions `far`
  /// apart. An old session still retained on a desk's topic thus never wins over the room's
  /// newer one after a forger's jump, and a replay (a fresh anchor, a revision just before the
  /// room's) still loses by its revision.
  public static func wins(_ b: Int64, _ bBy: String, at bAt: Instant, over a: Int64, _ aBy: String, at aAt: Instant)
    -> Bool
  {
    let d = (b &- a) & (revisions - 1)
    if min(d, revisions - d) >= far, bAt - aAt >= sameMoment || aAt - bAt >= sameMoment { return bAt > aAt }
    return orders(a, aBy, before: b, bBy)
  }

  /// The precedence, written once (the bridge orders by it too): revision `a` from `aBy` comes
  /// before revision `b` from `bBy`. Revisions outside 0..<2^32 are taken modulo 2^32.
  public static func orders(_ a: Int64, _ aBy: String, before b: Int64, _ bBy: String) -> Bool {
    let half = revisions >> 1
    let d = (b &- a) & (revisions - 1)
    if d == 0 || d == half { return aBy.utf8.lexicographicallyPrecedes(bBy.utf8) }
    return d < half
  }
}

/// A room session as a desk holds it: with the instant (on this desk's monotonic clock) at which
/// its `elapsed` held, found from the message's age, and the instant it expires (its message's
/// expiry from that moment; the session's own `life` for one this desk made).
public struct RoomHeld: Equatable, Sendable {
  public var session: RoomSession
  public var anchor: Instant
  public var expires: Instant

  public init(session: RoomSession, anchor: Instant, life: Nanoseconds? = nil) {
    self.session = session
    self.anchor = anchor
    expires = anchor + min(RoomSession.mostLife, max(0, life ?? session.life))
  }

  /// Whether it has expired at `now`: a desk forgets it (and any session wins over it).
  public func expired(at now: Instant) -> Bool { now >= expires }

  /// Whether it wins over `other` (`RoomSession.wins`).
  public func supersedes(_ other: RoomHeld) -> Bool {
    RoomSession.wins(
      session.revision, session.origin, at: anchor, over: other.session.revision, other.session.origin,
      at: other.anchor)
  }

  /// Where the room stands at `now`.
  public enum Now: Equatable, Sendable {
    /// Phase `index` counts down to `deadline`.
    case running(index: Int, deadline: Instant)
    /// Phase `index` is paused with `remaining` left.
    case paused(index: Int, remaining: Nanoseconds)
    /// Nothing runs: ended by a desk, or past the plan's last phase.
    case ended

    /// The phase running or paused, nil when ended.
    public var index: Int? {
      switch self {
      case .running(let index, _), .paused(let index, _): return index
      case .ended: return nil
      }
    }
  }

  public func at(_ now: Instant) -> Now {
    let s = session
    guard s.plan.indices.contains(s.phase) else { return .ended }
    switch s.state {
    case .ended: return .ended
    case .paused: return .paused(index: s.phase, remaining: max(0, s.plan[s.phase].length - s.elapsed))
    case .running:
      var start = anchor - s.elapsed
      for index in s.phase..<s.plan.count {
        let end = start + s.plan[index].length
        if now < end { return .running(index: index, deadline: end) }
        start = end
      }
      return .ended
    }
  }

  /// The phase of the plan that runs or is paused at `now`, nil when the room is ended.
  public func phase(at now: Instant) -> RoomSession.Phase? { at(now).index.map { session.plan[$0] } }

  /// The session as this desk would say it at `now` (a state line, a revision of its own):
  /// the phase it has come to and the time counted in it.
  public func said(at now: Instant) -> RoomSession {
    var s = session
    switch at(now) {
    case .running(let index, let deadline):
      s.phase = index
      s.elapsed = max(0, s.plan[index].length - (deadline - now))
    case .paused: break
    case .ended:
      if s.state != .ended {
        s.phase = max(0, s.plan.count - 1)
        s.elapsed = s.plan.last?.length ?? 0
        s.state = .ended
      }
    }
    return s
  }
}

/// A desk's place in a room, as the engine keeps it: the room's name, this desk's id (the origin
/// of the revisions it makes) and the session it holds (the best revision it has heard or made).
public struct RoomStanding: Equatable, Sendable {
  public var name: String
  public var desk: String
  public internal(set) var held: RoomHeld? {
    didSet { if let held { lastRevision = held.session.revision } }
  }
  /// The revision of the last session held, kept when it expires: the next one this desk makes
  /// follows it (a bridge that published this desk's earlier revisions takes only newer ones).
  public internal(set) var lastRevision: Int64?
  /// The room phase this desk's timer is (it follows the room), nil: its timer, if any, is its
  /// own.
  var followed: PhaseKey?
  /// Whether this desk's timer is the room's.
  public var following: Bool { followed != nil }
  /// The revision of the last plan this desk started: its own pace.
  var planned: Int64?
  /// The room phase this desk cancelled out of (its plan's first revision and the phase's
  /// index): it follows again from the next phase, or at its next start.
  var left: PhaseKey?

  /// What the bridge last said of the room (its members, the broker, the clock), and when.
  public internal(set) var view: RoomView?
  public internal(set) var viewAt: Instant?

  public init(name: String, desk: String) {
    self.name = name
    self.desk = desk
    held = nil
    lastRevision = nil
    followed = nil
    planned = nil
    left = nil
    view = nil
    viewAt = nil
  }

  /// A bridge said something in the last `bridgeSilence`: the desk is in the room through it.
  public func bridged(at now: Instant) -> Bool {
    guard let at = viewAt else { return false }
    return now - at < RoomView.bridgeSilence
  }

  /// The desks of the room, this one first (as the bridge last said; only this one without it).
  public func members(self own: RoomView.Member) -> [RoomView.Member] {
    [own] + (view?.others ?? [])
  }

  struct PhaseKey: Equatable, Sendable {
    var planRevision: Int64
    var index: Int
  }
}

/// The bridge's view of the room (`room_status`, docs/room.md): this desk's id, whether the
/// broker is there, whether this desk's wall clock is trusted, and the other members.
public struct RoomView: Equatable, Sendable {
  /// The bridge says `room_status` at least every 20 s: after this long without, it is gone.
  public static let bridgeSilence: Nanoseconds = seconds(60)
  /// The most other members a view holds.
  public static let mostOthers = 63

  public struct Member: Equatable, Sendable {
    public var desk: String
    public var phase: Phase
    public var mode: Mode
    public var label: SessionLabel?
    public var following: Bool
    public init(desk: String, phase: Phase, mode: Mode, label: SessionLabel?, following: Bool) {
      self.desk = desk
      self.phase = phase
      self.mode = mode
      self.label = label
      self.following = following
    }
    /// In focus: a timer of a focus kind running.
    public var focusing: Bool { phase == .running && mode.kind.isFocus }
    /// What the desk does, as the page lists it: `idle`, `Focus`, `Short break, paused`,
    /// `Focus done` (ringing); a timer of its own, not the room's, says so (`Soft, own timer`).
    public var doing: String {
      let own = following ? "" : ", own timer"
      switch phase {
      case .idle: return "idle"
      case .running: return mode.displayName + own
      case .paused: return mode.displayName + ", paused" + own
      case .ringing: return mode.displayName + " done"
      }
    }
  }

  public var desk: String
  public var broker: Bool
  public var clockTrusted: Bool
  public var others: [Member]

  public init(desk: String, broker: Bool, clockTrusted: Bool, others: [Member]) {
    self.desk = desk
    self.broker = broker
    self.clockTrusted = clockTrusted
    self.others = Array(others.prefix(Self.mostOthers))
  }
}

extension EngineState {
  /// The room's desks, this one first as its state says it, then the others as the bridge last
  /// said them; nil outside a room. What the state fields list and the panel counts.
  public var roomMembers: [RoomView.Member]? {
    guard let room else { return nil }
    return room.members(
      self: RoomView.Member(desk: room.desk, phase: phase, mode: mode, label: label, following: room.following))
  }
}
