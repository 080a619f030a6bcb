import PomodoroCore
import PomodoroDrivers

/// Reads the `key = value` config text. Strict: an unknown key, a bad value or a key given
/// twice is an error naming the file and line, so a typo never silently means a default.
public enum ConfigParser {
  public static func parse(_ text: String, file: String) throws -> DeviceConfig {
    var config = DeviceConfig()
    let setters = Self.setters
    var seen: [String: Int] = [:]
    var lineNumber = 0
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
      lineNumber += 1
      var line = Substring(rawLine)
      if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
      let trimmed = line.trimmingSpaces
      if trimmed.isEmpty { continue }
      func fail(_ message: String) -> ConfigError { ConfigError(file: file, line: lineNumber, message: message) }
      guard let eq = trimmed.firstIndex(of: "=") else {
        throw fail("expected `key = value`, found '\(trimmed)'")
      }
      let key = String(trimmed[..<eq].trimmingSpaces)
      let value = String(trimmed[trimmed.index(after: eq)...].trimmingSpaces)
      guard let setter = setters[key] else {
        throw fail("unknown key '\(key)'; known keys: \(setters.keys.sorted().joined(separator: ", "))")
      }
      if let first = seen[key] {
        throw fail("'\(key)' is set twice (first on line \(first)); keep one")
      }
      seen[key] = lineNumber
      guard !value.isEmpty else { throw fail("'\(key)' has no value; expected \(setter.expected)") }
      guard setter.apply(&config, value) else {
        throw fail("bad value '\(value)' for '\(key)'; expected \(setter.expected)")
      }
    }
    return config
  }

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

  /// Built per parse (a config is parsed once): closures over key paths are not Sendable.
  static var setters: [String: Setter] {
    var all: [String: Setter] = [
      "chip": Setter(expected: "a chip path (/dev/gpiochip0), name (gpiochip0), label (pinctrl-rp1) or auto") { c, v in
        guard !v.contains(" ") else { return false }
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
      "alarm_timeout": Setter(expected: "a duration from 5s to 1h, like 60s") { c, v in
        guard let d = DurationText.parse(v), d >= seconds(5), d <= minutes(60) else { return false }
        c.engine.alarmTimeout = d
        return true
      },
      "click": flag(\.click),
      "state_dir": Setter(expected: "an absolute directory path like /var/lib/pomodoro") { c, v in
        guard v.hasPrefix("/") || v.hasPrefix("~") || v.hasPrefix(".") else { return false }
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

extension Substring {
  var trimmingSpaces: Substring {
    var s = self
    while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
    while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
    return s
  }
}
