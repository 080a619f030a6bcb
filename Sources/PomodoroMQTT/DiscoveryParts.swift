import PomodoroSystem

/// What of the device's state its Home Assistant discovery follows: the fields entities need
/// (`HomeAssistantEntity.needs`: `present`, and `profiles` while it names one) and the profiles
/// the config defines (the profile select's options). The bridge announces the entities that need
/// a part again when these change: a new profile list is a new retained config, none withdraws
/// the select.
public struct DiscoveryParts: Equatable, Sendable {
  public var fields: Set<String>
  public var profiles: [String]

  public init(fields: Set<String> = [], profiles: [String] = []) {
    self.fields = fields
    self.profiles = profiles
  }

  /// The parts of a state (`ctl status --json`'s fields): an empty list counts as no field.
  public init(state: [String: JSONValue]) {
    let profiles = state["profiles"]?.list?.compactMap(\.string) ?? []
    let had = state.filter { $0.value.list.map { !$0.isEmpty } ?? true }.keys
    self.init(fields: Set(HomeAssistant.entities.compactMap(\.needs)).intersection(had), profiles: profiles)
  }
}
