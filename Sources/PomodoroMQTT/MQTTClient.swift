import CPomodoroMQTT
import PomodoroSystem

/// A message the broker delivered: its topic, as much of its payload as the bridge takes (at
/// most `limit + 1` bytes, so an oversized one shows), its full length, and whether the broker
/// kept it (a retained message, sent at subscribe), and the MQTT 5 Message Expiry Interval it
/// came with: what the broker left of the publisher's (nil when it had none).
public struct MQTTMessage: Equatable, Sendable {
  public var topic: String
  public var payload: [UInt8]
  public var length: Int
  public var retained: Bool
  /// Seconds: the publisher's expiry interval less the time the message waited in the broker.
  public var expiryLeft: Int?

  public init(topic: String, payload: [UInt8], length: Int? = nil, retained: Bool = false, expiryLeft: Int? = nil) {
    self.topic = topic
    self.payload = payload
    self.length = length ?? payload.count
    self.retained = retained
    self.expiryLeft = expiryLeft
  }

  /// The payload as text (every byte of what was kept: a NUL inside stays).
  public var text: String { String(decoding: payload, as: UTF8.self) }
}

/// How a connection ended.
public enum MQTTDrop: Equatable, Sendable {
  /// Lost: the broker went away, the network, a keep-alive missed.
  case lost
  /// The broker dropped it because another client connected with the same client id (MQTT 5's
  /// "session taken over", reason 0x8E).
  case takenOver
}

/// An MQTT client for one poll loop: what the broker session needs of libmosquitto, and all a
/// test double has to provide. Calls never block; return codes are the library's (0: done).
public protocol MQTTClient: AnyObject {
  /// Starts connecting (the first time) or reconnecting.
  func connect(host: String, port: Int, keepalive: Int) -> Int32
  /// The socket to poll, or -1.
  var socket: Int32 { get }
  var wantsWrite: Bool { get }
  func loopRead()
  func loopWrite()
  func loopMisc()
  /// Publishes (QoS 1); `expiry` (seconds) adds MQTT 5's Message Expiry Interval.
  func publish(_ topic: String, _ payload: [UInt8], retain: Bool, expiry: Int?) -> Int32
  func subscribe(_ topic: String) -> Int32
  func disconnect()
  /// QoS 1 messages published and not acknowledged yet.
  var unacked: Int { get }
  /// The CONNACK code of a connection made since the last call (0 accepted), nil when none.
  func takeConnack() -> Int32?
  /// How the connection ended since the last call, nil when it did not.
  func takeDrop() -> MQTTDrop?
  /// The oldest message received and not taken yet, its payload cut at `limit + 1` bytes.
  func nextMessage(limit: Int) -> MQTTMessage?
  /// Words for a return code.
  func describe(_ rc: Int32) -> String
}

extension MQTTClient {
  /// Publishes (QoS 1) without an expiry.
  public func publish(_ topic: String, _ payload: [UInt8], retain: Bool) -> Int32 {
    publish(topic, payload, retain: retain, expiry: nil)
  }
}

/// The MQTT client of `pomodoro mqtt`: libmosquitto through its one shim, MQTT 5, QoS 1.
public final class Mosquitto: MQTTClient {
  public static var available: Bool { pomo_mqtt_available() == 1 }
  /// Why libmosquitto (compiled in) cannot be loaded now, with the fix; nil once it is loaded.
  public static var loadError: String? { pomo_mqtt_load().map { String(cString: $0) } }

  let client: OpaquePointer

  /// The largest MQTT packet the bridge asks its broker to send it (MQTT 5's Maximum Packet
  /// Size): a command is at most 4 KiB, so 16 KiB leaves room for topic and properties. The
  /// broker drops larger messages for the bridge; it never reads or copies them.
  public static let maxPacket = 16 * 1024

  /// A client `id` with its last will (none when `will` is nil), credentials and TLS; of each
  /// payload it keeps at most `keep` bytes; the broker sends it no packet over `maxPacket`.
  public init(
    id: String, will: (topic: String, payload: String)?, user: String?, password: String?, cafile: String?, keep: Int,
    maxPacket: Int = Mosquitto.maxPacket
  ) throws {
    guard let c = pomo_mqtt_new(id, Int32(maxPacket), Int32(keep)) else {
      throw BridgeError(Self.loadError ?? "cannot create an MQTT client")
    }
    client = c
    var rc: Int32 = 0
    if let will { rc = pomo_mqtt_will(client, will.topic, will.payload, 1) }
    if rc == 0, let user { rc = pomo_mqtt_auth(client, user, password) }
    if rc == 0, let cafile { rc = pomo_mqtt_tls(client, cafile) }
    guard rc == 0 else { throw BridgeError("MQTT client setup failed: \(describe(rc))") }
  }

  deinit { pomo_mqtt_free(client) }

  public func connect(host: String, port: Int, keepalive: Int) -> Int32 {
    pomo_mqtt_connect(client, host, Int32(port), Int32(keepalive))
  }
  public var socket: Int32 { pomo_mqtt_socket(client) }
  public var wantsWrite: Bool { pomo_mqtt_want_write(client) == 1 }
  public func loopRead() { _ = pomo_mqtt_loop_read(client) }
  public func loopWrite() { _ = pomo_mqtt_loop_write(client) }
  public func loopMisc() { _ = pomo_mqtt_loop_misc(client) }

  public func publish(_ topic: String, _ payload: [UInt8], retain: Bool, expiry: Int?) -> Int32 {
    payload.withUnsafeBytes {
      pomo_mqtt_publish(client, topic, $0.baseAddress, Int32($0.count), 1, retain ? 1 : 0, expiry ?? 0)
    }
  }

  public func subscribe(_ topic: String) -> Int32 { pomo_mqtt_subscribe(client, topic, 1) }
  public func disconnect() { _ = pomo_mqtt_disconnect(client) }
  public var unacked: Int { Int(pomo_mqtt_unacked(client)) }

  public func takeConnack() -> Int32? {
    let rc = pomo_mqtt_take_connack(client)
    return rc < 0 ? nil : rc
  }

  public func takeDrop() -> MQTTDrop? {
    switch pomo_mqtt_take_disconnect(client) {
    case 1: return .lost
    case 2: return .takenOver
    default: return nil
    }
  }

  public func nextMessage(limit: Int) -> MQTTMessage? {
    var topic = [CChar](repeating: 0, count: 512)
    var payload = [CChar](repeating: 0, count: limit + 2)
    var length: Int32 = 0
    var retained: Int32 = 0
    var expiryLeft = -1
    guard
      pomo_mqtt_next_message(
        client, &topic, topic.count, &payload, payload.count, &length, &retained, &expiryLeft) == 1
    else { return nil }
    let kept = payload.prefix(min(Int(length), limit + 1)).map { UInt8(bitPattern: $0) }
    return MQTTMessage(
      topic: text(ofCString: topic), payload: kept, length: Int(length), retained: retained != 0,
      expiryLeft: expiryLeft < 0 ? nil : expiryLeft)
  }

  public func describe(_ rc: Int32) -> String { String(cString: pomo_mqtt_strerror(rc)) }
}
