/// A named set of timer settings over the base ones (the config's `profile NAME = focus 50m,
/// short 10m`): what it leaves out is the base's (`EngineSettings.applying`). Its name is made of
/// a desk id's letters (`RoomNames`), at most `longestName` of them.
public struct Profile: Equatable, Sendable {
  /// The most profiles a config defines.
  public static let most = 8
  /// The longest name, in characters.
  public static let longestName = 20
  /// What the desk, the stats, the page and Home Assistant call the base settings: never a
  /// profile's name (names have no parentheses).
  public static let baseName = "(base)"
  /// The name's rule, as messages say it.
  public static let nameRule = "1 to \(longestName) of \(RoomNames.letters)"

  /// Whether `text` is a profile's name.
  public static func isName(_ text: String) -> Bool { RoomNames.isLevel(text, max: longestName) }

  public let name: String
  /// The presets it sets (focus, short break, long break).
  public var presets: [Mode: Nanoseconds]
  /// A long break after every Nth focus, nil: the base's.
  public var longBreakEvery: Int?
  /// A flow's break ratio, nil: the base's.
  public var flowBreakRatio: Int?

  /// A profile named `name` (nil when the name breaks the rule) that sets nothing yet.
  public init?(name: String, presets: [Mode: Nanoseconds] = [:], longBreakEvery: Int? = nil, flowBreakRatio: Int? = nil)
  {
    guard Profile.isName(name) else { return nil }
    self.name = name
    self.presets = presets
    self.longBreakEvery = longBreakEvery
    self.flowBreakRatio = flowBreakRatio
  }
}

extension EngineSettings {
  /// The profile named `name` among `profiles`; nil for nil, or a name none has.
  public func profile(named name: String?) -> Profile? {
    guard let name else { return nil }
    return profiles.first { $0.name == name }
  }

  /// These settings with `profile` over them: its presets, cycle and ratio where it sets them,
  /// the rest as they are. Nil: these settings.
  public func applying(_ profile: Profile?) -> EngineSettings {
    guard let profile else { return self }
    var settings = self
    settings.presets.merge(profile.presets) { $1 }
    if let every = profile.longBreakEvery { settings.longBreakEvery = max(1, every) }
    if let ratio = profile.flowBreakRatio { settings.flowBreakRatio = max(1, ratio) }
    return settings
  }
}
