import PomodoroCore
import PomodoroSystem

/// The config as the device runs it, in three layers: the defaults; the config file over them
/// (/etc/pomodoro/pomodoro.conf, which the device never writes); and over both the overlay that
/// `pomodoro ctl config set` and the page write (`settings.conf` in the state directory). A key
/// the overlay holds wins; `ctl config reset KEY` takes it out, and the file's value (or the
/// default) is back. Only settable keys (`ConfigKey.settable`) are ever in the overlay. Pure: the
/// device reads and writes the overlay's file (`SettingsStore`).
public struct ConfigLayers: Equatable, Sendable {
  /// The overlay's name in the state directory.
  public static let overlayName = "settings.conf"

  /// Where a key's value comes from.
  public enum Origin: Equatable, Sendable {
    case defaultValue
    /// The config file's line.
    case file(line: Int)
    /// The overlay: `ctl config set` or the page.
    case set
  }

  /// The config file, as messages and "from" name it.
  public var file: String
  /// The defaults with the file's keys over them.
  public var fileConfig: DeviceConfig
  /// The line that sets each key in the file (a key it does not set is absent).
  public var fileLines: [String: Int]
  /// The settable keys set over the file, by name, each value as a config writes it.
  public private(set) var overlay: [String: String]

  public init(
    file: String = DeviceConfig.defaultPath, fileConfig: DeviceConfig = DeviceConfig(), fileLines: [String: Int] = [:],
    overlay: [String: String] = [:]
  ) {
    self.file = file
    self.fileConfig = fileConfig
    self.fileLines = fileLines
    self.overlay = overlay.filter { ConfigKey.row($0.key)?.settable == true }
  }

  /// The file's config with the overlay's keys over it.
  public var config: DeviceConfig {
    var config = fileConfig
    for key in ConfigKey.settableKeys {
      if key.isFamily {
        for (name, value) in overlay.sorted(by: { $0.key < $1.key }) where ProfileLines.member(name) != nil {
          _ = ConfigParser.read(name, value, into: &config)
        }
      } else if let value = overlay[key.name] {
        _ = key.read(&config, value)
      }
    }
    return config
  }

  /// The same layers with another overlay (one read again from its file).
  public func with(overlay: [String: String]) -> ConfigLayers {
    ConfigLayers(file: file, fileConfig: fileConfig, fileLines: fileLines, overlay: overlay)
  }

  public func origin(of name: String) -> Origin {
    if overlay[name] != nil { return .set }
    if let line = fileLines[name] { return .file(line: line) }
    return .defaultValue
  }

  /// `default`, `FILE:LINE` or `set`: an item's "from".
  public func from(_ name: String) -> String {
    switch origin(of: name) {
    case .defaultValue: return "default"
    case .file(let line): return "\(file):\(line)"
    case .set: return "set"
    }
  }

  /// A settable key as `ctl config` and the page list it (PomodoroControl renders its item line).
  public func item(_ key: ConfigKey) -> ConfigItem {
    ConfigItem(
      key: key.name, value: key.value(config) ?? "unset", from: from(key.name), about: key.summary,
      accepts: key.expected)
  }

  /// Every settable key, in the table's order; a family's members each (its row while it has none).
  public var items: [ConfigItem] {
    let config = config
    return ConfigKey.settableKeys.flatMap { key -> [ConfigItem] in
      let members = key.isFamily ? key.lines(config) : []
      guard !members.isEmpty else { return [item(key)] }
      return members.map {
        ConfigItem(key: $0.key, value: $0.value, from: from($0.key), about: key.summary, accepts: key.expected)
      }
    }
  }

  /// The settable key named `name`; else why not: an unknown key gets the config file's message,
  /// a key read only at start or the bridge's says where it is set and the restart that applies it.
  public func settableKey(_ name: String) -> Result<ConfigKey, ConfigRefusal> {
    guard let key = ConfigKey.row(name) else { return .failure(.init(ConfigParser.unknownKey(name))) }
    let whose: String
    switch key.applies {
    case .live: return .success(key)
    case .restart: whose = "is read only when the device starts"
    case .restartBoth: whose = "is read only when the device and the MQTT bridge start"
    case .bridge, .web, .hooks: whose = "is \(key.applies.owner ?? "another process's")"
    }
    return .failure(.init("'\(name)' \(whose): set it in \(file), then \(key.applies.command ?? "") applies it"))
  }

  /// The layers with `name` set to `value` over the file, and its key; else the config file's
  /// message for what is wrong (naming the key and what it takes).
  public func setting(_ name: String, to value: String) -> Result<(ConfigLayers, ConfigKey), ConfigRefusal> {
    settableKey(name).flatMap { key in
      var probe = config
      if let problem = ConfigParser.read(name, String(TextLines.trimmed(value)), into: &probe)
        ?? ProfileLines.problem(probe)
      {
        return .failure(.init(problem))
      }
      var next = self
      next.overlay[name] = key.value(of: name, in: probe) ?? String(TextLines.trimmed(value))
      return .success((next, key))
    }
  }

  /// The layers with `name` out of the overlay (the file's value, or the default, back), and its key.
  public func resetting(_ name: String) -> Result<(ConfigLayers, ConfigKey), ConfigRefusal> {
    settableKey(name).map { key in
      var next = self
      next.overlay[name] = nil
      return (next, key)
    }
  }

  /// The overlay as its file holds it: a header saying what it is, then a `key = value` line a
  /// key, in the table's order (parsed back by `readOverlay`, and by ConfigParser).
  public var overlayText: String {
    """
    # Written by the pomodoro device: the settings changed with `pomodoro ctl config set` or the
    # page. Each line here wins over \(file), which the device never rewrites.
    # `pomodoro ctl config reset KEY` takes a line out (the file's value is back); deleting this
    # file, then SIGHUP (sudo systemctl kill -s HUP pomodoro), takes them all out.

    """
      + ConfigKey.settableKeys.flatMap { key in
        overlay.keys.filter { ConfigKey.row($0)?.name == key.name }.sorted().map { "\($0) = \(overlay[$0] ?? "")\n" }
      }.joined()
  }

  /// An overlay's text (read from `path`): the values of its good lines, and a problem naming
  /// PATH:LINE for each bad one, which is ignored (the rest stands): a line the config file would
  /// refuse, a key set twice (the first stands), or a key that is not settable.
  public func readOverlay(_ text: String, path: String) -> (overlay: [String: String], problems: [ConfigError]) {
    var values: [String: String] = [:]
    var seen: [String: Int] = [:]
    var problems: [ConfigError] = []
    for (index, rawLine) in TextLines.split(text).enumerated() {
      let number = index + 1
      func problem(_ message: String) { problems.append(ConfigError(file: path, line: number, message: message)) }
      let key: String
      let value: String
      do {
        guard let pair = try ConfigParser.keyValue(rawLine, lineNumber: number, file: path) else { continue }
        (key, value) = pair
      } catch let error as ConfigError {
        problems.append(error)
        continue
      } catch {
        continue
      }
      if let first = seen[key] {
        problem(ConfigParser.setTwice(key, first: first))
        continue
      }
      seen[key] = number
      switch setting(key, to: value) {
      case .success((let next, _)): values[key] = next.overlay[key]
      case .failure(let refusal): problem(refusal.message)
      }
    }
    return (values, problems)
  }
}

/// A settable key as listed: its value, where that comes from (`default`, `FILE:LINE`, `set`),
/// what it does and what it accepts.
public struct ConfigItem: Equatable, Sendable {
  public var key: String
  public var value: String
  public var from: String
  public var about: String
  public var accepts: String
}

/// Why a key cannot be set or reset: the config file's message, naming the key and what it takes.
public struct ConfigRefusal: Error, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
