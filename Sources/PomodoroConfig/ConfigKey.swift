import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// When a change to a key reaches a running device (SIGHUP reads the config again).
public enum ConfigApplies: String, CaseIterable, Sendable {
  /// At once on SIGHUP; the timer carries on.
  case live
  /// When the device restarts: it opens the hardware and its files once.
  case restart
  /// When the device and the MQTT bridge restart: both read it at start.
  case restartBoth = "restart-both"
  /// The MQTT bridge's alone: the device never reads it.
  case bridge
  /// The web page's server's (`pomodoro web`) alone: the device never reads it.
  case web
  /// The hooks' process's (`pomodoro hooks`) alone: the device never reads it.
  case hooks

  /// The command that applies a change, nil when SIGHUP does.
  public var command: String? {
    switch self {
    case .live: return nil
    case .restart: return "sudo systemctl restart pomodoro"
    case .restartBoth: return "sudo systemctl restart pomodoro pomodoro-mqtt"
    case .bridge: return "sudo systemctl restart pomodoro-mqtt"
    case .web: return "sudo systemctl restart pomodoro-web"
    case .hooks: return "sudo systemctl restart pomodoro-hooks"
    }
  }

  /// How the settings table in docs/settings.md says it.
  public var text: String {
    switch self {
    case .live: return "SIGHUP"
    case .restart: return "restart"
    case .restartBoth: return "restart (device and bridge)"
    case .bridge: return "bridge restart"
    case .web: return "web restart"
    case .hooks: return "hooks restart"
    }
  }

  /// Whose key it is when the device does not read it: "the MQTT bridge's".
  public var owner: String? {
    switch self {
    case .live, .restart, .restartBoth: return nil
    case .bridge: return "the MQTT bridge's"
    case .web: return "the web page's server's (pomodoro web)"
    case .hooks: return "the hooks' (pomodoro hooks)"
    }
  }
}

/// One setting, written once: its name, how its value reads and writes, its default (the field's
/// value in `DeviceConfig()`), the line deploy/pomodoro.conf carries for it and how a change
/// applies. The parser, the config writer, SIGHUP's reload, and the checks of
/// deploy/pomodoro.conf and docs/settings.md all take `ConfigKey.all`.
public struct ConfigKey {
  public let name: String
  /// What a value looks like, for errors ("a duration from 0ms to 500ms, like 20ms").
  public let expected: String
  public let applies: ConfigApplies
  /// What it is for, in a few words (docs/settings.md).
  public let summary: String
  /// For a key unset by default: the value deploy/pomodoro.conf shows in a comment.
  public let example: String?
  /// Reads `value` into the config; false when it is not a value of this key.
  let read: (inout DeviceConfig, String) -> Bool
  /// What is wrong with a value `read` refused, when the codec can say more than `expected`.
  let problem: (String) -> String?
  /// Whether an empty value is one of its values (`ConfigCodec.takesEmpty`).
  let takesEmpty: Bool
  /// The value as a config writes it; nil while unset.
  public let value: (DeviceConfig) -> String?
  /// Whether two configs differ in this key.
  public let differs: (DeviceConfig, DeviceConfig) -> Bool
  /// Takes this key's value from the second config.
  public let copy: (inout DeviceConfig, DeviceConfig) -> Void
  /// A family of keys (`profile NAME`): a line a member, named by its key's second word.
  public private(set) var isFamily = false

  /// The default as a config writes it (nil: unset).
  public var defaultValue: String? { value(DeviceConfig()) }

  /// The line deploy/pomodoro.conf carries: `name = default`, or `# name = example` for a key
  /// unset by default.
  public var exampleLine: String {
    if let d = defaultValue { return "\(name) = \(d)" }
    if isFamily { return "# \(ProfileLines.key) \(ProfileLines.exampleName) = \(ProfileLines.example)" }
    return example.map { "# \(name) = \($0)" } ?? "# \(name) ="
  }

  /// The lines `config` sets of this key, each its key and value: none while unset, a family's
  /// one a member.
  public func lines(_ config: DeviceConfig) -> [(key: String, value: String)] {
    guard isFamily else { return value(config).map { [(name, $0)] } ?? [] }
    return config.engine.profiles.map { ("\(ProfileLines.key) \($0.name)", ProfileLines.format($0)) }
  }

  /// The value of the line `key` (this key's name, or a member's) in `config`; nil while unset.
  public func value(of key: String, in config: DeviceConfig) -> String? {
    guard isFamily else { return value(config) }
    return lines(config).first { $0.key == key }?.value
  }

  /// The row of the line `key`: a key's own, or its family's (`profile deep`: `profile NAME`).
  public static func row(_ key: String) -> ConfigKey? {
    named[key] ?? (ProfileLines.member(key) != nil ? named[ProfileLines.familyName] : nil)
  }

  /// Names written once that others read (a profile's settings take their values).
  static let longBreakEvery = "long_break_every"
  static let flowBreakRatio = "flow_break_ratio"

  init<Value: Equatable>(
    _ name: String, _ path: WritableKeyPath<DeviceConfig, Value>, _ codec: ConfigCodec<Value>,
    _ applies: ConfigApplies, _ summary: String, example: String? = nil
  ) {
    self.name = name
    self.expected = codec.expected
    self.applies = applies
    self.summary = summary
    self.example = example
    read = { config, text in
      guard let v = codec.parse(text) else { return false }
      config[keyPath: path] = v
      return true
    }
    problem = codec.problem
    takesEmpty = codec.takesEmpty
    value = { codec.format($0[keyPath: path]) }
    differs = { $0[keyPath: path] != $1[keyPath: path] }
    copy = { $0[keyPath: path] = $1[keyPath: path] }
  }

  /// Every key, in the order of deploy/pomodoro.conf. Built once, never changed (closures over
  /// key paths are not Sendable).
  nonisolated(unsafe) public static let all: [ConfigKey] = makeAll()

  /// Whether `pomodoro ctl config set` and the page may change it: the keys SIGHUP applies at once
  /// (the presets, the cycle, the alarms, OLED care, the click). The one place that decides.
  public var settable: Bool { applies == .live }

  /// The keys `settable` lets through, in the table's order.
  nonisolated(unsafe) public static let settableKeys: [ConfigKey] = all.filter(\.settable)

  /// `all` by name.
  nonisolated(unsafe) static let named: [String: ConfigKey] = Dictionary(
    all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

  /// An absolute path without spaces or control characters (`hook_command`, `webhook_headers`).
  static func isPath(_ text: String) -> Bool {
    text.hasPrefix("/") && text.utf8.count <= 4096
      && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
  }

  /// An http:// or https:// address with a host, without spaces or control characters.
  static func isWebhook(_ text: String) -> Bool {
    let lower = text.lowercased()
    let rest = lower.hasPrefix("https://") ? lower.dropFirst(8) : lower.hasPrefix("http://") ? lower.dropFirst(7) : nil
    guard let rest, let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty
    else { return false }
    return text.utf8.count <= 2048 && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
  }

  /// Whether `text` is an IPv4 or IPv6 address (what `web_bind` takes).
  static func isAddress(_ text: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
  }

  static func family(_ key: ConfigKey) -> ConfigKey {
    var key = key
    key.isFamily = true
    return key
  }

  static func makeAll() -> [ConfigKey] {
    typealias C = ConfigCodecs
    var keys: [ConfigKey] = [
      ConfigKey(
        "chip", \.chip,
        C.text("a chip path (/dev/gpiochip0), name (gpiochip0), label (pinctrl-rp1) or auto") {
          !$0.contains(" ") && !$0.contains("\t") && !$0.hasPrefix("#")
        }, .restart, "the GPIO chip with the header's lines")
    ]
    for signal in DeviceLine.allCases {
      guard let field = signal.configField else { continue }  // the presence line: with presence's keys
      keys.append(ConfigKey(signal.configKey, field, C.line, .restart, "the \(signal.partLabel)'s line"))
    }
    let durationOrNever = "a duration from 5s to 24h, or never"
    let pwmChip = "auto, or the end of a PWM chip's device path like 1f00098000.pwm, or pwmchip0"
    keys += [
      ConfigKey(
        "inputs_active_low", \.inputsActiveLow, C.flag, .restart, "buttons and encoder pull to GND (internal pull-ups)"),
      ConfigKey("buzzer_active_high", \.buzzerActiveHigh, C.flag, .restart, "the buzzer sounds when its line is high"),
      ConfigKey(
        "debounce", \.debounce, C.duration(0...ms(500), "a duration from 0ms to 500ms, like 20ms"), .restart,
        "how long a button must be stable to count"),
      ConfigKey(
        "long_press", \.longPress, C.duration(ms(200)...seconds(10), "a duration from 200ms to 10s, like 1s"),
        .restart, "how long a hold is a long press"),
      ConfigKey(
        "encoder_detent", \.encoderDetent,
        C.choice([("1", 1), ("2", 2), ("4", 4)], "1, 2 or 4 (transitions per detent)"), .restart,
        "quadrature transitions per detent"),
      ConfigKey("encoder_invert", \.encoderInvert, C.flag, .restart, "swap the encoder's direction"),
      ConfigKey(
        "i2c_bus", \.i2cBus, C.integer(0...255, "a bus number like 1 (for /dev/i2c-1)"), .restart,
        "the display's bus, /dev/i2c-N"),
      ConfigKey(
        "i2c_address", \.i2cAddress, C.integer(0x03...0x77, "a 7-bit address like 0x3c or 0x3d", hex: true),
        .restart, "the display's 7-bit address"),
      ConfigKey(
        "controller", \.controller,
        C.choice(OLEDController.allCases.map { ($0.rawValue, $0) }, "ssd1306 or sh1106"), .restart,
        "the display's controller"),
      ConfigKey(
        "size", \.height, C.choice([("128x64", 64), ("128x32", 32)], "128x64 or 128x32"), .restart,
        "the panel's size"),
      ConfigKey(
        "rotate", \.rotate180, C.choice([("0", false), ("180", true)], "0 or 180"), .restart,
        "180: mounted upside down"),
      ConfigKey("contrast", \.contrast, C.integer(0...255, "a number from 0 to 255"), .restart, "the panel's contrast"),
      ConfigKey(
        "dim_after", \.dimAfter, C.durationOrNever(seconds(5)...hours(24), "\(durationOrNever), like 2m"), .live,
        "dim after this long untouched"),
      ConfigKey(
        "dim_contrast", \.dimContrast, C.integer(0...255, "a number from 0 to 255"), .live, "the dimmed contrast"),
      ConfigKey(
        "blank_after", \.blankAfter, C.durationOrNever(seconds(5)...hours(24), "\(durationOrNever), like 10m"),
        .live, "blank the panel after this long untouched in the picker"),
      ConfigKey(
        "shift_every", \.shiftEvery, C.durationOrNever(seconds(5)...hours(24), "\(durationOrNever), like 3m"),
        .live, "move the picture a pixel this often"),
    ]
    for mode in Mode.allCases {
      guard let key = mode.configKey else { continue }
      keys.append(ConfigKey(key, \.engine.presets[mode], C.preset, .live, "the \(mode.displayName) preset"))
    }
    keys += [
      ConfigKey(
        "modes", \.engine.modes, C.modes, .live, "the modes the knob's push steps through while idle, in order"),
      ConfigKey(
        flowBreakRatio, \.engine.flowBreakRatio, C.integer(1...60, "a number from 1 to 60, like 5"), .live,
        "a flow earns a break of its length divided by this"),
    ]
    let alarmTimeout = "a duration from 5s to 1h, like 60s, or never"
    keys += [
      ConfigKey(
        longBreakEvery, \.engine.longBreakEvery, C.integer(1...12, "a number from 1 to 12"), .live,
        "a long break after every Nth focus"),
      family(
        ConfigKey(
          ProfileLines.familyName, \.engine.profiles, ProfileLines.family, .live,
          "a named profile (at most \(Profile.most), named \(Profile.nameRule)): what it leaves out is the base's "
            + "(docs/use.md, Profiles)", example: ProfileLines.example)),
      ConfigKey(
        ProfileLines.key, \.engine.profile, ProfileLines.choice, .live,
        "the profile in use at start (empty: none, the base settings); the knob and ctl profile choose another"),
      ConfigKey(
        "daily_goal", \.engine.dailyGoal, C.integer(0...99, "a number from 0 (no goal) to 99, like 8"), .live,
        "completed focus sessions a day to aim at; 0: no goal"),
      ConfigKey(
        "auto_start", \.engine.autoStart, C.flag, .live, "start the preselected session when the alarm is acknowledged"),
      ConfigKey(
        "alarm_timeout", \.engine.alarmTimeout, C.durationOrNever(seconds(5)...minutes(60), alarmTimeout), .live,
        "a focus's or break's alarm stops by itself after this long"),
      ConfigKey(
        "egg_alarm_timeout", \.engine.eggAlarmTimeout, C.durationOrNever(seconds(5)...minutes(60), alarmTimeout),
        .live, "the same for the egg presets"),
      ConfigKey("click", \.click, C.flag, .live, "a 15 ms click on every press"),
      ConfigKey(
        "quiet_hours", \.quietHours, C.quietHours, .live,
        "local hours, like 22:00-07:00, when the idle panel goes dark and the click is silent (off: never)"),
      ConfigKey(
        "quiet_panel", \.quietPanel, C.choice(QuietPanel.allCases.map { ($0.rawValue, $0) }, "off or dim"), .live,
        "the idle panel in quiet hours: off, or dim (the lowest contrast)"),
      ConfigKey(
        DeviceLine.presence.configKey, \.presenceLine, C.optional(C.line), .restart,
        "a presence sensor's output (a PIR, an LD2410's OUT; docs/use.md, Presence); unset: none",
        example: "GPIO16"),
      ConfigKey(
        "presence_active", \.presenceActive,
        C.choice(PresenceActive.allCases.map { ($0.rawValue, $0) }, "high or low"), .restart,
        "the presence line's level while the sensor sees someone"),
      ConfigKey(
        "away_after", \.awayAfter, C.duration(seconds(30)...hours(4), "a duration from 30s to 4h, like 5m"), .live,
        "nobody seen this long: away (the idle panel goes dark, no click)"),
      ConfigKey(
        "pause_when_away", \.pauseWhenAway, C.flag, .live,
        "away pauses a running focus, until a press (a sensor may miss someone sitting still)"),
      ConfigKey(
        "buzzer_kind", \.buzzerKind, C.choice(BuzzerKind.allCases.map { ($0.rawValue, $0) }, "active or passive"),
        .restart, "active: a buzzer on the buzzer line; passive: a piezo on PWM, playing tunes (docs/sound.md)"),
      ConfigKey(
        "pwm_chip", \.pwmChip, C.auto(C.text(pwmChip) { !$0.contains(" ") && !$0.hasPrefix("#") }), .restart,
        "the passive buzzer's PWM chip, found by its device path (auto: the only one, or the first)"),
      ConfigKey(
        "pwm_channel", \.pwmChannel, C.auto(C.integer(0...15, "a channel from 0 to 15, or auto")), .restart,
        "the PWM chip's channel (auto: GPIO18's, 2 on a Pi 5, else 0)"),
      ConfigKey("alarm_tune", \.alarmTune, C.tune("alarm_tune"), .live, "the passive buzzer's tune when a focus ends"),
      ConfigKey("break_tune", \.breakTune, C.tune("break_tune"), .live, "the same when a break ends"),
      ConfigKey("egg_tune", \.eggTune, C.tune("egg_tune"), .live, "the same when an egg timer ends"),
      ConfigKey(
        "volume", \.volume, C.integer(Volume.range, "a number from 1 (soft) to 10 (loud)"), .live,
        "the passive buzzer's loudness, through the duty cycle"),
      ConfigKey(
        "tick", \.tick, C.choice(Tick.allCases.map { ($0.rawValue, $0) }, "off, on or fade"), .live,
        "a soft tick each second of a focus (fade: its first minute only)"),
      ConfigKey(
        "room", \.room,
        C.optional(C.text("1 to 40 of A-Z a-z 0-9 . _ -, like team") { RoomNames.isRoom($0) }), .live,
        "the room this desk focuses with, over the MQTT bridge's broker (docs/room.md); none: alone",
        example: "team"),
      ConfigKey(
        "state_dir", \.stateDirectory,
        C.text("an absolute directory path like /var/lib/pomodoro") { $0.hasPrefix("/") },
        .restart, "where state.json and history.jsonl live"),
      ConfigKey(
        "control_socket", \.controlSocket, C.socket, .restartBoth,
        "the control socket (pomodoro ctl, the bridge), or off"
      ),
      ConfigKey(
        "mqtt_host", \.mqttHost,
        C.text("a host name or address like localhost or 192.168.1.10") { !$0.contains(" ") && !$0.contains("/") },
        .bridge, "the MQTT broker"),
      ConfigKey(
        "mqtt_port", \.mqttPort, C.integer(1...65535, "a TCP port like 1883 (8883 for TLS)"), .bridge,
        "the broker's port"),
      ConfigKey(
        "mqtt_device_id", \.mqttDeviceId, C.optional(C.topicLevel), .bridge,
        "the desk's name in topics and Home Assistant (default: the host name)", example: "desk-1"),
      ConfigKey(
        "mqtt_topic_prefix", \.mqttTopicPrefix,
        C.topic("topic levels without wildcards, like pomodoro or office/pomodoro"), .bridge, "the topics' first levels"
      ),
      ConfigKey(
        "mqtt_discovery_prefix", \.mqttDiscoveryPrefix,
        C.topic("Home Assistant's discovery prefix, like homeassistant"), .bridge, "Home Assistant's discovery prefix"),
      ConfigKey(
        "mqtt_user", \.mqttUser, C.optional(C.text("the broker's user name") { !$0.contains(" ") }), .bridge,
        "the broker's user, when it wants one", example: "pomodoro"),
      ConfigKey(
        "mqtt_password_file", \.mqttPasswordFile,
        C.optional(C.text("an absolute path to a file holding the password") { $0.hasPrefix("/") }), .bridge,
        "a file holding the broker's password (mode 0600)", example: "/etc/pomodoro/mqtt.password"),
      ConfigKey(
        "mqtt_cafile", \.mqttCafile,
        C.optional(C.text("an absolute path to the CA certificate (PEM) for TLS") { $0.hasPrefix("/") }), .bridge,
        "TLS to the broker, with this CA", example: "/etc/ssl/certs/ca-certificates.crt"),
      ConfigKey(
        "web_port", \.webPort, C.integer(1...65535, "a TCP port like 8080"), .web, "the web page's port"),
      ConfigKey(
        "web_bind", \.webBind,
        C.optional(C.text("an IPv4 or IPv6 address of this machine, like 192.168.1.20") { Self.isAddress($0) }),
        .web, "the one address the page listens on (default: every interface)", example: "127.0.0.1"),
      ConfigKey(
        "web_view", \.webView, C.choice(WebView.allCases.map { ($0.rawValue, $0) }, "open or paired"), .web,
        "who sees the page: anyone on the LAN (open) or paired browsers only"),
      ConfigKey(
        "hook_command", \.hookCommand, C.optional(C.text("an executable's absolute path") { Self.isPath($0) }),
        .hooks, "run on every change with the event and the state (docs/hooks.md)",
        example: "/etc/pomodoro/hooks/ntfy"),
      ConfigKey(
        "webhook_url", \.webhookURL,
        C.optional(C.text("an http:// or https:// address, like https://ntfy.sh/my-desk") { Self.isWebhook($0) }),
        .hooks, "POSTed the same JSON on every change", example: "https://ntfy.sh/my-desk"),
      ConfigKey(
        "webhook_headers", \.webhookHeaders, C.optional(C.text("a file's absolute path") { Self.isPath($0) }),
        .hooks, "a file of `Name: value` lines sent with each webhook (a token)",
        example: "/etc/pomodoro/webhook.headers"),
      ConfigKey(
        "hook_timeout", \.hookTimeout, C.duration(seconds(1)...minutes(10), "a duration from 1s to 10m, like 10s"),
        .hooks, "a hook or webhook that runs longer is ended"),
    ]
    return keys
  }
}

extension Mode {
  /// The config key of this mode's preset (nil for flow, which has none). The config says
  /// `short_break` where the control protocol, the transcript and the `modes` key say `short`:
  /// both are interfaces, mapped here once.
  public var configKey: String? {
    switch self {
    case .flow: return nil
    case .focus: return "focus"
    case .shortBreak: return "short_break"
    case .longBreak: return "long_break"
    case .soft: return "soft"
    case .medium: return "medium"
    case .hard: return "hard"
    }
  }
}

/// How one kind of value reads from and writes to config text.
struct ConfigCodec<Value> {
  var expected: String
  var parse: (String) -> Value?
  /// nil: unset, not written.
  var format: (Value) -> String?
  /// What is wrong with a value `parse` refuses (nil: the key's error says what is expected).
  var problem: (String) -> String? = { _ in nil }
  /// Whether an empty value is a value (`quiet_hours =`: off) rather than a line without one.
  var takesEmpty = false
}

/// The kinds of value the keys take.
enum ConfigCodecs {
  static var flag: ConfigCodec<Bool> {
    ConfigCodec<Bool>(expected: "true or false") { v in
      switch v.lowercased() {
      case "true", "yes", "on": return true
      case "false", "no", "off": return false
      default: return nil
      }
    } format: {
      $0 ? "true" : "false"
    }
  }

  static func duration(_ range: ClosedRange<Nanoseconds>, _ expected: String) -> ConfigCodec<Nanoseconds> {
    ConfigCodec<Nanoseconds>(expected: expected) { v in
      DurationText.parse(v).flatMap { range.contains($0) ? $0 : nil }
    } format: {
      DurationText.format($0)
    }
  }

  /// A duration or `never` (nil).
  static func durationOrNever(_ range: ClosedRange<Nanoseconds>, _ expected: String) -> ConfigCodec<Nanoseconds?> {
    ConfigCodec<Nanoseconds?>(expected: expected) { v in
      guard let d = DurationText.parseOrNever(v) else { return nil }
      if let d, !range.contains(d) { return nil }
      return .some(d)
    } format: {
      DurationText.formatOrNever($0)
    }
  }

  /// A preset's duration, as the dial takes it.
  static var preset: ConfigCodec<Nanoseconds?> {
    ConfigCodec<Nanoseconds?>(expected: "a duration from 5s to 23h59m59s, like 25m or 1m30s") { v in
      guard let d = DurationText.parse(v), d >= Dial.shortest, d <= Dial.longest else { return nil }
      return .some(d)
    } format: {
      $0.map(DurationText.format)
    }
  }

  /// A whole number in `range`, decimal or `0x` hexadecimal (written in hex when `hex`).
  static func integer<I: FixedWidthInteger>(_ range: ClosedRange<Int>, _ expected: String, hex: Bool = false)
    -> ConfigCodec<I>
  {
    ConfigCodec<I>(expected: expected) { v in
      let hexDigits = v.hasPrefix("0x") ? v.dropFirst(2) : nil
      if let hexDigits, hexDigits.isEmpty || !hexDigits.allSatisfy(\.isHexDigit) { return nil }
      guard let n = hexDigits.map({ Int($0, radix: 16) }) ?? Int(v), range.contains(n) else { return nil }
      return I(n)
    } format: {
      hex ? PomodoroDrivers.hex(UInt8(truncatingIfNeeded: $0)) : String($0)
    }
  }

  /// One of `choices` (their names compared without case).
  static func choice<V: Equatable>(_ choices: [(String, V)], _ expected: String) -> ConfigCodec<V> {
    ConfigCodec<V>(expected: expected) { v in
      choices.first { $0.0 == v.lowercased() }?.1
    } format: { value in
      choices.first { $0.1 == value }?.0
    }
  }

  static func text(_ expected: String, valid: @escaping (String) -> Bool) -> ConfigCodec<String> {
    ConfigCodec<String>(expected: expected) {
      valid($0) ? $0 : nil
    } format: {
      $0
    }
  }

  /// A key unset by default: absent from the config the writer writes.
  static func optional<V>(_ codec: ConfigCodec<V>) -> ConfigCodec<V?> {
    ConfigCodec<V?>(expected: codec.expected) {
      codec.parse($0).map { .some($0) }
    } format: {
      $0.flatMap(codec.format)
    }
  }

  /// Mode names (the control protocol's: `short`, not `short_break`), each once, separated by
  /// spaces (or commas): the knob's cycle.
  static var modes: ConfigCodec<[Mode]> {
    let names = Mode.allCases.map(\.rawValue).joined(separator: " ")
    func words(_ v: String) -> [String] {
      v.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
    }
    func problem(_ v: String) -> String? {
      var seen: Set<String> = []
      for word in words(v) {
        if Mode(rawValue: word) == nil {
          return "'modes' names '\(TextLines.visible(word))', which is no mode; the modes are \(names)"
        }
        if !seen.insert(word).inserted { return "'modes' names '\(word)' twice; name each mode once" }
      }
      return nil
    }
    return ConfigCodec<[Mode]>(
      expected: "mode names from \(names), each once, separated by spaces, like focus short flow"
    ) { v in
      let modes = words(v).compactMap(Mode.init(rawValue:))
      guard !modes.isEmpty, problem(v) == nil else { return nil }
      return modes
    } format: {
      $0.map(\.rawValue).joined(separator: " ")
    } problem: {
      problem($0)
    }
  }

  /// A GPIO line: a name like GPIO17 or an offset.
  static var line: ConfigCodec<String> {
    text("a line name like GPIO17 or an offset like 17") {
      $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }
  }

  /// One topic level: a desk's id, never one the rooms' topics take (`room`: its own topics would
  /// be every room's).
  static var topicLevel: ConfigCodec<String> {
    text("letters, digits, - and _ (a topic level), like desk-1, but not room (the rooms' topics: <prefix>/room/...)") {
      $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } && !RoomNames.reserved.contains($0)
    }
  }

  /// Topic levels without wildcards.
  static func topic(_ expected: String) -> ConfigCodec<String> {
    text(expected) {
      !$0.contains("+") && !$0.contains("#") && !$0.contains(" ") && !$0.hasPrefix("/") && !$0.hasSuffix("/")
    }
  }

  /// Two local times of day, `22:00-07:00`, or `off` (nil; an empty value too).
  static var quietHours: ConfigCodec<QuietHours?> {
    let expected = "two local times of day, from-to, like 22:00-07:00 (it may span midnight), or off"
    var codec = ConfigCodec<QuietHours?>(
      expected: expected,
      parse: { v in
        if v.isEmpty || v.lowercased() == "off" { return .some(nil) }
        guard case .success(let hours) = QuietHours.parse(v) else { return nil }
        return .some(hours)
      },
      format: { $0?.text ?? "off" },
      problem: { v in
        guard case .failure(let refusal) = QuietHours.parse(v) else { return nil }
        return "bad value '\(TextLines.visible(v))' for 'quiet_hours': \(refusal.message); expected \(expected)"
      })
    codec.takesEmpty = true
    return codec
  }

  /// `auto` (nil) or a value of `codec`.
  static func auto<V>(_ codec: ConfigCodec<V>) -> ConfigCodec<V?> {
    ConfigCodec<V?>(expected: codec.expected.hasSuffix("auto") ? codec.expected : codec.expected + ", or auto") {
      $0.lowercased() == "auto" ? .some(nil) : codec.parse($0).map { .some($0) }
    } format: {
      $0.flatMap(codec.format) ?? "auto"
    }
  }

  /// A built-in tune's name or RTTTL (docs/sound.md); a refusal says where in the tune and what
  /// was expected there.
  static func tune(_ key: String) -> ConfigCodec<Tune> {
    ConfigCodec<Tune>(expected: BuiltInTunes.expected) {
      try? BuiltInTunes.read($0).get()
    } format: {
      $0.source
    } problem: { v in
      guard case .failure(let refusal) = BuiltInTunes.read(v) else { return nil }
      let hint = v.contains(":") ? "" : "; no built-in tune is called '\(TextLines.visible(v))'"
      return "bad value '\(TextLines.visible(v))' for '\(key)': \(refusal)\(hint); expected \(BuiltInTunes.expected)"
    }
  }

  /// An absolute socket path, or `off` (nil).
  static var socket: ConfigCodec<String?> {
    ConfigCodec<String?>(expected: "an absolute socket path like /run/pomodoro/control.sock, or off") { v in
      if v == "off" { return .some(nil) }
      guard v.hasPrefix("/"), v.utf8.count < 108, !v.contains(" ") else { return nil }
      return .some(v)
    } format: {
      $0 ?? "off"
    }
  }
}
