import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What the room bridge tells the device (docs/room.md): a session heard on the room's topic with
/// its age, and the bridge's view of the room.
public enum RoomToDevice: Equatable, Sendable {
  /// A session with its age when the bridge wrote it, and that instant on the bridge's monotonic
  /// clock in ms (the machine's one clock, the desk's too: the time the line waits for the
  /// desk's loop is then not lost).
  case session(RoomSessionMessage, ageMs: Int64, atMs: Int64)
  case status(RoomStatus)

  /// The request line (docs/room.md): `{"cmd":"room_session", <the session's fields>, "age_ms":N,
  /// "at_ms":N}` or `{"cmd":"room_status",...}` with the members as parallel lists.
  public var line: String {
    switch self {
    case .session(let m, let age, let at):
      return FlatJSON.encode(
        [("cmd", .string("room_session"))] + m.fields + [("age_ms", .int(age)), ("at_ms", .int(at))])
    case .status(let s):
      return FlatJSON.encode([
        ("cmd", .string("room_status")), ("desk", .string(s.desk)), ("broker", .bool(s.broker)),
        ("clock_trusted", .bool(s.clockTrusted)), ("desks", .list(s.members.map { .string($0.desk) })),
        ("phases", .list(s.members.map { .string($0.phase.rawValue) })),
        ("modes", .list(s.members.map { .string($0.mode.rawValue) })),
        ("labels", .list(s.members.map { .string($0.label?.text ?? "") })),
        ("following", .list(s.members.map { .bool($0.following) })),
      ])
    }
  }
}

/// The bridge's view of the room, as `room_status` says it: its own desk, whether its room
/// connection is up, whether its own clock is trusted, and the other members (sorted by desk).
public struct RoomStatus: Equatable, Sendable {
  public var desk: String
  public var broker: Bool
  public var clockTrusted: Bool
  public var members: [RoomMember]
}

/// The bridge's side of a room (docs/room.md): a second MQTT connection, `pomodoro-<desk>-room`,
/// whose will empties this desk's member message, made while the device's `room` state field
/// names a room and remade when it names another. It passes the session messages heard on the
/// room's topic to the device with their age (`RoomClock`), keeps the roster of the other members
/// and tells the device of it, publishes the device's new revisions and its member message.
///
/// Everything heard is input from anyone on the broker: bounded (`RoomSessionMessage.limit`,
/// `RoomMember.limit`, `maxMembers`), checked field by field, refused with a rate-limited log
/// line, and passed to the device at most `passRate` times a second (the best of what waits),
/// so that a flood never stalls the device's buttons. A `LoopSource` in the bridge's one loop.
public final class RoomBridge: LoopSource {
  /// The most other members kept.
  public static let maxMembers = 63
  /// The most `room_session` lines a second: a flood is coalesced to the best message.
  public static let passRate: Int64 = 20
  /// `room_status` at least this often (the device counts the bridge gone after 60 s).
  public static let heartbeat = seconds(20)
  /// The least time between two `room_status` lines for changes (a flood of members).
  public static let statusGap = ms(250)
  /// How often a device that holds an older session than the best heard is told again.
  public static let retell = seconds(5)
  /// How often the timesync flag is looked at.
  public static let flagLook = seconds(20)
  /// How long after connecting the bridge waits for the retained session before it publishes the
  /// desk's own (a bridge restarted beside a desk that holds an old session of its own must not
  /// put it over the room's newer one).
  public static let settle = seconds(1)

  public typealias ClientMaker = (_ id: String, _ will: (topic: String, payload: String)) throws -> MQTTClient

  let topicPrefix: String
  public let desk: String
  let host: String
  let port: Int
  let clock: MonotonicClock
  let log: Log
  let limiter: LogLimiter
  let makeClient: ClientMaker
  /// The own wall clock, ms since the epoch.
  var wallMs: () -> Int64
  /// Whether systemd-timesyncd's flag is there.
  var flagExists: () -> Bool
  /// Hands a line to the device; false when it could not go (no device).
  public var toDevice: (RoomToDevice) -> Bool = { _ in false }

  public private(set) var room: String?
  public private(set) var session: BrokerSession?
  public private(set) var roomClock = RoomClock(flag: false)
  /// The other members, by desk.
  public private(set) var members: [String: RoomMember] = [:]
  /// The best revision heard or published in this room.
  public private(set) var best: RoomRevision?
  /// The best message heard from others, when heard, for telling a device that lags.
  var bestHeard: (message: RoomSessionMessage, ageMs: Int64, at: Instant)?
  /// The session this desk made and published, and when its `elapsed_ms` was true.
  var origin: (message: RoomSessionMessage, at: Instant)?
  /// What waits to go to the device, the best first, and when the next may go.
  var waiting: (message: RoomSessionMessage, ageMs: Int64, at: Instant)?
  var nextPass: Instant
  var lastRetell: Instant?
  /// When the retained messages have had their time after connecting; whether the desk's own
  /// session waits for it.
  var settleAt: Instant?
  var ownWaiting = false
  /// Member topics of rooms left while the broker was away, emptied at the next connection.
  var withdrawals: [String] = []
  /// When a losing copy of this desk's session was last answered (at most once a second).
  var lastRepublish: Instant?
  var member: RoomMember?
  var publishedMember: String?
  var lastStatus: RoomStatus?
  var statusDue: Instant?
  var nextHeartbeat: Instant
  var nextFlagLook: Instant

  public init(
    topicPrefix: String, desk: String, host: String, port: Int, clock: MonotonicClock, log: Log,
    limiter: LogLimiter, wallMs: @escaping () -> Int64, flagExists: @escaping () -> Bool,
    makeClient: @escaping ClientMaker
  ) {
    self.topicPrefix = topicPrefix
    self.desk = desk
    self.host = host
    self.port = port
    self.clock = clock
    self.log = log
    self.limiter = limiter
    self.wallMs = wallMs
    self.flagExists = flagExists
    self.makeClient = makeClient
    nextPass = clock.now
    nextHeartbeat = clock.now
    nextFlagLook = clock.now
  }

  /// The room's topics.
  public static func sessionTopic(prefix: String, room: String) -> String { "\(prefix)/room/\(room)/session" }
  public static func memberTopic(prefix: String, room: String, desk: String) -> String {
    "\(prefix)/room/\(room)/members/\(desk)"
  }
  var sessionTopic: String? { room.map { Self.sessionTopic(prefix: topicPrefix, room: $0) } }
  var membersPrefix: String? { room.map { "\(topicPrefix)/room/\($0)/members/" } }
  var ownMemberTopic: String? { room.map { Self.memberTopic(prefix: topicPrefix, room: $0, desk: desk) } }

  // MARK: The device's state

  /// Each state the device reports: follows its room, publishes its new revisions and member
  /// message, tells it again of a better session when it holds an older one.
  public func state(_ fields: [String: JSONValue]) {
    let now = clock.now
    let named = fields["room"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    if named != room { follow(named) }
    guard room != nil else { return }
    member = RoomMember.own(fields, desk: desk)
    publishMember()
    let held = RoomSessionMessage.held(fields)
    if let held, held.by == desk, best.map({ held.key > $0 }) ?? true, origin.map({ held.key > $0.message.key }) ?? true
    {
      var m = held
      m.expiry = m.plannedExpiry
      m.sentMs = wallMs()
      m.synced = roomClock.trusted(at: now)
      origin = (m, now)
      if settled(now) {
        best = m.key
        publish(m)
      } else {
        ownWaiting = true
      }
    }
    // A device behind the best heard (restarted, or it missed a line): told again, now and then,
    // while that session lasts.
    if let heard = bestHeard, held.map({ heard.message.key > $0.key }) ?? true, heard.message.state != "ended",
      heard.ageMs + (now - heard.at) / 1_000_000 < heard.message.expiry * 1000,
      lastRetell.map({ now - $0 >= Self.retell }) ?? true
    {
      lastRetell = now
      queue(heard.message, ageMs: heard.ageMs + (now - heard.at) / 1_000_000, at: now)
    }
  }

  /// Joins `name` (nil: none): withdraws the member message from the room it leaves and ends
  /// that connection, then connects anew with the will on the new member topic.
  func follow(_ name: String?) {
    if let old = room, let s = session {
      let topic = Self.memberTopic(prefix: topicPrefix, room: old, desk: desk)
      // Not connected now: emptied at the next connection (to any room), or it would stay.
      if s.up { s.publish(topic, "", retain: true) } else if !withdrawals.contains(topic) { withdrawals.append(topic) }
      s.disconnect()
      for _ in 0..<10 where s.client.wantsWrite { s.client.loopWrite() }
      log.notice("left the room \(old)")
    }
    session = nil
    room = nil
    members = [:]
    best = nil
    bestHeard = nil
    origin = nil
    settleAt = nil
    ownWaiting = false
    waiting = nil
    publishedMember = nil
    lastStatus = nil
    guard let name else { return }
    guard RoomNames.isRoom(name), RoomNames.isDesk(desk) else {
      log.once(
        "room-name", .error,
        "cannot join the room '\(name)' as '\(desk)': a room and a desk id are 1-40 of A-Z a-z 0-9 . _ - (set room and mqtt_device_id in the config)"
      )
      return
    }
    let id = "pomodoro-\(desk)-room"
    let memberTopic = Self.memberTopic(prefix: topicPrefix, room: name, desk: desk)
    do {
      let client = try makeClient(id, (memberTopic, ""))
      let roomLog = Log(sink: { [log] level, message in log.say(level, "room \(name): \(message)") })
      let s = BrokerSession(
        client: client, host: host, port: port, clientId: id, deviceId: desk,
        subscriptions: [Self.sessionTopic(prefix: topicPrefix, room: name), "\(topicPrefix)/room/\(name)/members/+"],
        limit: RoomSessionMessage.limit, clock: clock, log: roomLog)
      s.onConnected = { [unowned self] in connected() }
      s.onMessage = { [unowned self] in heard($0) }
      session = s
      room = name
      roomClock.flag = flagExists()
      nextFlagLook = clock.now + Self.flagLook
      statusDue = clock.now
      log.notice("joining the room \(name) as \(desk) (client id \(id))")
    } catch {
      log.once("room-client", .error, "cannot make the room's MQTT client: \(error)")
    }
  }

  // MARK: The broker

  /// Connected (again): the member message and the session this desk made, published anew (the
  /// broker may have lost them: `persistence false`).
  func connected() {
    for topic in withdrawals where topic != ownMemberTopic { session?.publish(topic, "", retain: true) }
    withdrawals = []
    publishedMember = nil
    publishMember()
    settleAt = clock.now + Self.settle
    ownWaiting = origin != nil
    statusDue = clock.now
  }

  /// Connected, and the retained messages have had their time.
  func settled(_ now: Instant) -> Bool { session?.up == true && settleAt.map { now >= $0 } ?? false }

  /// The desk's own session, when it waited for the retained one and is still the best.
  func publishOwn(_ now: Instant) {
    guard ownWaiting, settled(now) else { return }
    ownWaiting = false
    if let (m, at) = origin, best.map({ m.key >= $0 }) ?? true {
      best = m.key
      republish(m, madeAt: at)
    }
  }

  func publishMember() {
    guard let member, let topic = ownMemberTopic, let s = session, s.up else { return }
    let json = member.json
    guard json != publishedMember else { return }
    publishedMember = json
    s.publish(topic, json, retain: true)
  }

  func publish(_ m: RoomSessionMessage) {
    guard let topic = sessionTopic, let s = session else { return }
    s.publish(topic, m.json, retain: true, expiry: Int(m.expiry))
  }

  /// The session this desk made, moved on to now; not when it is over or ended.
  func republish(_ made: RoomSessionMessage, madeAt: Instant) {
    let now = clock.now
    guard made.state != "ended", var m = made.advanced(by: now - madeAt) else { return }
    m.expiry = m.plannedExpiry
    m.sentMs = wallMs()
    m.synced = roomClock.trusted(at: now)
    origin = (m, now)
    publish(m)
  }

  func heard(_ message: MQTTMessage) {
    let now = clock.now
    guard let room, let sessionTopic, let membersPrefix else { return }
    if message.topic == sessionTopic {
      heardSession(message, room: room, at: now)
    } else if message.topic.hasPrefix(membersPrefix) {
      heardMember(message, desk: String(message.topic.dropFirst(membersPrefix.count)), room: room, at: now)
    }
  }

  func refuse(_ kind: String, _ why: String, topic: String, at now: Instant) {
    limiter.say(
      "room-" + kind, .warning, "ignored a \(kind) message on \(topic): \(why)",
      what: "refused \(kind) messages on \(topic)", at: now)
  }

  func heardSession(_ message: MQTTMessage, room: String, at now: Instant) {
    let topic = message.topic
    guard message.length > 0 else { return }  // The retained session cleared.
    guard message.length <= RoomSessionMessage.limit else {
      return refuse(
        "session", "\(message.length) bytes, over the \(RoomSessionMessage.limit)-byte limit", topic: topic, at: now)
    }
    let m: RoomSessionMessage
    switch RoomSessionMessage.parse(message.text) {
    case .failure(let why): return refuse("session", why.message, topic: topic, at: now)
    case .success(let parsed): m = parsed
    }
    let age = roomClock.age(
      expiry: m.expiry, expiryLeft: message.expiryLeft, sentMs: m.sentMs, synced: m.synced,
      retained: message.retained, wallMs: wallMs(), at: now)
    if age.source == .unknown {
      log.once(
        "room-age", .warning,
        "room \(room): a retained session came without MQTT 5's message expiry and this desk's clock is not trusted: its age is taken as 0 (a broker that forwards the expiry, or a synchronised clock, fixes it)"
      )
    }
    // A losing copy (two desks that started in the same second, or a bridge that came back with
    // an old one): the origin of the best puts its copy back, at most once a second.
    if let (own, at) = origin, own.key == best, m.key < own.key,
      lastRepublish.map({ now - $0 >= seconds(1) }) ?? true
    {
      lastRepublish = now
      republish(own, madeAt: at)
    }
    if best.map({ m.key > $0 }) ?? true { best = m.key }
    if m.by != desk, bestHeard.map({ m.key >= $0.message.key }) ?? true { bestHeard = (m, age.ms, now) }
    queue(m, ageMs: age.ms, at: now)
  }

  func heardMember(_ message: MQTTMessage, desk other: String, room: String, at now: Instant) {
    let topic = message.topic
    guard other != desk else { return }
    guard RoomNames.isDesk(other) else {
      return refuse("member", "the desk id is not 1-40 of A-Z a-z 0-9 . _ -", topic: topic, at: now)
    }
    guard message.length > 0 else {
      if members.removeValue(forKey: other) != nil { statusChanged(now) }
      return
    }
    guard message.length <= RoomMember.limit else {
      return refuse("member", "\(message.length) bytes, over the \(RoomMember.limit)-byte limit", topic: topic, at: now)
    }
    switch RoomMember.parse(message.text, desk: other) {
    case .failure(let why): refuse("member", why.message, topic: topic, at: now)
    case .success(let m):
      guard members[other] != nil || members.count < Self.maxMembers else {
        return refuse("member", "the room has \(Self.maxMembers) other desks already", topic: topic, at: now)
      }
      if members[other] != m {
        members[other] = m
        statusChanged(now)
      }
    }
  }

  // MARK: To the device

  /// Keeps the best of what waits for the device; it goes at most `passRate` times a second.
  func queue(_ m: RoomSessionMessage, ageMs: Int64, at now: Instant) {
    if let w = waiting, w.message.key > m.key { return }
    waiting = (m, ageMs, now)
    pass(now)
  }

  func pass(_ now: Instant) {
    guard let w = waiting, now >= nextPass else { return }
    waiting = nil
    nextPass = now + seconds(1) / Self.passRate
    _ = toDevice(.session(w.message, ageMs: w.ageMs + (now - w.at) / 1_000_000, atMs: now.nanoseconds / 1_000_000))
  }

  func statusChanged(_ now: Instant) {
    let soonest = (lastStatusAt ?? now - Self.statusGap) + Self.statusGap
    statusDue = min(statusDue ?? soonest, max(now, soonest))
  }
  var lastStatusAt: Instant?

  public var status: RoomStatus {
    RoomStatus(
      desk: desk, broker: session?.up ?? false, clockTrusted: roomClock.trusted(at: clock.now),
      members: members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { members[$0] })
  }

  func sendStatus(_ now: Instant) {
    let s = status
    if toDevice(.status(s)) {
      lastStatus = s
      lastStatusAt = now
      statusDue = nil
      nextHeartbeat = now + Self.heartbeat
    } else {
      statusDue = now + seconds(1)
    }
  }

  // MARK: LoopSource

  public var readDescriptors: [Int32] { session?.readDescriptors ?? [] }
  public var writeDescriptors: [Int32] { session?.writeDescriptors ?? [] }

  public var deadline: Instant? {
    guard room != nil else { return nil }
    return [
      session?.deadline, waiting.map { _ in nextPass }, ownWaiting ? settleAt : nil, statusDue, nextHeartbeat,
      nextFlagLook,
    ]
    .compactMap { $0 }.min()
  }

  public func handle(_ wake: Wake) {
    guard room != nil, let s = session else { return }
    let wasUp = s.up
    s.handle(wake)
    let now = clock.now
    if now >= nextFlagLook {
      roomClock.flag = flagExists()
      nextFlagLook = now + Self.flagLook
    }
    publishOwn(now)
    pass(now)
    if s.up != wasUp || lastStatus.map({ $0 != status }) ?? true { statusChanged(now) }
    if now >= nextHeartbeat || statusDue.map({ now >= $0 }) ?? false { sendStatus(now) }
  }

  /// Leaving (the process ends): the member message withdrawn, the connection ended.
  public func leave() { follow(nil) }

  /// The device went away (stopped, hung) while the bridge runs: its member message is emptied,
  /// as the will would, so the room does not count a desk that does nothing; its next state
  /// puts it back. The room's connection stays.
  public func deviceGone() {
    member = nil
    guard let topic = ownMemberTopic, let s = session, s.up, publishedMember != "" else { return }
    publishedMember = ""
    s.publish(topic, "", retain: true)
  }

  /// The wall clock in ms since the epoch (only for `sent_ms` and the wall-age).
  public static func systemWallMs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
  }

  /// Whether systemd-timesyncd's flag (or the test hook's, `POMODORO_TIMESYNC_FLAG`) is there.
  public static func systemTimesyncFlag() -> Bool {
    let hook = getenv(RoomClock.flagVariable).map { String(cString: $0) }
    return Files.exists(RoomClock.flagPath(environment: hook.map { [RoomClock.flagVariable: $0] } ?? [:]))
  }
}
