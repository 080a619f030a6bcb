import PomodoroCore
import PomodoroSystem

/// The bridge's session with its broker, over any `MQTTClient`: connecting, reconnecting with
/// back-off, subscribing at each connection, publishing, handing over what arrives. A
/// `LoopSource`: it never blocks.
///
/// Another client with this client id (a second desk left as `raspberrypi`) makes the broker
/// drop one of the two at each connection: said by MQTT 5 brokers ("session taken over"), seen
/// here as three drops in a row each within `quickDrop` of being accepted. Either way the
/// session backs off from 5 s to 5 minutes with jitter, says so once with the fix, and keeps
/// doing so until a connection has held for `collisionQuiet`: never a once-a-second tug of war,
/// never a stop.
public final class BrokerSession: LoopSource {
  static let quickDrop = seconds(10)
  static let collisionQuiet = seconds(600)

  let client: MQTTClient
  let host: String
  let port: Int
  let clientId: String
  let deviceId: String
  let clock: MonotonicClock
  let log: Log
  /// Subscribed again at each connection.
  let subscriptions: [String]
  /// The longest payload taken; a message past it keeps only `limit + 1` bytes.
  let limit: Int
  /// Just connected (and subscribed): publish what the broker should hold.
  public var onConnected: () -> Void = {}
  public var onMessage: (MQTTMessage) -> Void = { _ in }
  /// A random part added to a collision's wait, at most a quarter of it.
  var jitter: (Nanoseconds) -> Nanoseconds = { Nanoseconds.random(in: 0...max(0, $0 / 4)) }

  public private(set) var up = false
  var retryAt: Instant?
  var backoff = Backoff(first: ms(500), last: seconds(30))
  var collisions = Backoff(first: seconds(5), last: seconds(300))
  var connectedAt: Instant?
  var quickDrops = 0
  var nextMisc: Instant

  public init(
    client: MQTTClient, host: String, port: Int, clientId: String, deviceId: String, subscriptions: [String],
    limit: Int, clock: MonotonicClock, log: Log
  ) {
    self.client = client
    self.host = host
    self.port = port
    self.clientId = clientId
    self.deviceId = deviceId
    self.subscriptions = subscriptions
    self.limit = limit
    self.clock = clock
    self.log = log
    nextMisc = clock.now
    retryAt = clock.now
  }

  /// In a collision episode: the broker keeps giving this connection to another client.
  public var colliding: Bool { collisions.current != nil }

  /// Publishes (QoS 1) while connected, with MQTT 5's Message Expiry Interval when `expiry`
  /// (seconds) is given; a failure is said once.
  public func publish(_ topic: String, _ payload: String, retain: Bool, expiry: Int? = nil) {
    guard up else { return }
    let rc = client.publish(topic, Array(payload.utf8), retain: retain, expiry: expiry)
    if rc != 0 { log.once("publish", .warning, "publishing on \(topic) failed: \(client.describe(rc))") }
  }

  /// Ends the session on purpose.
  /// Subscribes to `topic` again (it must be one of `subscriptions`): the broker sends its
  /// retained messages anew.
  public func resubscribe(_ topic: String) {
    guard up, subscriptions.contains(topic) else { return }
    _ = client.subscribe(topic)
  }

  public func disconnect() {
    client.disconnect()
    up = false
  }

  // MARK: LoopSource

  public var readDescriptors: [Int32] { client.socket >= 0 ? [client.socket] : [] }
  public var writeDescriptors: [Int32] { client.socket >= 0 && client.wantsWrite ? [client.socket] : [] }
  public var deadline: Instant? { [nextMisc, retryAt].compactMap { $0 }.min() }

  public func handle(_ wake: Wake) {
    if let at = retryAt, at <= clock.now { connect() }
    let fd = client.socket
    if fd >= 0 {
      if wake.writable.contains(fd) { client.loopWrite() }
      if wake.readable.contains(fd) { client.loopRead() }
    }
    if clock.now >= nextMisc {
      client.loopMisc()
      nextMisc = clock.now + seconds(1)
    }
    events()
  }

  // MARK: Inside

  func connect() {
    retryAt = nil
    let rc = client.connect(host: host, port: port, keepalive: 30)
    if rc != 0 { lost("cannot connect: \(client.describe(rc))") }
  }

  func events() {
    let now = clock.now
    if let connack = client.takeConnack() {
      if connack == 0 {
        up = true
        connectedAt = now
        backoff.reset()
        log.forget("broker")
        log.notice("connected to the MQTT broker \(host):\(port)")
        for topic in subscriptions { _ = client.subscribe(topic) }
        onConnected()
      } else {
        lost("refused the connection (CONNACK \(connack): bad credentials or not authorised?)")
      }
    }
    if up, let at = connectedAt, now - at >= Self.collisionQuiet, colliding || quickDrops > 0 {
      collisions.reset()
      quickDrops = 0
      log.forget("collision")
    }
    let drop = client.takeDrop()
    if drop == .takenOver {
      collided("the broker gave this connection to another client with the client id \(clientId)")
    } else if drop == .lost || (up && client.socket < 0) {
      if let at = connectedAt, now - at < Self.quickDrop { quickDrops += 1 } else { quickDrops = 0 }
      if quickDrops >= 3 || colliding {
        collided(
          "the broker dropped this connection soon after accepting it, \(quickDrops) times in a row: another client with the client id \(clientId)"
        )
      } else {
        lost("connection lost")
      }
    } else if !up && retryAt == nil && client.socket < 0 {
      lost("connection failed")
    }
    while let message = client.nextMessage(limit: limit) { onMessage(message) }
  }

  func lost(_ why: String) {
    up = false
    connectedAt = nil
    retryAt = clock.now + backoff.next()
    log.once(
      "broker", .warning,
      "MQTT broker \(host):\(port): \(why); retrying with back-off (up to \(DurationText.format(backoff.last))), said once"
    )
  }

  /// Another client with this id: wait longer each time, with jitter, so that the two do not
  /// take turns every second; said once an episode.
  func collided(_ why: String) {
    up = false
    connectedAt = nil
    let wait = collisions.next()
    retryAt = clock.now + wait + jitter(wait)
    log.once(
      "collision", .warning,
      "\(why), a second bridge for \(deviceId)? Each desk needs its own mqtt_device_id (set it in the config and restart: sudo systemctl restart pomodoro-mqtt). "
        + "Reconnecting with back-off from \(DurationText.format(collisions.first)) up to \(DurationText.format(collisions.last)) while it lasts; said once"
    )
  }
}
