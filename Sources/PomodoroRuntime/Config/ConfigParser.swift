import PomodoroCore
import PomodoroDrivers

/// Reads the `key = value` config text. Strict: an unknown key, a bad value or a key given
/// twice is an error naming the file and line, so a typo never silently means a default.
public enum ConfigParser {
  /// Parses a config. `pins`, when given, is the GPIO header the config must fit (the
  /// simulator's mock Raspberry Pi header): a pin it does not have is an error naming the key's
  /// line, and two keys on one pin are compared by offset rather than by text.
  public static func parse(_ text: String, file: String, pins: PinSet? = nil) throws -> DeviceConfig {
    var config = DeviceConfig()
    let setters = Self.setters
    var seen: [String: Int] = [:]
    var lineNumber = 0
    for rawLine in TextLines.split(text) {
      lineNumber += 1
      var key = ""
      var value = ""
      switch TextLines.keyValue(rawLine) {
      case .blank: continue
      case .pair(let k, let v): (key, value) = (k, v)
      case .other:
        guard let pair = try slowKeyValue(rawLine, lineNumber: lineNumber, file: file) else { continue }
        (key, value) = pair
      }
      func fail(_ message: String) -> ConfigError { ConfigError(file: file, line: lineNumber, message: message) }
      guard let setter = setters[key] else {
        throw fail(
          "unknown key '\(TextLines.visible(key))'; known keys: \(setters.keys.sorted().joined(separator: ", "))")
      }
      if let first = seen[key] {
        throw fail("'\(key)' is set twice (first on line \(first)); keep one")
      }
      seen[key] = lineNumber
      guard !value.isEmpty else { throw fail("'\(key)' has no value; expected \(setter.expected)") }
      guard setter.apply(&config, value) else {
        throw fail("bad value '\(TextLines.visible(value))' for '\(key)'; expected \(setter.expected)")
      }
    }
    try checkPins(config, lines: seen, file: file, pins: pins)
    return config
  }

  /// The key and value of a line `TextLines.keyValue` left to the Character-wise reading (one
  /// with a character outside printable ASCII, or without `=`): the same split, or the error.
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
    let key = String(TextLines.trimmed(trimmed[..<eq]))
    let value = String(TextLines.trimmed(trimmed[trimmed.index(after: eq)...]))
    return (key, value)
  }

  /// Every signal on a pin of its own (and, with `pins`, a pin the header has). The error is on
  /// the line that made the clash; a key left at its default has no line.
  static func checkPins(_ config: DeviceConfig, lines: [String: Int], file: String, pins: PinSet?) throws {
    func line(_ signal: DeviceLine) -> Int? { lines[signal.configKey] }
    var errors: [ConfigError] = []
    if let pins {
      for signal in DeviceLine.allCases where pins.offset(config.pin(signal)) == nil {
        errors.append(
          ConfigError(
            file: file, line: line(signal) ?? 0,
            message:
              "bad value '\(TextLines.visible(config.pin(signal)))' for '\(signal.configKey)': \(pins.name) has no such line; "
              + "expected \(pins.expected)"))
      }
    }
    func same(_ a: DeviceLine, _ b: DeviceLine) -> Bool {
      if let pins, let x = pins.offset(config.pin(a)), let y = pins.offset(config.pin(b)) { return x == y }
      return config.pin(a) == config.pin(b)
    }
    let all = DeviceLine.allCases
    for (i, a) in all.enumerated() {
      for b in all[(i + 1)...] where same(a, b) {
        // Report on the later line of the two; a default is "before" every line.
        let (earlier, later) = (line(a) ?? 0) <= (line(b) ?? 0) ? (a, b) : (b, a)
        let origin = line(earlier).map { "on line \($0)" } ?? "by default"
        errors.append(
          ConfigError(
            file: file, line: line(later) ?? 0,
            message:
              "'\(later.configKey)' is on \(TextLines.visible(config.pin(later))), the pin '\(earlier.configKey)' has (\(origin)); "
              + "give each signal its own pin"))
      }
    }
    if let first = errors.min(by: { $0.line < $1.line }) { throw first }
  }

  /// The text of `config` as a config file: every key, one a line, in the order of
  /// deploy/pomodoro.conf. Parses back to `config`.
  public static func text(of config: DeviceConfig) -> String {
    var lines: [(String, String)] = [("chip", config.chip)]
    for signal in DeviceLine.allCases { lines.append((signal.configKey, config.pin(signal))) }
    func flag(_ b: Bool) -> String { b ? "true" : "false" }
    lines += [
      ("inputs_active_low", flag(config.inputsActiveLow)), ("buzzer_active_high", flag(config.buzzerActiveHigh)),
      ("debounce", DurationText.format(config.debounce)), ("long_press", DurationText.format(config.longPress)),
      ("encoder_detent", String(config.encoderDetent)), ("encoder_invert", flag(config.encoderInvert)),
      ("i2c_bus", String(config.i2cBus)),
      ("i2c_address", hex(config.i2cAddress)),
      ("controller", config.controller.rawValue), ("size", "128x\(config.height)"),
      ("rotate", config.rotate180 ? "180" : "0"), ("contrast", String(config.contrast)),
      ("dim_after", DurationText.formatOrNever(config.dimAfter)),
      ("dim_contrast", String(config.dimContrast)),
      ("blank_after", DurationText.formatOrNever(config.blankAfter)),
      ("shift_every", DurationText.formatOrNever(config.shiftEvery)),
    ]
    for (key, mode) in presetKeys {
      if let d = config.engine.presets[mode] { lines.append((key, DurationText.format(d))) }
    }
    lines += [
      ("long_break_every", String(config.engine.longBreakEvery)), ("auto_start", flag(config.engine.autoStart)),
      ("alarm_timeout", DurationText.formatOrNever(config.engine.alarmTimeout)),
      ("egg_alarm_timeout", DurationText.formatOrNever(config.engine.eggAlarmTimeout)),
      ("click", flag(config.click)), ("state_dir", config.stateDirectory),
      ("control_socket", config.controlSocket ?? "off"), ("mqtt_host", config.mqttHost),
      ("mqtt_port", String(config.mqttPort)), ("mqtt_topic_prefix", config.mqttTopicPrefix),
      ("mqtt_discovery_prefix", config.mqttDiscoveryPrefix),
    ]
    // Keys whose default is "not set" appear only when set.
    let optional: [(String, String?)] = [
      ("mqtt_device_id", config.mqttDeviceId), ("mqtt_user", config.mqttUser),
      ("mqtt_password_file", config.mqttPasswordFile), ("mqtt_cafile", config.mqttCafile),
    ]
    for case (let key, let value?) in optional { lines.append((key, value)) }
    return lines.map { "\($0.0) = \($0.1)\n" }.joined()
  }

  static let presetKeys: [(String, Mode)] = [
    ("focus", .focus), ("short_break", .shortBreak), ("long_break", .longBreak), ("soft", .soft),
    ("medium", .medium), ("hard", .hard),
  ]

  struct Setter {
    var expected: String
    var apply: (inout DeviceConfig, String) -> Bool
  }

  static func line(_ path: WritableKeyPath<DeviceConfig, String>) -> Setter {
    Setter(expected: "a line name like GPIO17 or an offset like 17") { c, v in
      guard v.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else { return false }
      c[keyPath: path] = v
      return true
    }
  }

  static func flag(_ path: WritableKeyPath<DeviceConfig, Bool>) -> Setter {
    Setter(expected: "true or false") { c, v in
      switch v.lowercased() {
      case "true", "yes", "on": c[keyPath: path] = true
      case "false", "no", "off": c[keyPath: path] = false
      default: return false
      }
      return true
    }
  }

  static func span(
    _ path: WritableKeyPath<DeviceConfig, Nanoseconds>, _ range: ClosedRange<Nanoseconds>, _ expected: String
  ) -> Setter {
    Setter(expected: expected) { c, v in
      guard let d = DurationText.parse(v), range.contains(d) else { return false }
      c[keyPath: path] = d
      return true
    }
  }

  static func optionalSpan(
    _ path: WritableKeyPath<DeviceConfig, Nanoseconds?>, _ range: ClosedRange<Nanoseconds>, _ expected: String
  ) -> Setter {
    Setter(expected: expected) { c, v in
      guard let d = DurationText.parseOrNever(v) else { return false }
      if let d, !range.contains(d) { return false }
      c[keyPath: path] = d
      return true
    }
  }

  static func preset(_ mode: Mode) -> Setter {
    Setter(expected: "a duration from 5s to 23h59m59s, like 25m or 1m30s") { c, v in
      guard let d = DurationText.parse(v), d >= Dial.shortest, d <= Dial.longest else { return false }
      c.engine.presets[mode] = d
      return true
    }
  }

  static func integer(_ range: ClosedRange<Int>, _ expected: String, _ set: @escaping (inout DeviceConfig, Int) -> Void)
    -> Setter
  {
    Setter(expected: expected) { c, v in
      let parsed = v.hasPrefix("0x") ? Int(v.dropFirst(2), radix: 16) : Int(v)
      guard let n = parsed, range.contains(n) else { return false }
      set(&c, n)
      return true
    }
  }

  /// Built once; never changed after (closures over key paths are not Sendable).
  nonisolated(unsafe) static let setters: [String: Setter] = makeSetters()

  static func makeSetters() -> [String: Setter] {
    var all: [String: Setter] = [
      "chip": Setter(expected: "a chip path (/dev/gpiochip0), name (gpiochip0), label (pinctrl-rp1) or auto") { c, v in
        guard !v.contains(" "), !v.contains("\t"), !v.hasPrefix("#") else { return false }
        c.chip = v
        return true
      },
      "inputs_active_low": flag(\.inputsActiveLow),
      "buzzer_active_high": flag(\.buzzerActiveHigh),
      "debounce": span(\.debounce, 0...ms(500), "a duration from 0ms to 500ms, like 20ms"),
      "long_press": span(\.longPress, ms(200)...seconds(10), "a duration from 200ms to 10s, like 1s"),
      "encoder_detent": Setter(expected: "1, 2 or 4 (transitions per detent)") { c, v in
        guard let n = Int(v), [1, 2, 4].contains(n) else { return false }
        c.encoderDetent = n
        return true
      },
      "encoder_invert": flag(\.encoderInvert),
      "i2c_bus": integer(0...255, "a bus number like 1 (for /dev/i2c-1)") { c, n in c.i2cBus = n },
      "i2c_address": integer(0x03...0x77, "a 7-bit address like 0x3c or 0x3d") { c, n in c.i2cAddress = UInt8(n) },
      "controller": Setter(expected: "ssd1306 or sh1106") { c, v in
        guard let k = OLEDController(rawValue: v.lowercased()) else { return false }
        c.controller = k
        return true
      },
      "size": Setter(expected: "128x64 or 128x32") { c, v in
        switch v.lowercased() {
        case "128x64": c.height = 64
        case "128x32": c.height = 32
        default: return false
        }
        return true
      },
      "rotate": Setter(expected: "0 or 180") { c, v in
        guard v == "0" || v == "180" else { return false }
        c.rotate180 = v == "180"
        return true
      },
      "contrast": integer(0...255, "a number from 0 to 255") { c, n in c.contrast = UInt8(n) },
      "focus": preset(.focus),
      "short_break": preset(.shortBreak),
      "long_break": preset(.longBreak),
      "soft": preset(.soft),
      "medium": preset(.medium),
      "hard": preset(.hard),
      "long_break_every": integer(1...12, "a number from 1 to 12") { c, n in c.engine.longBreakEvery = n },
      "auto_start": flag(\.engine.autoStart),
      "alarm_timeout": optionalSpan(
        \.engine.alarmTimeout, seconds(5)...minutes(60), "a duration from 5s to 1h, like 60s, or never"),
      "egg_alarm_timeout": optionalSpan(
        \.engine.eggAlarmTimeout, seconds(5)...minutes(60), "a duration from 5s to 1h, like 60s, or never"),
      "dim_after": optionalSpan(
        \.dimAfter, seconds(5)...minutes(24 * 60), "a duration from 5s to 24h, like 2m, or never"),
      "blank_after": optionalSpan(
        \.blankAfter, seconds(5)...minutes(24 * 60), "a duration from 5s to 24h, like 10m, or never"),
      "shift_every": optionalSpan(
        \.shiftEvery, seconds(5)...minutes(24 * 60), "a duration from 5s to 24h, like 3m, or never"),
      "dim_contrast": integer(0...255, "a number from 0 to 255") { c, n in c.dimContrast = UInt8(n) },
      "click": flag(\.click),
      "state_dir": Setter(expected: "an absolute directory path like /var/lib/pomodoro") { c, v in
        guard v.hasPrefix("/") else { return false }
        c.stateDirectory = v
        return true
      },
      "control_socket": Setter(expected: "an absolute socket path like /run/pomodoro/control.sock, or off") { c, v in
        if v == "off" {
          c.controlSocket = nil
          return true
        }
        guard v.hasPrefix("/"), v.utf8.count < 108, !v.contains(" ") else { return false }
        c.controlSocket = v
        return true
      },
      "mqtt_host": Setter(expected: "a host name or address like localhost or 192.168.1.10") { c, v in
        guard !v.contains(" "), !v.contains("/") else { return false }
        c.mqttHost = v
        return true
      },
      "mqtt_port": integer(1...65535, "a TCP port like 1883 (8883 for TLS)") { c, n in c.mqttPort = n },
      "mqtt_device_id": Setter(expected: "letters, digits, - and _ (a topic level), like desk-1") { c, v in
        guard v.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else { return false }
        c.mqttDeviceId = v
        return true
      },
      "mqtt_topic_prefix": Setter(expected: "topic levels without wildcards, like pomodoro or office/pomodoro") {
        c, v in
        guard !v.contains("+"), !v.contains("#"), !v.contains(" "), !v.hasPrefix("/"), !v.hasSuffix("/") else {
          return false
        }
        c.mqttTopicPrefix = v
        return true
      },
      "mqtt_discovery_prefix": Setter(expected: "Home Assistant's discovery prefix, like homeassistant") { c, v in
        guard !v.contains("+"), !v.contains("#"), !v.contains(" "), !v.hasPrefix("/"), !v.hasSuffix("/") else {
          return false
        }
        c.mqttDiscoveryPrefix = v
        return true
      },
      "mqtt_user": Setter(expected: "the broker's user name") { c, v in
        guard !v.contains(" ") else { return false }
        c.mqttUser = v
        return true
      },
      "mqtt_password_file": Setter(expected: "an absolute path to a file holding the password") { c, v in
        guard v.hasPrefix("/") else { return false }
        c.mqttPasswordFile = v
        return true
      },
      "mqtt_cafile": Setter(expected: "an absolute path to the CA certificate (PEM) for TLS") { c, v in
        guard v.hasPrefix("/") else { return false }
        c.mqttCafile = v
        return true
      },
    ]
    for signal in DeviceLine.allCases { all[signal.configKey] = line(signal.configField) }
    return all
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
