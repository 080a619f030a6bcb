import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

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
  /// their origin. An entity that `needs` a field is announced when `fields` (the device's state
  /// fields) has it, withdrawn (an empty payload) when it has not, and left out while the state
  /// is not known (nil); `optional` gives those entities alone. The profile select's options are
  /// `profiles` and the base.
  public func discovery(_ parts: DiscoveryParts?, optional: Bool = false) -> [(topic: String, payload: String)] {
    discovery(fields: parts?.fields, profiles: parts?.profiles ?? [], optional: optional)
  }

  public func discovery(fields: Set<String>?, profiles: [String] = [], optional: Bool = false)
    -> [(topic: String, payload: String)]
  {
    let node = "pomodoro_\(deviceId)"
    let device = DiscoveryValue.object([
      .init("identifiers", .list([node])), .init("name", .text("Pomodoro \(deviceId)")),
      .init("manufacturer", .text("Pomodoro")), .init("model", .text("Desk timer")),
      .init("sw_version", .text(Release.version)),
    ])
    let origin = DiscoveryValue.object([
      .init("name", .text("pomodoro mqtt")), .init("sw_version", .text(Release.version)),
    ])
    return HomeAssistant.entities.compactMap { e in
      if let needed = e.needs {
        guard let fields else { return nil }
        if !fields.contains(needed) { return (topic: configTopic(e), payload: "") }
      } else if optional {
        return nil
      }
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
      pairs += e.keys
      if e.profileOptions { pairs.append(.init("options", .list(HomeAssistant.profileOptions(profiles)))) }
      pairs += [.init("device", device), .init("origin", origin)]
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

  /// A host name as one topic level (no dots, slashes, wildcards); a host named as a level the
  /// rooms' topics take (`room`) gets `-desk` after it.
  public static func topicLevel(_ name: String) -> String {
    let first = name.split(separator: ".").first.map(String.init) ?? "pomodoro"
    let cleaned = String(first.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
    if RoomNames.reserved.contains(cleaned) { return cleaned + "-desk" }
    return cleaned.isEmpty ? "pomodoro" : cleaned
  }

  /// The state as published: the control socket's state fields, in their order.
  static func statePayload(_ fields: [String: JSONValue]) -> String {
    FlatJSON.encode(StateFields.ordered(fields))
  }
}
