import PomodoroCore
import PomodoroSystem

/// The config's profiles (issue 48): `profile NAME = focus 50m, short 10m, long 30m, every 3`
/// defines one (any of `settings`, each once, separated by commas; each value as its base key
/// takes it), `profile = NAME` chooses the one in use at start (empty: the base). The one reading
/// and writing of those lines: the config file, the overlay and `ctl config set`.
public enum ProfileLines {
  /// The key that chooses a profile, and the word a profile's line starts with.
  public static let key = "profile"
  /// The family's row in the key table: `profile NAME`.
  public static let familyName = "\(key) NAME"
  /// The deploy/pomodoro.conf example's profile.
  static let exampleName = "deep"
  static let example = "focus 50m, short 10m, long 30m, every 3"

  /// A profile's setting: its word in the line, the base key whose values it takes, and where it
  /// goes in the profile from a config that key was read into.
  struct Setting: Sendable {
    let word: String
    let base: String
    let take: @Sendable (inout Profile, DeviceConfig) -> Void
    let put: @Sendable (Profile, inout DeviceConfig) -> Bool
  }

  static func preset(_ word: String, _ mode: Mode) -> Setting {
    Setting(word: word, base: mode.configKey ?? word) { profile, config in
      profile.presets[mode] = config.engine.presets[mode]
    } put: { profile, config in
      guard let value = profile.presets[mode] else { return false }
      config.engine.presets[mode] = value
      return true
    }
  }

  static let settings: [Setting] = [
    preset("focus", .focus), preset("short", .shortBreak), preset("long", .longBreak),
    Setting(word: "every", base: ConfigKey.longBreakEvery) { profile, config in
      profile.longBreakEvery = config.engine.longBreakEvery
    } put: { profile, config in
      guard let value = profile.longBreakEvery else { return false }
      config.engine.longBreakEvery = value
      return true
    },
    Setting(word: "flow_ratio", base: ConfigKey.flowBreakRatio) { profile, config in
      profile.flowBreakRatio = config.engine.flowBreakRatio
    } put: { profile, config in
      guard let value = profile.flowBreakRatio else { return false }
      config.engine.flowBreakRatio = value
      return true
    },
  ]

  static var words: String { settings.map(\.word).joined(separator: ", ") }

  /// What a profile's line takes, for messages and the key table.
  static var expected: String {
    "any of \(words), each once, separated by commas, each as its key takes it ("
      + settings.map { "\($0.word): \($0.base)" }.joined(separator: ", ") + "), like \(example)"
  }

  /// The profile's name when `key` is a profile's line's key (`profile NAME`, the name as
  /// written, maybe a bad one); nil for any other key.
  public static func member(_ key: String) -> String? {
    guard key.hasPrefix(self.key), key.count > self.key.count else { return nil }
    let rest = key.dropFirst(self.key.count)
    guard let first = rest.first, first == " " || first == "\t" else { return nil }
    return String(TextLines.trimmed(rest))
  }

  /// `key` as the table names it: a profile's line's key with one space (`profile  deep`:
  /// `profile deep`), any other as it is.
  static func normalized(_ key: String) -> String { member(key).map { "\(self.key) \($0)" } ?? key }

  /// The profile `name` read from a line's `value`, or what is wrong with it.
  static func parse(name: String, value: String) -> Result<Profile, ConfigRefusal> {
    let shown = "'\(key) \(TextLines.visible(name))'"
    guard var profile = Profile(name: name) else {
      return .failure(
        ConfigRefusal(
          "\(shown): a profile's name is \(Profile.nameRule), got '\(TextLines.visible(name))'; rename it"))
    }
    var seen: Set<String> = []
    let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { TextLines.trimmed($0) }
    guard !(parts.count == 1 && parts[0].isEmpty) else {
      return .failure(ConfigRefusal("\(shown) has no value; expected \(expected)"))
    }
    for part in parts {
      let pieces = part.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard pieces.count == 2 else {
        return .failure(
          ConfigRefusal(
            "\(shown): '\(TextLines.visible(String(part)))' is not a setting and its value; expected \(expected)"))
      }
      let word = String(pieces[0])
      let text = String(pieces[1])
      guard let setting = settings.first(where: { $0.word == word }) else {
        return .failure(
          ConfigRefusal("\(shown): no setting '\(TextLines.visible(word))' in a profile; a profile takes \(words)"))
      }
      guard seen.insert(word).inserted else {
        return .failure(ConfigRefusal("\(shown) sets '\(word)' twice; set it once"))
      }
      var scratch = DeviceConfig()
      if let problem = ConfigParser.read(setting.base, text, into: &scratch) {
        return .failure(ConfigRefusal("\(shown), '\(word)' (as '\(setting.base)' takes it): \(problem)"))
      }
      setting.take(&profile, scratch)
    }
    return .success(profile)
  }

  /// A profile's line's value, as a config writes it (parsed back by `parse`).
  static func format(_ profile: Profile) -> String {
    settings.compactMap { setting in
      var scratch = DeviceConfig()
      guard setting.put(profile, &scratch), let row = ConfigKey.named[setting.base], let value = row.value(scratch)
      else { return nil }
      return "\(setting.word) \(value)"
    }
    .joined(separator: ", ")
  }

  /// Reads the line `profile NAME = value` into `config`: the profile defined (or redefined: the
  /// overlay's over the file's), or what is wrong; a profile past `Profile.most` is refused.
  static func read(_ name: String, _ value: String, into config: inout DeviceConfig) -> String? {
    switch parse(name: name, value: value) {
    case .failure(let refusal): return refusal.message
    case .success(let profile):
      if let at = config.engine.profiles.firstIndex(where: { $0.name == profile.name }) {
        config.engine.profiles[at] = profile
        return nil
      }
      guard config.engine.profiles.count < Profile.most else {
        return "'\(key) \(name)' would be profile \(Profile.most + 1); at most \(Profile.most) profiles, "
          + "remove one (\(config.engine.profiles.map(\.name).joined(separator: ", ")))"
      }
      config.engine.profiles.append(profile)
      return nil
    }
  }

  /// What is wrong with the profile `config` chooses (`profile = NAME` naming none defined); nil
  /// when it is defined or none is chosen.
  public static func problem(_ config: DeviceConfig) -> String? {
    guard let name = config.engine.profile, config.engine.profile(named: name) == nil else { return nil }
    let defined = config.engine.profiles.map(\.name)
    let known = defined.isEmpty ? "no profile is defined" : "the profiles are \(defined.joined(separator: ", "))"
    return "'\(key)' names '\(TextLines.visible(name))', which no '\(key) \(TextLines.visible(name)) = ...' line "
      + "defines (\(known)); define it, like \(key) \(TextLines.visible(name)) = \(example), or name another"
  }

  /// The `profile` key's values: a profile's name, or empty (the base).
  static var choice: ConfigCodec<String?> {
    var codec = ConfigCodec<String?>(
      expected: "a profile's name (\(Profile.nameRule)) defined by a '\(key) NAME = ...' line, or empty for none"
    ) { v in
      if v.isEmpty { return .some(nil) }
      return Profile.isName(v) ? .some(v) : nil
    } format: {
      $0
    }
    codec.takesEmpty = true
    return codec
  }

  /// The `profile NAME` row's values: the profiles (a line's value reads as the example's profile).
  static var family: ConfigCodec<[Profile]> {
    ConfigCodec<[Profile]>(expected: expected) { v in
      var config = DeviceConfig()
      return read(exampleName, v, into: &config) == nil ? config.engine.profiles : nil
    } format: {
      $0.isEmpty ? nil : $0.map { "\($0.name): \(format($0))" }.joined(separator: "; ")
    } problem: { v in
      var config = DeviceConfig()
      return read(exampleName, v, into: &config)
    }
  }
}
