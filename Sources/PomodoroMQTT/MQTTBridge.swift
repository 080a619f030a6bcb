import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// `pomodoro mqtt`: the device's control socket (a `DeviceLink`) on one side, an MQTT broker (a
/// `BrokerSession`) on the other, in one poll loop (no libmosquitto thread). Publishes the
/// device's state (retained), availability with a last will, and Home Assistant's discovery
/// (`BridgeTopics`); passes what `CommandIntake` takes from the command topic to the device.
public final class MQTTBridge: LoopSource {
  public static var available: Bool { Mosquitto.available }
  public static var loadError: String? { Mosquitto.loadError }
  public static let notInstalled =
    "the MQTT bridge was built without libmosquitto: install it (sudo apt install libmosquitto-dev) and rebuild, or install the package pomodoro-mqtt (sudo apt install pomodoro-mqtt)"

  public let topics: BridgeTopics
  let log: Log
  let clock: MonotonicClock
  public let link: DeviceLink
  public let session: BrokerSession
  /// The desk's room (docs/room.md): a second connection while the device names one.
  public let room: RoomBridge
  /// What Home Assistant was told, to withdraw a desk announced under another id.
  public var announced: Announced
  let limiter: LogLimiter
  var intake: CommandIntake
  /// The last state, as published (retained) on the state topic.
  var lastState: String?
  /// What of the state the discovery follows (`DiscoveryParts`); nil: no state yet.
  var parts: DiscoveryParts?
  var availability = ""

  /// `removing`: for `--remove`, a client of its own (`pomodoro-<device>-remove`, so that a
  /// running bridge is not dropped for it) without a last will.
  public convenience init(config: DeviceConfig, log: Log, hostName: String, removing: Bool = false) throws {
    guard Self.available else { throw BridgeError(Self.notInstalled) }
    guard let socketPath = config.controlSocket else {
      throw BridgeError("control_socket is off in the config; the bridge talks to the device through it")
    }
    let topics = BridgeTopics(config: config, deviceId: config.mqttDeviceId ?? BridgeTopics.topicLevel(hostName))
    let password = try config.mqttPasswordFile.map { try BridgeCredentials.readPassword($0, log: log) }
    // libmosquitto says only "Invalid function arguments provided" for a CA file it cannot open.
    if let ca = config.mqttCafile { try BridgeCredentials.checkCafile(ca) }
    // One client id a desk: a second bridge for the same desk makes the broker drop the other.
    let id = "pomodoro-\(topics.deviceId)" + (removing ? "-remove" : "")
    let client = try Mosquitto(
      id: id, will: removing ? nil : (topics.availability, "offline"), user: config.mqttUser, password: password,
      cafile: config.mqttCafile, keep: CommandIntake.limit + 1)
    // The room's client keeps a session message and one byte (an oversized one shows), and asks
    // the broker for nothing over 4 KiB.
    let roomClient: RoomBridge.ClientMaker = { id, will in
      try Mosquitto(
        id: id, will: will, user: config.mqttUser, password: password, cafile: config.mqttCafile,
        keep: RoomSessionMessage.limit + 1, maxPacket: 4096)
    }
    self.init(
      topics: topics, socketPath: socketPath, host: config.mqttHost, port: config.mqttPort, client: client,
      clientId: id, removing: removing, clock: SystemClock(), log: log, roomClient: roomClient,
      wallMs: RoomBridge.systemWallMs, timesyncFlag: RoomBridge.systemTimesyncFlag)
  }

  /// The bridge over any MQTT client (a test's double) and clock; `roomClient` makes the room's
  /// client (none: the desk joins no room), `wallMs` and `timesyncFlag` are the room clock's.
  public init(
    topics: BridgeTopics, socketPath: String, host: String, port: Int, client: MQTTClient, clientId: String,
    removing: Bool = false, clock: MonotonicClock, log: Log, roomClient: RoomBridge.ClientMaker? = nil,
    wallMs: @escaping () -> Int64 = { 0 }, timesyncFlag: @escaping () -> Bool = { false }
  ) {
    self.topics = topics
    self.log = log
    self.clock = clock
    limiter = LogLimiter(log: log)
    announced = Announced(log: log)
    intake = CommandIntake(topic: topics.command, host: host, log: log, limiter: limiter)
    link = DeviceLink(socketPath: socketPath, clock: clock, log: log, shownIn: "Home Assistant")
    session = BrokerSession(
      client: client, host: host, port: port, clientId: clientId, deviceId: topics.deviceId,
      subscriptions: removing ? [] : [topics.command, topics.availability], limit: CommandIntake.limit, clock: clock,
      log: log)
    room = RoomBridge(
      topicPrefix: topics.topicPrefix, desk: topics.deviceId, host: host, port: port, clock: clock, log: log,
      limiter: limiter, wallMs: wallMs, flagExists: timesyncFlag,
      makeClient: roomClient ?? { _, _ in throw BridgeError("this bridge joins no room") })
    guard !removing else { return }
    session.onConnected = { [unowned self] in announce() }
    session.onMessage = { [unowned self] in received($0) }
    link.onState = { [unowned self] in state($0) }
    link.onAvailability = { [unowned self] available in
      updateAvailability()
      if !available { room.deviceGone() }
    }
    link.onRefusal = { [unowned self] what, refusal in
      let from = what.hasPrefix("room_") ? "the room" : topics.command
      limiter.say(
        "refused", .notice, "the device refused '\(what)' from \(from): \(refusal.message)",
        what: "refusals by the device", at: clock.now)
    }
    room.toDevice = { [unowned self] command in
      var label = command.name
      if case .roomSession(let m, _, _) = command { label += " rev \(m.session.revision) by \(m.session.origin)" }
      if case .sent = link.send(command, label: label) { return true }
      return false
    }
    link.onUnexpected = { [unowned self] line in
      limiter.say(
        "unexpected", .warning, "unexpected line from the device: \(line.prefix(200))",
        what: "unexpected lines from the device", at: clock.now)
    }
  }

  /// Runs until SIGTERM/SIGINT/SIGHUP (or `stop` returns true); returns the exit code. Neither a
  /// lost broker or device nor a client-id collision ends it: each is retried with back-off.
  public func run(stop: () -> Bool = { false }) throws -> Int32 {
    let waiter = try PollWaiter(clock: clock)
    log.info("bridging \(link.socketPath) and \(session.host):\(session.port) as \(topics.deviceId)")
    while !stop() {
      guard try SourceLoop.turn([session, link, room, self], waiter: waiter, until: clock.now + seconds(1)).isEmpty
      else {
        break
      }
    }
    // Leaving on purpose: say offline (the will is only for deaths), then disconnect; the room's
    // member message is withdrawn the same way.
    room.leave()
    if session.up {
      session.publish(topics.availability, "offline", retain: true)
      session.disconnect()
      for _ in 0..<10 where session.client.wantsWrite { session.client.loopWrite() }
    }
    link.close()
    log.info("stopped")
    return ExitCode.ok
  }

  /// How long `--remove` tries to reach the broker and have the withdrawal acknowledged.
  public static let removeTimeout = seconds(10)

  /// `pomodoro mqtt --remove`: connects, withdraws this desk's device (and one announced before
  /// under another id) from Home Assistant with empty retained payloads, disconnects. Gives up
  /// after `timeout`: exit 0, or 75 (temporary failure) when the broker could not be reached.
  public func remove(timeout: Nanoseconds = MQTTBridge.removeTimeout) throws -> Int32 {
    let end = clock.now + timeout
    let waiter = try PollWaiter(clock: clock, catchingSignals: false)
    func turn(while going: () -> Bool) throws {
      while clock.now < end && going() { _ = try SourceLoop.turn([session], waiter: waiter, until: end) }
    }
    try turn { !session.up }
    guard session.up else {
      log.error(
        "could not reach the MQTT broker \(session.host):\(session.port) in \(DurationText.format(timeout)); nothing withdrawn"
      )
      return ExitCode.noAnswer
    }
    for topic in announced.withdrawal(keeping: topics) + topics.withdrawal { session.publish(topic, "", retain: true) }
    announced.remember(nil)
    // Every empty payload acknowledged before the DISCONNECT: the library sends only so many
    // QoS 1 messages at once and drops the rest it holds when the connection ends.
    try turn { session.client.unacked > 0 && session.client.socket >= 0 }
    guard session.client.unacked == 0 else {
      log.error("the broker did not acknowledge the withdrawal in \(DurationText.format(timeout)); run --remove again")
      return ExitCode.noAnswer
    }
    session.disconnect()
    try turn { session.client.wantsWrite }
    log.notice(
      "withdrew the Home Assistant device pomodoro_\(topics.deviceId) (\(topics.withdrawal.count) retained topics emptied)"
    )
    return ExitCode.ok
  }

  // MARK: LoopSource: the log's counts

  public var readDescriptors: [Int32] { [] }
  public var writeDescriptors: [Int32] { [] }
  public var deadline: Instant? { [limiter.nextDeadline, intake.flood.nextDeadline].compactMap { $0 }.min() }

  public func handle(_ wake: Wake) {
    limiter.tick(clock.now)
    intake.flood.tick(clock.now)
  }

  // MARK: Wiring

  /// Connected: withdraw a desk announced under another id, announce this one, say its state.
  func announce() {
    for topic in announced.withdrawal(keeping: topics) { session.publish(topic, "", retain: true) }
    for (topic, payload) in topics.discovery(parts) { session.publish(topic, payload, retain: true) }
    announced.remember(topics)
    if let lastState { session.publish(topics.state, lastState, retain: true) }
    availability = ""
    updateAvailability()
  }

  func received(_ message: MQTTMessage) {
    let now = clock.now
    if message.topic == topics.availability {
      // What another client left on it (junk, a stale `online`) is put right at once. The
      // bridge's own messages do not come back (no local); a retained one is the broker's copy
      // from before this connection, put right without a word.
      let said = String(decoding: message.payload.prefix(64), as: UTF8.self)
      guard session.up, !availability.isEmpty, message.length > 64 || said != availability else { return }
      if !message.retained {
        limiter.say(
          "availability", .warning,
          "another client published '\(said)' on \(topics.availability); published '\(availability)' again",
          what: "foreign payloads on \(topics.availability)", at: now)
      }
      session.publish(topics.availability, availability, retain: true)
    } else if message.topic == topics.command, let (command, label) = intake.take(message, at: now) {
      switch link.send(command, label: label) {
      case .sent: break
      case .notConnected:
        limiter.say(
          "dropped", .warning, "the device is not connected; dropped the command '\(command.name)'",
          what: "commands dropped while the device was away", at: now)
      case .full(let queued):
        limiter.say(
          "full", .warning,
          "the device does not read its socket (\(queued) bytes waiting); dropped the command '\(command.name)'",
          what: "commands dropped while the device did not read", at: now)
      }
    }
  }

  func state(_ fields: [String: JSONValue]) {
    room.state(fields)
    let parts = DiscoveryParts(state: fields)
    if parts != self.parts {
      self.parts = parts
      if session.up {
        for (t, p) in topics.discovery(parts, optional: true) { session.publish(t, p, retain: true) }
      }
    }
    let payload = BridgeTopics.statePayload(fields)
    if payload != lastState {
      lastState = payload
      session.publish(topics.state, payload, retain: true)
    }
    updateAvailability()
  }

  func updateAvailability() {
    let now = link.available && lastState != nil ? "online" : "offline"
    guard session.up, now != availability else { return }
    availability = now
    session.publish(topics.availability, now, retain: true)
  }
}
