import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// The bridge's side of a room (docs/room.md): a second MQTT connection, `pomodoro-<desk>-room`,
/// whose will empties this desk's member message, made while the device's `room` state field
/// names a room and remade when it names another. It passes the sessions heard on the desks'
/// session topics to the device with their age (`RoomClock`), keeps the roster of the other
/// members (`RoomRoster`), and publishes the device's new revisions on this desk's own session
/// topic and its member message on its own member topic: what a desk says is proven by the topic
/// it came on, which the broker's ACL lets only that desk write.
///
/// Everything heard is input from anyone on the broker: bounded (`RoomSessionMessage.limit`,
/// `RoomMember.limit`, `RoomRoster.most`), checked field by field, refused with a rate-limited log
/// line, and passed to the device at most `RoomDeviceQueue.passRate` times a second. A
/// `LoopSource` in the bridge's one loop.
public final class RoomBridge: LoopSource {
  /// How often the timesync flag is looked at.
  public static let flagLook = seconds(20)
  /// How often a device that holds an older session than the best heard is told again.
  public static let retell = seconds(5)
  /// How long after connecting the bridge waits for the retained sessions before it publishes the
  /// desk's own (a bridge restarted beside a desk that holds an old session of its own must not
  /// put it over the room's newer one).
  public static let settle = seconds(1)
  /// How long after a refused message the sessions are asked for again (`refuse`).
  public static let askAgain = seconds(1)

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
  /// Hands a request line to the device; false when it could not go (no device).
  public var toDevice: (ControlCommand) -> Bool = { _ in false }

  public private(set) var room: String?
  public private(set) var session: BrokerSession?
  public internal(set) var roomClock = RoomClock(flag: false)
  var roster = RoomRoster()
  var precedence = RoomPrecedence()
  var queue: RoomDeviceQueue
  var lastRetell: Instant?
  /// When the retained messages have had their time after connecting; whether the desk's own
  /// session waits for it.
  var settleAt: Instant?
  var ownWaiting = false
  /// When the retained sessions are asked for again (after a flood).
  var askAgainAt: Instant?
  /// The last revision of this desk's that lost (said once).
  var lastLoss: RoomRevision?
  /// Member topics of rooms left while the broker was away, emptied at the next connection.
  var withdrawals: [String] = []
  var member: RoomMember?
  var publishedMember: String?
  var nextMemberRefresh: Instant?
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
    queue = RoomDeviceQueue(at: clock.now)
    nextFlagLook = clock.now
  }

  /// The other members, sorted by desk id.
  public var members: [RoomMember] { roster.members }

  /// The bridge's view of the room, as `room_status` says it.
  public var view: RoomView {
    RoomView(desk: desk, broker: session?.up ?? false, clockTrusted: roomClock.trusted(at: clock.now), others: members)
  }

  // MARK: The device's state

  /// Each state the device reports: follows its room, publishes its new revisions and member
  /// message, tells it again of a better session when it holds an older one.
  public func state(_ fields: [String: JSONValue]) {
    let now = clock.now
    let named = fields["room"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    if named != room { follow(named) }
    guard room != nil else { return }
    member = RoomMember.own(fields, desk: desk)
    publishMember(now)
    // The device holds a revision of its own that it has not published: one it just made (a
    // device only makes revisions newer than what it holds, so no serial comparison with this
    // desk's earlier ones, which may lie more than half the space away after a forged one).
    let held = RoomSessionMessage.held(fields)
    let heldKey = held?.key(at: now)
    if let held, let heldKey, held.session.origin == desk, heldKey != precedence.origin?.message.key(at: now) {
      if precedence.wins(heldKey, at: now) {
        var m = held
        m.sentMs = wallMs()
        m.synced = roomClock.trusted(at: now)
        precedence.origin = (m, now)
        if settled(now) { publish(m, at: now) } else { ownWaiting = true }
      } else if heldKey != lastLoss, let why = precedence.loss(of: heldKey, at: now) {
        lastLoss = heldKey
        limiter.say(
          "room-lost", .notice, "room \(room ?? ""): this desk's \(why); it follows that one",
          what: "lost revisions of this desk", at: now)
      }
    }
    // A device behind the best heard (restarted, or it missed a line): told again, now and then.
    if let heard = precedence.better(than: heldKey, at: now), lastRetell.map({ now - $0 >= Self.retell }) ?? true {
      lastRetell = now
      queue.queue(heard)
      pass(now)
    }
  }

  /// Joins `name` (nil: none): withdraws the member message from the room it leaves and ends
  /// that connection, then connects anew with the will on the new member topic.
  func follow(_ name: String?) {
    if let old = room, let s = session {
      let topic = RoomTopics(prefix: topicPrefix, room: old).member(desk)
      // Not connected now: emptied at the next connection (to any room), or it would stay.
      if s.up { s.publish(topic, "", retain: true) } else if !withdrawals.contains(topic) { withdrawals.append(topic) }
      s.disconnect()
      for _ in 0..<10 where s.client.wantsWrite { s.client.loopWrite() }
      log.notice("left the room \(old)")
    }
    session = nil
    room = nil
    roster = RoomRoster()
    precedence = RoomPrecedence()
    settleAt = nil
    askAgainAt = nil
    ownWaiting = false
    publishedMember = nil
    queue.reset(at: clock.now)
    guard let name else { return }
    guard RoomNames.isRoom(name), RoomNames.isDesk(desk) else {
      log.once(
        "room-name", .error,
        "cannot join the room '\(name)' as '\(desk)': a room is 1-40 of A-Z a-z 0-9 . _ -, a desk id \(RoomNames.rule) (set room and mqtt_device_id in the config)"
      )
      return
    }
    let id = "pomodoro-\(desk)-room"
    let topics = RoomTopics(prefix: topicPrefix, room: name)
    do {
      let client = try makeClient(id, (topics.member(desk), ""))
      let roomLog = Log(sink: { [log] level, message in log.say(level, "room \(name): \(message)") })
      let s = BrokerSession(
        client: client, host: host, port: port, clientId: id, deviceId: desk, subscriptions: topics.subscriptions,
        limit: RoomSessionMessage.limit, clock: clock, log: roomLog)
      s.onConnected = { [unowned self] in connected() }
      s.onMessage = { [unowned self] in heard($0) }
      session = s
      room = name
      roomClock.flag = flagExists()
      nextFlagLook = clock.now + Self.flagLook
      log.notice("joining the room \(name) as \(desk) (client id \(id))")
    } catch {
      log.once("room-client", .error, "cannot make the room's MQTT client: \(error)")
    }
  }

  var topics: RoomTopics? { room.map { RoomTopics(prefix: topicPrefix, room: $0) } }

  // MARK: The broker

  /// Connected (again): the member message and the session this desk made, published anew (the
  /// broker may have lost them: `persistence false`).
  func connected() {
    for topic in withdrawals where topic != topics?.member(desk) { session?.publish(topic, "", retain: true) }
    withdrawals = []
    publishedMember = nil
    publishMember(clock.now)
    settleAt = clock.now + Self.settle
    ownWaiting = precedence.origin != nil
    queue.statusNow(at: clock.now)
  }

  /// Connected, and the retained messages have had their time.
  func settled(_ now: Instant) -> Bool { session?.up == true && settleAt.map { now >= $0 } ?? false }

  // MARK: To the device

  func pass(_ now: Instant) {
    guard let line = queue.pass(at: now) else { return }
    _ = toDevice(line)
  }

  // MARK: LoopSource

  public var readDescriptors: [Int32] { session?.readDescriptors ?? [] }
  public var writeDescriptors: [Int32] { session?.writeDescriptors ?? [] }

  public var deadline: Instant? {
    guard room != nil else { return nil }
    return [
      session?.deadline, queue.deadline, ownWaiting ? settleAt : nil, nextFlagLook, roster.nextExpiry,
      session?.up == true && member != nil ? nextMemberRefresh : nil, askAgainAt,
    ]
    .compactMap { $0 }.min()
  }

  public func handle(_ wake: Wake) {
    guard room != nil, let s = session else { return }
    s.handle(wake)
    let now = clock.now
    if now >= nextFlagLook {
      roomClock.flag = flagExists()
      nextFlagLook = now + Self.flagLook
    }
    if roster.expire(at: now) { queue.statusChanged(at: now) }
    if let at = askAgainAt, now >= at, let filter = topics?.sessions {
      askAgainAt = nil
      s.resubscribe(filter)
    }
    publishOwn(now)
    publishMember(now)
    pass(now)
    let v = view
    if queue.differs(v) { queue.statusChanged(at: now) }
    if queue.statusIsDue(at: now) { queue.said(v, sent: toDevice(.roomStatus(v)), at: now) }
  }

  /// Leaving (the process ends): the member message withdrawn, the connection ended.
  public func leave() { follow(nil) }

}
