import CPomodoroMQTT
import CPomodoroSystem
import PomodoroCore
import PomodoroSystem

/// A bridge that cannot start (no libmosquitto, an unreadable password file): `pomodoro mqtt`
/// reports it as a config error (exit 78), which restarting does not mend.
public struct BridgeError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The topics of one device.
public struct BridgeTopics: Equatable, Sendable {
  public var state: String
  public var availability: String
  public var command: String
  public var discoveryPrefix: String
  public var deviceId: String

  public var topicPrefix: String

  public init(config: DeviceConfig, deviceId: String) {
    self.init(topicPrefix: config.mqttTopicPrefix, discoveryPrefix: config.mqttDiscoveryPrefix, deviceId: deviceId)
  }

  public init(topicPrefix: String, discoveryPrefix: String, deviceId: String) {
    let base = "\(topicPrefix)/\(deviceId)"
    state = base + "/state"
    availability = base + "/availability"
    command = base + "/command"
    self.topicPrefix = topicPrefix
    self.discoveryPrefix = discoveryPrefix
    self.deviceId = deviceId
  }

  /// What the bridge remembers of the device it announced (`announced.json` in its state
  /// directory), to withdraw it when the device id or a prefix changes.
  public var record: String {
    FlatJSON.encode([
      ("device_id", .string(deviceId)), ("topic_prefix", .string(topicPrefix)),
      ("discovery_prefix", .string(discoveryPrefix)),
    ])
  }

  public init?(record: String) {
    guard let o = FlatJSON.decode(record), let id = o["device_id"]?.string, let topic = o["topic_prefix"]?.string,
      let discovery = o["discovery_prefix"]?.string
    else { return nil }
    self.init(topicPrefix: topic, discoveryPrefix: discovery, deviceId: id)
  }

  /// Home Assistant MQTT discovery: (config topic, retained JSON payload) for each entity of
  /// `HomeAssistant.entities`, all on one device with its software version and the bridge as
  /// their origin.
  public var discovery: [(topic: String, payload: String)] {
    let node = "pomodoro_\(deviceId)"
    let device = DiscoveryValue.object([
      .init("identifiers", .list([node])), .init("name", .text("Pomodoro \(deviceId)")),
      .init("manufacturer", .text("Pomodoro")), .init("model", .text("Desk timer")),
      .init("sw_version", .text(Release.version)),
    ])
    let origin = DiscoveryValue.object([
      .init("name", .text("pomodoro mqtt")), .init("sw_version", .text(Release.version)),
    ])
    return HomeAssistant.entities.map { e in
      let id = "\(node)_\(e.object)"
      var pairs: [DiscoveryValue.Pair] = [
        .init("name", .text(e.name)), .init("unique_id", .text(id)),
        .init("default_entity_id", .text(Self.entityId(e.component, id))), .init("object_id", .text(id)),
        .init("availability_topic", .text(availability)),
      ]
      if e.readsState { pairs.append(.init("state_topic", .text(state))) }
      if e.keys.contains(where: { $0.key == "json_attributes_template" }) {
        pairs.append(.init("json_attributes_topic", .text(state)))
      }
      if e.commands { pairs.append(.init("command_topic", .text(command))) }
      pairs += e.keys + [.init("device", device), .init("origin", origin)]
      return (topic: configTopic(e), payload: DiscoveryValue.object(pairs).json)
    }
  }

  /// Where `entity`'s discovery config is retained: `homeassistant/sensor/pomodoro_desk-1/phase/config`.
  func configTopic(_ entity: HomeAssistantEntity) -> String {
    "\(discoveryPrefix)/\(entity.component)/pomodoro_\(deviceId)/\(entity.object)/config"
  }

  /// Every retained topic of the device (its configs, state and availability) with an empty
  /// payload, which deletes a retained message: Home Assistant then removes the entities, and the
  /// device with the last of them.
  public var withdrawal: [String] {
    HomeAssistant.entities.map(configTopic) + [state, availability]
  }
}

extension BridgeTopics {
  /// A Home Assistant entity id, `sensor.pomodoro_desk_1_phase`: the component, a dot and the
  /// object lowercased with every run of other characters than letters and digits as one `_`
  /// (Home Assistant refuses `-`, capitals and `__`). Its `default_entity_id` (2025.10 on).
  static func entityId(_ component: String, _ object: String) -> String {
    var slug = ""
    for c in object.lowercased().unicodeScalars {
      if ("a"..."z").contains(c) || ("0"..."9").contains(c) {
        slug.unicodeScalars.append(c)
      } else if !slug.isEmpty && !slug.hasSuffix("_") {
        slug += "_"
      }
    }
    while slug.hasSuffix("_") { slug.removeLast() }
    return component + "." + slug
  }
}

/// `pomodoro mqtt`: the control socket on one side, an MQTT broker on the other, in one poll loop
/// (no libmosquitto thread). Publishes the device's state (retained), availability with a last
/// will, Home Assistant discovery; passes commands from the command topic to the device.
/// Reconnects to either side with back-off and republishes when it comes back.
public final class MQTTBridge {
  public static var available: Bool { pomo_mqtt_available() == 1 }
  /// Why libmosquitto (compiled in) cannot be loaded now, with the fix; nil once it is loaded.
  public static var loadError: String? { pomo_mqtt_load().map { String(cString: $0) } }
  /// The longest command payload taken: what the control socket takes as one request line.
  static let maxCommand = ControlProtocol.maxLine
  public static let notInstalled =
    "the MQTT bridge was built without libmosquitto: install it (sudo apt install libmosquitto-dev) and rebuild, or run sudo bash deploy/install.sh --with-mqtt"

  let config: DeviceConfig
  public let topics: BridgeTopics
  let log: Log
  let socketPath: String
  let clock = SystemClock()
  let client: OpaquePointer
  let clientId: String
  var password: String?
  /// Rejections from outside (the command topic) are said a few times a minute, then counted.
  let limiter: LogLimiter
  /// The most command bytes queued for a device that does not read (stopped with SIGSTOP, say);
  /// commands past it are dropped and said so.
  static let maxQueued = 16 * ControlProtocol.maxLine
  /// Set when the broker said it dropped this bridge for another with the same client id (MQTT 5's
  /// "session taken over"): `run` stops.
  var takenOver = false
  /// When the broker last accepted the connection, and how many connections in a row it dropped
  /// within `quickDrop` of accepting them: what a second bridge with the same client id does
  /// on a broker that does not say why (mosquitto 2.0 closes the older connection silently).
  var connectedAt: Instant?
  var quickDrops = 0
  static let quickDrop = seconds(10)

  // The broker
  var brokerUp = false
  var brokerRetryAt: Instant?
  var brokerBackoff = Backoff(first: ms(500), last: seconds(30))
  var nextMisc: Instant
  // The device
  var device: Int32 = -1
  var deviceInput = LineBuffer(limit: 1 << 16)
  var deviceOutput: [UInt8] = []
  var deviceRetryAt: Instant?
  var deviceBackoff = Backoff(first: ms(250), last: seconds(5))
  /// The last state, as published (retained) on the state topic.
  var lastState: String?
  /// The device says nothing between phase changes, so the bridge asks it for its status this
  /// often: while a timer runs it republishes the state (its `remaining_ms` and `remaining`
  /// moved), and at any time a device that does not answer is found out. 10 s by default.
  public var refreshInterval: Nanoseconds = seconds(10)
  /// When to ask next; nil while the device is not connected.
  var nextRefresh: Instant?
  /// A device that has left a request unanswered this long is unavailable (its entities in Home
  /// Assistant too) until it answers: stopped (SIGSTOP), hung, or too busy to serve its socket.
  public var answerTimeout: Nanoseconds = seconds(5)
  /// The requests sent to the device and not answered yet, oldest first (replies come in order).
  var pending: [(what: String, at: Instant)] = []
  /// Set while the oldest pending request is older than `answerTimeout`.
  var silent = false
  var availability = ""
  /// Where the bridge remembers what it announced to Home Assistant, to withdraw it when the
  /// device id or a prefix changes: `announced.json` in systemd's STATE_DIRECTORY
  /// (/var/lib/pomodoro-mqtt); nil (remember nothing) without one.
  public var announcedFile: String? = MQTTBridge.defaultAnnouncedFile()

  /// `removing`: for `--remove`, a client of its own (`pomodoro-<device>-remove`, so that a
  /// running bridge is not dropped for it) without a last will.
  public init(config: DeviceConfig, log: Log, hostName: String, removing: Bool = false) throws {
    guard Self.available else { throw BridgeError(Self.notInstalled) }
    guard let socketPath = config.controlSocket else {
      throw BridgeError("control_socket is off in the config; the bridge talks to the device through it")
    }
    self.config = config
    self.log = log
    self.socketPath = socketPath
    let id = config.mqttDeviceId ?? Self.topicLevel(hostName)
    topics = BridgeTopics(config: config, deviceId: id)
    if let file = config.mqttPasswordFile { password = try Self.readPassword(file, log: log) }
    // libmosquitto says only "Invalid function arguments provided" for a CA file it cannot open.
    if let ca = config.mqttCafile { try Self.checkCafile(ca) }
    // One client id a desk: a second bridge for the same desk makes the broker drop the first
    // (MQTT 5 says so, and the dropped one stops), rather than both acting on every command.
    clientId = "pomodoro-\(id)" + (removing ? "-remove" : "")
    limiter = LogLimiter(log: log)
    guard let c = pomo_mqtt_new(clientId) else {
      throw BridgeError(Self.loadError ?? "cannot create an MQTT client")
    }
    client = c
    nextMisc = clock.now
    var rc = removing ? 0 : pomo_mqtt_will(client, topics.availability, "offline", 1)
    if rc == 0, let user = config.mqttUser { rc = pomo_mqtt_auth(client, user, password) }
    if rc == 0, let ca = config.mqttCafile { rc = pomo_mqtt_tls(client, ca) }
    guard rc == 0 else { throw BridgeError("MQTT client setup failed: \(String(cString: pomo_mqtt_strerror(rc)))") }
  }

  deinit { pomo_mqtt_free(client) }

  /// The user that deploy/install.sh makes for the bridge, who alone should read the password.
  static let user = "pomodoro-mqtt"

  /// The password file's first line. Missing or unreadable is an error; readable by its group
  /// or by everyone, a warning (the password is the broker's, and others on the Pi could use it).
  static func readPassword(_ file: String, log: Log) throws -> String {
    let keep = "sudo chown \(user) \(file) && sudo chmod 600 \(file)"
    let text: String?
    do {
      text = try Files.readText(file, limit: 4096)
    } catch {
      throw BridgeError("mqtt_password_file: \(error); the bridge's user \(user) must be able to read it: \(keep)")
    }
    guard let text else {
      throw BridgeError(
        "mqtt_password_file \(file) does not exist; create it for the bridge's user alone (sudo install -m 0600 -o \(user) /dev/null \(file)) and write the password in it"
      )
    }
    var info = stat()
    if stat(file, &info) == 0, info.st_mode & 0o044 != 0 {
      log.warning(
        "mqtt_password_file \(file) can be read by its group or by everyone (mode 0\(String(info.st_mode & 0o777, radix: 8))): keep it to the bridge's user: \(keep)"
      )
    }
    return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
  }

  /// The CA file must be a regular file the bridge can read.
  static func checkCafile(_ file: String) throws {
    let found: Bool
    do {
      found = try Files.read(file, limit: 1 << 24) != nil
    } catch {
      throw BridgeError(
        "mqtt_cafile: \(error); the bridge's user \(user) must be able to read it (sudo chmod 644 \(file))")
    }
    guard found else {
      throw BridgeError(
        "mqtt_cafile \(file) does not exist; give the CA certificate (PEM) that signed the broker's, or remove mqtt_cafile for a connection without TLS"
      )
    }
  }

  /// A host name as one topic level (no dots, slashes, wildcards).
  static func topicLevel(_ name: String) -> String {
    let first = name.split(separator: ".").first.map(String.init) ?? "pomodoro"
    let cleaned = String(first.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
    return cleaned.isEmpty ? "pomodoro" : cleaned
  }

  /// Runs until SIGTERM/SIGINT/SIGHUP (or `stop` returns true); returns the exit code.
  public func run(stop: () -> Bool = { false }) throws -> Int32 {
    // The device's own waiter: signals, the deadline on a timerfd, the two sockets in one poll.
    let waiter = try PollWaiter(clock: clock)
    log.info("bridging \(socketPath) and \(config.mqttHost):\(config.mqttPort) as \(topics.deviceId)")
    brokerRetryAt = clock.now
    deviceRetryAt = clock.now
    while !stop() && !takenOver {
      let now = clock.now
      limiter.tick(now)
      if let at = brokerRetryAt, at <= now { connectBroker() }
      if let at = deviceRetryAt, at <= now { connectDevice() }
      if let at = nextRefresh, at <= now { refresh(now) }
      let mqttFD = pomo_mqtt_socket(client)
      let deviceFD = device
      let reads = [mqttFD, deviceFD].filter { $0 >= 0 }
      var writes: [Int32] = []
      if mqttFD >= 0 && pomo_mqtt_want_write(client) == 1 { writes.append(mqttFD) }
      if deviceFD >= 0 && !deviceOutput.isEmpty { writes.append(deviceFD) }
      checkSilence(now)
      let answerDue = silent ? nil : pending.first.map { $0.at + answerTimeout }
      let due = [
        nextMisc, brokerRetryAt, deviceRetryAt, nextRefresh, answerDue, limiter.nextDeadline, now + seconds(1),
      ]
      .compactMap { $0 }.min()
      let wake = try waiter.wait(until: due, watching: reads, writable: writes)
      if !wake.signals.isEmpty { break }
      if mqttFD >= 0 {
        if wake.writable.contains(mqttFD) { _ = pomo_mqtt_loop_write(client) }
        if wake.readable.contains(mqttFD) { _ = pomo_mqtt_loop_read(client) }
      }
      if deviceFD >= 0 {
        if wake.writable.contains(deviceFD) { flushDevice() }
        if device >= 0, wake.readable.contains(deviceFD) { readDevice() }
      }
      if clock.now >= nextMisc {
        _ = pomo_mqtt_loop_misc(client)
        nextMisc = clock.now + seconds(1)
      }
      brokerEvents()
    }
    // Leaving on purpose: say offline (the will is only for deaths), then disconnect.
    if brokerUp {
      publish(topics.availability, "offline", retain: true)
      _ = pomo_mqtt_disconnect(client)
      for _ in 0..<10 where pomo_mqtt_want_write(client) == 1 { _ = pomo_mqtt_loop_write(client) }
    }
    if device >= 0 { close(device) }
    if takenOver {
      log.error(
        "another MQTT client connected to \(config.mqttHost):\(config.mqttPort) as \(clientId) and the broker dropped this one: "
          + "a second bridge for \(topics.deviceId)? Stopping, so that the two do not take turns (each desk needs its own mqtt_device_id)"
      )
      return ExitCode.config
    }
    log.info("stopped")
    return ExitCode.ok
  }

  // MARK: The broker

  func connectBroker() {
    brokerRetryAt = nil
    let rc = pomo_mqtt_connect(client, config.mqttHost, Int32(config.mqttPort), 30)
    if rc != 0 { brokerLost("cannot connect: \(String(cString: pomo_mqtt_strerror(rc)))") }
  }

  func brokerLost(_ why: String) {
    brokerUp = false
    let wait = brokerBackoff.next()
    brokerRetryAt = clock.now + wait
    log.once(
      "broker", .warning,
      "MQTT broker \(config.mqttHost):\(config.mqttPort): \(why); retrying with back-off (up to \(DurationText.format(brokerBackoff.last))), said once"
    )
  }

  func brokerEvents() {
    let connack = pomo_mqtt_take_connack(client)
    if connack == 0 {
      brokerUp = true
      connectedAt = clock.now
      brokerBackoff.reset()
      log.forget("broker")
      log.notice("connected to the MQTT broker \(config.mqttHost):\(config.mqttPort)")
      _ = pomo_mqtt_subscribe(client, topics.command, 1)
      // Its own availability too: what another client leaves there (junk retained, a stale
      // `online`) is put right at once, not at the next reconnect.
      _ = pomo_mqtt_subscribe(client, topics.availability, 1)
      withdrawAnnounced(keeping: topics)
      for (topic, payload) in topics.discovery { publish(topic, payload, retain: true) }
      remember(topics)
      if let lastState { publish(topics.state, lastState, retain: true) }
      availability = ""
      updateAvailability()
    } else if connack > 0 {
      brokerLost("refused the connection (CONNACK \(connack): bad credentials or not authorised?)")
    }
    let lost = pomo_mqtt_take_disconnect(client)
    if lost == 2 {
      brokerUp = false
      takenOver = true
      return
    }
    if lost == 1 || (brokerUp && pomo_mqtt_socket(client) < 0) {
      if let at = connectedAt, clock.now - at < Self.quickDrop { quickDrops += 1 } else { quickDrops = 0 }
      connectedAt = nil
      if quickDrops == 3 {
        log.warning(
          "the broker \(config.mqttHost):\(config.mqttPort) dropped this bridge's connection soon after accepting it, 3 times in a row: "
            + "another client with the client id \(clientId), a second bridge for \(topics.deviceId)? Each desk needs its own mqtt_device_id"
        )
      }
      brokerLost("connection lost")
    } else if !brokerUp && brokerRetryAt == nil && pomo_mqtt_socket(client) < 0 {
      brokerLost("connection failed")
    }
    var topic = [CChar](repeating: 0, count: 512)
    var payload = [CChar](repeating: 0, count: Self.maxCommand + 1)
    var length: Int32 = 0
    var retained: Int32 = 0
    while pomo_mqtt_next_message(client, &topic, topic.count, &payload, payload.count, &length, &retained) == 1 {
      let name = text(ofCString: topic)
      let now = clock.now
      if name == topics.availability {
        let said = String(decoding: payload.prefix(Int(min(length, 64))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if brokerUp, !availability.isEmpty, length > 64 || said != availability {
          limiter.say(
            "availability", .warning,
            "another client published '\(said.prefix(64))' on \(topics.availability); published '\(availability)' again",
            what: "foreign payloads on \(topics.availability)", at: now)
          publish(topics.availability, availability, retain: true)
        }
        continue
      }
      guard name == topics.command else { continue }
      guard length <= Self.maxCommand else {
        limiter.say(
          "oversized", .warning,
          "ignored a command payload of \(length) bytes on \(topics.command): over the \(Self.maxCommand / 1024) KiB limit (a command is a line like 'extend 5m')",
          what: "oversized command payloads on \(topics.command)", at: now)
        continue
      }
      // Every byte of it: a NUL inside makes it malformed, not shorter.
      let text = String(decoding: payload.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      // A retained command is the broker's copy of an old one: taken, it would replay at every
      // reconnect (a timer started again after a cancel). Its clearing (empty) says nothing.
      guard retained == 0 else {
        if length > 0 {
          log.once(
            "retained-command", .warning,
            "ignored a retained command '\(text.prefix(100))' on \(topics.command): the broker keeps it and would replay it at every reconnect; "
              + "publish commands without -r, and clear it with: mosquitto_pub -h \(config.mqttHost) -r -n -t \(topics.command)"
          )
        }
        continue
      }
      command(text)
    }
  }

  func publish(_ topic: String, _ payload: String, retain: Bool) {
    guard brokerUp else { return }
    let bytes = Array(payload.utf8)
    let rc = bytes.withUnsafeBytes {
      pomo_mqtt_publish(client, topic, $0.baseAddress, Int32(bytes.count), 1, retain ? 1 : 0)
    }
    if rc != 0 {
      log.once("publish", .warning, "publishing on \(topic) failed: \(String(cString: pomo_mqtt_strerror(rc)))")
    }
  }

  // MARK: What Home Assistant was told

  /// `$STATE_DIRECTORY/announced.json` (systemd's StateDirectory=, the first when it names several).
  static func defaultAnnouncedFile() -> String? {
    guard let dir = getenv("STATE_DIRECTORY").map({ String(cString: $0) }),
      let first = dir.split(separator: ":").first, !first.isEmpty
    else { return nil }
    return "\(first)/announced.json"
  }

  /// The device last announced (from `announcedFile`), if any and readable.
  func announced() -> BridgeTopics? {
    guard let file = announcedFile, let text = try? Files.readText(file, limit: 4096) else { return nil }
    return BridgeTopics(record: String(TextLines.trimmed(text)))
  }

  /// Withdraws the device announced before when it is not `current` (a new mqtt_device_id or
  /// prefix): empty retained payloads on its configs, state and availability.
  func withdrawAnnounced(keeping current: BridgeTopics?) {
    guard let old = announced(), old != current else { return }
    for topic in old.withdrawal { publish(topic, "", retain: true) }
    log.notice(
      "withdrew the Home Assistant device pomodoro_\(old.deviceId) (\(old.topicPrefix)/\(old.deviceId), announced before under \(old.discoveryPrefix)/): "
        + (current.map { "the bridge is \($0.deviceId) now" } ?? "removed"))
  }

  /// Remembers `topics` as announced (once; a failure is said once and changes nothing else).
  func remember(_ topics: BridgeTopics?) {
    guard let file = announcedFile else { return }
    do {
      if let topics {
        guard announced() != topics else { return }
        try Files.writeAtomically(file, Array((topics.record + "\n").utf8), permissions: 0o644)
      } else if unlink(file) != 0 && currentErrno() != ENOENT {
        throw SystemError("cannot remove \(file)")
      }
    } catch {
      log.once("announced", .warning, "cannot remember the announced device in \(file): \(error)")
    }
  }

  /// `pomodoro mqtt --remove`: connects, withdraws this desk's device (and one announced before
  /// under another id) from Home Assistant with empty retained payloads, disconnects. Gives up
  /// after `timeout`. Exit 0, or 75 (temporary failure) when the broker could not be reached.
  public func remove(timeout: Nanoseconds = seconds(10)) -> Int32 {
    let end = clock.now + timeout
    connectBroker()
    while clock.now < end && !brokerUp {
      if let at = brokerRetryAt, at <= clock.now { connectBroker() }
      step(until: min(end, brokerRetryAt ?? end))
      let connack = pomo_mqtt_take_connack(client)
      if connack == 0 {
        brokerUp = true
      } else if connack > 0 {
        brokerLost("refused the connection (CONNACK \(connack): bad credentials or not authorised?)")
      } else if brokerRetryAt == nil && pomo_mqtt_socket(client) < 0 {
        brokerLost("connection failed")
      }
    }
    guard brokerUp else {
      log.error(
        "could not reach the MQTT broker \(config.mqttHost):\(config.mqttPort) in \(DurationText.format(timeout)); nothing withdrawn"
      )
      return 75
    }
    withdrawAnnounced(keeping: topics)
    for topic in topics.withdrawal { publish(topic, "", retain: true) }
    remember(nil)
    // Every empty payload acknowledged before the DISCONNECT: the library sends only so many
    // QoS 1 messages at once and drops the rest it holds when the connection ends.
    while clock.now < end && pomo_mqtt_unacked(client) > 0 && pomo_mqtt_socket(client) >= 0 { step(until: end) }
    guard pomo_mqtt_unacked(client) == 0 else {
      log.error("the broker did not acknowledge the withdrawal in \(DurationText.format(timeout)); run --remove again")
      return 75
    }
    _ = pomo_mqtt_disconnect(client)
    while clock.now < end && pomo_mqtt_want_write(client) == 1 { step(until: end) }
    log.notice(
      "withdrew the Home Assistant device pomodoro_\(topics.deviceId) (\(topics.withdrawal.count) retained topics emptied)"
    )
    return ExitCode.ok
  }

  /// One pass of the broker's side alone, waiting at most until `until`.
  func step(until: Instant) {
    let fd = pomo_mqtt_socket(client)
    guard fd >= 0 else {
      usleep(UInt32(max(0, min(100_000, wholeMillisecondsRoundedUp(until - clock.now) * 1000))))
      return
    }
    var p = pollfd(fd: fd, events: Int16(POLLIN | (pomo_mqtt_want_write(client) == 1 ? POLLOUT : 0)), revents: 0)
    _ = poll(&p, 1, Int32(max(0, min(100, wholeMillisecondsRoundedUp(until - clock.now)))))
    if p.revents & Int16(POLLOUT) != 0 { _ = pomo_mqtt_loop_write(client) }
    if p.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { _ = pomo_mqtt_loop_read(client) }
    _ = pomo_mqtt_loop_misc(client)
  }

  func updateAvailability() {
    let now = device >= 0 && lastState != nil && !silent ? "online" : "offline"
    guard brokerUp, now != availability else { return }
    availability = now
    publish(topics.availability, now, retain: true)
  }

  /// A payload on the command topic: the ctl commands as text (`extend 5m`) or JSON.
  func command(_ payload: String) {
    let parsed = ControlCommand.parse(payload: payload)
    let now = clock.now
    switch parsed {
    case .failure(let refusal):
      limiter.say(
        "malformed", .warning,
        "ignored a malformed command on \(topics.command): '\(payload.prefix(100))' (\(refusal.message))",
        what: "malformed commands on \(topics.command)", at: now)
    case .success(.watch):
      limiter.say(
        "watch", .warning, "ignored 'watch' on \(topics.command): the bridge watches already",
        what: "'watch' commands on \(topics.command)", at: now)
    case .success(let command):
      guard device >= 0 else {
        limiter.say(
          "dropped", .warning, "the device is not connected; dropped the command '\(command.name)'",
          what: "commands dropped while the device was away", at: now)
        return
      }
      let line = Array((command.requestLine + "\n").utf8)
      guard deviceOutput.count + line.count <= Self.maxQueued else {
        limiter.say(
          "full", .warning,
          "the device does not read its socket (\(deviceOutput.count) bytes waiting); dropped the command '\(command.name)'",
          what: "commands dropped while the device did not read", at: now)
        return
      }
      deviceOutput += line
      pending.append((String(TextLines.trimmed(payload).prefix(100)), now))
      flushDevice()
    }
  }

  // MARK: The device

  /// Asks the running device for its status; the reply is published like a watch line.
  func refresh(_ now: Instant) {
    nextRefresh = now + refreshInterval
    // One question at a time: a device that has not answered the last is not asked again.
    guard device >= 0, pending.isEmpty else { return }
    deviceOutput += Array((ControlCommand.status.requestLine + "\n").utf8)
    pending.append(("status", now))
    flushDevice()
  }

  /// A device that leaves a request unanswered `answerTimeout` is unavailable until it answers.
  func checkSilence(_ now: Instant) {
    guard !silent, let first = pending.first, now - first.at >= answerTimeout else { return }
    silent = true
    log.warning(
      "the device at \(socketPath) has not answered '\(first.what)' for \(DurationText.format(answerTimeout)) (stopped or hung?); "
        + "unavailable in Home Assistant until it answers")
    updateAvailability()
  }

  func connectDevice() {
    deviceRetryAt = nil
    do {
      device = try UnixSocket.connect(socketPath)
    } catch {
      deviceLost("\(error)")
      return
    }
    UnixSocket.setNonBlocking(device)
    deviceInput = LineBuffer(limit: 1 << 16)
    deviceOutput = Array((ControlCommand.watch.requestLine + "\n").utf8)
    pending = [("watch", clock.now)]
    silent = false
    nextRefresh = clock.now + refreshInterval
    flushDevice()
    log.forget("device")
    log.notice("watching the device at \(socketPath)")
  }

  func deviceLost(_ why: String) {
    if device >= 0 { close(device) }
    device = -1
    deviceOutput = []
    pending = []
    silent = false
    nextRefresh = nil
    deviceRetryAt = clock.now + deviceBackoff.next()
    log.once(
      "device", .warning,
      "the device at \(socketPath): \(why); retrying with back-off (up to \(DurationText.format(deviceBackoff.last))), said once"
    )
    updateAvailability()
  }

  func flushDevice() {
    while device >= 0 && !deviceOutput.isEmpty {
      let n = deviceOutput.withUnsafeBytes { send(device, $0.baseAddress, $0.count, UnixSocket.sendFlags) }
      if n < 0 {
        if currentErrno() == EINTR { continue }
        if currentErrno() != EAGAIN { deviceLost("write failed") }
        return
      }
      deviceOutput.removeFirst(n)
    }
  }

  func readDevice() {
    var buffer = [UInt8](repeating: 0, count: 16384)
    let n = buffer.withUnsafeMutableBytes { recv(device, $0.baseAddress, $0.count, 0) }
    if n < 0 {
      if currentErrno() != EAGAIN && currentErrno() != EINTR { deviceLost("read failed") }
      return
    }
    if n == 0 {
      deviceLost("it closed the connection (stopped or restarting?)")
      return
    }
    deviceBackoff.reset()
    for case .line(let line) in deviceInput.feed(buffer[0..<n]) {
      // A reply (not a watch line) answers the oldest request.
      let answered = line.hasPrefix("{\"ok\"") && !pending.isEmpty ? pending.removeFirst().what : nil
      if silent {
        silent = false
        log.notice("the device at \(socketPath) answers again")
        updateAvailability()
      }
      switch ControlProtocol.decodeReply(line) {
      case .success(let fields)?:
        let payload = Self.statePayload(fields)
        if payload != lastState {
          lastState = payload
          publish(topics.state, payload, retain: true)
        }
        updateAvailability()
      case .failure(let refusal)?:
        limiter.say(
          "refused", .notice, "the device refused '\(answered ?? "?")' from \(topics.command): \(refusal.message)",
          what: "refusals by the device", at: clock.now)
      case nil:
        limiter.say(
          "unexpected", .warning, "unexpected line from the device: \(line.prefix(200))",
          what: "unexpected lines from the device", at: clock.now)
      }
    }
  }

  /// The state as published: the control socket's state fields, in their order.
  static func statePayload(_ fields: [String: JSONValue]) -> String {
    FlatJSON.encode(StateFields.ordered(fields))
  }
}
