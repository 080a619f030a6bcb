import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// Reads the `key = value` config text. Strict: an unknown key, a bad value or a key given
/// twice is an error naming the file and line, so a typo never silently means a default.
public enum ConfigParser {
  /// Parses a config. `pins`, when given, is the GPIO header the config must fit (the
  /// simulator's mock Raspberry Pi header): a pin it does not have is an error naming the key's
  /// line, and two keys on one pin are compared by offset rather than by text.
  public static func parse(_ text: String, file: String, pins: PinSet? = nil) throws -> DeviceConfig {
    var config = DeviceConfig()
    var seen: [String: Int] = [:]
    var lineNumber = 0
    for rawLine in TextLines.split(text) {
      lineNumber += 1
      guard let (key, value) = try keyValue(rawLine, lineNumber: lineNumber, file: file) else { continue }
      func fail(_ message: String) -> ConfigError { ConfigError(file: file, line: lineNumber, message: message) }
      guard ConfigKey.row(key) != nil else { throw fail(unknownKey(key)) }
      if let first = seen[key] { throw fail(setTwice(key, first: first)) }
      seen[key] = lineNumber
      if let problem = read(key, value, into: &config) { throw fail(problem) }
    }
    if let problem = ProfileLines.problem(config) {
      throw ConfigError(file: file, line: seen[ProfileLines.key] ?? 0, message: problem)
    }
    try checkPins(config, lines: seen, file: file, pins: pins)
    return config
  }

  /// Reads one `key = value` into `config`: nil, or what is wrong (an unknown key, no value, a
  /// value the key does not take), the message a config file's line gets after its FILE:LINE.
  /// The one reading of a value: the file, the overlay `pomodoro ctl config set` writes, and
  /// `ctl config set` itself.
  public static func read(_ key: String, _ value: String, into config: inout DeviceConfig) -> String? {
    guard let setting = ConfigKey.row(key) else { return unknownKey(key) }
    if setting.isFamily, let name = ProfileLines.member(key) { return ProfileLines.read(name, value, into: &config) }
    guard !value.isEmpty || setting.takesEmpty else { return "'\(key)' has no value; expected \(setting.expected)" }
    guard setting.read(&config, value) else {
      return setting.problem(value)
        ?? "bad value '\(TextLines.visible(value))' for '\(key)'; expected \(setting.expected)"
    }
    return nil
  }

  /// The message for a key no row of `ConfigKey.all` has.
  public static func unknownKey(_ key: String) -> String {
    "unknown key '\(TextLines.visible(key))'; known keys: \(ConfigKey.named.keys.sorted().joined(separator: ", "))"
      + (key.hasPrefix(ProfileLines.key)
        ? " (a profile's line: \(ProfileLines.key) NAME = \(ProfileLines.example))" : "")
  }

  /// The message for a key given a second time, on a later line than `first`.
  static func setTwice(_ key: String, first: Int) -> String {
    "'\(key)' is set twice (first on line \(first)); keep one"
  }

  /// The line each key is set on in `text` (the parser's own reading of lines: CRLF, BOM,
  /// comments); a key the text does not set is absent. For "where it comes from" and SIGHUP's
  /// messages.
  public static func lines(in text: String) -> [String: Int] {
    var found: [String: Int] = [:]
    for (index, raw) in TextLines.split(text).enumerated() {
      var line = Substring(raw)
      if let hash = TextLines.commentStart(line) { line = line[..<hash] }
      guard let eq = line.firstIndex(of: "=") else { continue }
      let key = ProfileLines.normalized(String(TextLines.trimmed(line[..<eq])))
      if found[key] == nil { found[key] = index + 1 }
    }
    return found
  }

  /// The key and value of a line `TextLines.keyValue` left to the Character-wise reading (one
  /// with a character outside printable ASCII, or without `=`): the same split, or the error.
  /// A line's key and value; nil for a blank or comment line; a line that is neither is its
  /// error (FILE:LINE). The config file's reading and the overlay's (`ConfigLayers`) share it.
  static func keyValue(_ rawLine: String, lineNumber: Int, file: String) throws -> (String, String)? {
    switch TextLines.keyValue(rawLine) {
    case .blank: return nil
    case .pair(let k, let v): return (ProfileLines.normalized(k), v)
    case .other: return try slowKeyValue(rawLine, lineNumber: lineNumber, file: file)
    }
  }

  static func slowKeyValue(_ rawLine: String, lineNumber: Int, file: String) throws -> (String, String)? {
    var line = Substring(rawLine)
    if let hash = TextLines.commentStart(line) { line = line[..<hash] }
    let trimmed = TextLines.trimmed(line)
    if trimmed.isEmpty { return nil }
    func fail(_ message: String) -> ConfigError { ConfigError(file: file, line: lineNumber, message: message) }
    if let bad = TextLines.firstInvisible(trimmed) {
      throw fail(
        "an invisible character \(TextLines.visible(String(bad))) in '\(TextLines.visible(trimmed))'; delete it")
    }
    guard let eq = trimmed.firstIndex(of: "=") else {
      throw fail("expected `key = value`, found '\(TextLines.visible(trimmed))'")
    }
    let key = ProfileLines.normalized(String(TextLines.trimmed(trimmed[..<eq])))
    let value = String(TextLines.trimmed(trimmed[trimmed.index(after: eq)...]))
    return (key, value)
  }

  /// Every signal on a pin of its own (and, with `pins`, a pin the header has). The error is on
  /// the line that made the clash; a key left at its default has no line.
  static func checkPins(_ config: DeviceConfig, lines: [String: Int], file: String, pins: PinSet?) throws {
    func line(_ signal: DeviceLine) -> Int? { lines[signal.configKey] }
    var errors: [ConfigError] = []
    let wired = config.wired
    if let pins {
      for (signal, pin) in wired where pins.offset(pin) == nil {
        errors.append(
          ConfigError(
            file: file, line: line(signal) ?? 0,
            message:
              "bad value '\(TextLines.visible(pin))' for '\(signal.configKey)': \(pins.name) has no such line; "
              + "expected \(pins.expected)"))
      }
    }
    func same(_ a: String, _ b: String) -> Bool {
      if let pins, let x = pins.offset(a), let y = pins.offset(b) { return x == y }
      return a == b
    }
    for (i, (a, pinA)) in wired.enumerated() {
      for (b, pinB) in wired[(i + 1)...] where same(pinA, pinB) {
        // Report on the later line of the two; a default is "before" every line.
        let ((earlier, _), (later, pin)) =
          (line(a) ?? 0) <= (line(b) ?? 0) ? ((a, pinA), (b, pinB)) : ((b, pinB), (a, pinA))
        let origin = line(earlier).map { "on line \($0)" } ?? "by default"
        errors.append(
          ConfigError(
            file: file, line: line(later) ?? 0,
            message:
              "'\(later.configKey)' is on \(TextLines.visible(pin)), the pin '\(earlier.configKey)' has (\(origin)); "
              + "give each signal its own pin"))
      }
    }
    if let first = errors.min(by: { $0.line < $1.line }) { throw first }
  }

  /// The text of `config` as a config file: every key that is set, one a line, in the order of
  /// deploy/pomodoro.conf (`ConfigKey.all`). Parses back to `config`.
  public static func text(of config: DeviceConfig) -> String {
    ConfigKey.all.flatMap { key in key.lines(config).map { "\($0.key) = \($0.value)\n" } }.joined()
  }
}

/// The GPIO lines a config must fit, for a check before any line is requested.
public struct PinSet: Sendable {
  /// What the lines belong to, for messages ("the simulated Raspberry Pi header").
  public var name: String
  /// The pins it has, for messages ("GPIO0 to GPIO27, or offsets 0 to 27").
  public var expected: String
  /// The offset of a pin given by name or offset; nil when there is no such line.
  public var offset: @Sendable (String) -> Int?

  public init(name: String, expected: String, offset: @escaping @Sendable (String) -> Int?) {
    self.name = name
    self.expected = expected
    self.offset = offset
  }

  /// A Raspberry Pi's header chip: lines GPIO0 ... GPIO27, at offsets 0 ... 27.
  public static let raspberryPiHeader = PinSet(
    name: "the simulated Raspberry Pi header", expected: "GPIO0 to GPIO27, or an offset from 0 to 27"
  ) { pin in
    // As MockGPIOChip.offset(of:) resolves it: a line name, else an offset.
    if pin.hasPrefix("GPIO"), let n = Int(pin.dropFirst(4)), n >= 0, n < 28, pin == "GPIO\(n)" { return n }
    if let n = Int(pin), n >= 0, n < 28 { return n }
    return nil
  }
}
