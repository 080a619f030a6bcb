import Foundation
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import XCTest

@testable import PomodoroConfig

/// `ConfigKey.all` is the one table of the settings: the parser, the writer, SIGHUP's reload,
/// deploy/pomodoro.conf and docs/settings.md follow it.
final class ConfigKeyTests: XCTestCase {
  static func repoFile(_ path: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../" + path)
    return try String(contentsOf: url, encoding: .utf8)
  }

  /// Values to try on each key; the first that the key takes and that is not its default is
  /// the key's "other" value.
  static let candidates = [
    "false", "true", "2", "180", "128x32", "sh1106", "GPIO5", "0x3d", "7m", "9m", "300ms", "never", "off", "/tmp/other",
    "desk-2", "9", "example.org", "https://example.org/hook", "focus flow", "127.0.0.1", "paired", "22:00-07:00", "dim",
    "passive", "ode", "fade", "low", "focus 9m",
  ]

  static func otherValue(_ key: ConfigKey) -> String? {
    candidates.first { text in
      var c = DeviceConfig()
      return key.read(&c, text) && key.value(c) != key.defaultValue
    }
  }

  /// What a key's line needs before it: `profile = NAME` a line defining the profile NAME.
  static func prelude(_ key: ConfigKey, _ other: String) -> String {
    key.name == ProfileLines.key ? "\(ProfileLines.key) \(other) = focus 9m\n" : ""
  }

  func testEveryKeyHasAnotherValueThatChangesItAloneAndRoundTrips() throws {
    XCTAssertEqual(Set(ConfigKey.all.map(\.name)).count, ConfigKey.all.count, "one row a key")
    for key in ConfigKey.all {
      let other = try XCTUnwrap(Self.otherValue(key), "no candidate value for \(key.name)")
      let base = try ConfigParser.parse(Self.prelude(key, other), file: "t.conf")
      let config = try ConfigParser.parse(Self.prelude(key, other) + "\(key.name) = \(other)\n", file: "t.conf")
      let differing = ConfigKey.all.filter { $0.differs(base, config) }.map(\.name)
      XCTAssertEqual(differing, [key.name], "setting \(key.name) changes that key alone")
      XCTAssertNotEqual(config, base, key.name)
      XCTAssertEqual(try ConfigParser.parse(ConfigParser.text(of: config), file: "w.conf"), config, key.name)
      var copied = base
      key.copy(&copied, config)
      XCTAssertEqual(copied, config, "copy takes \(key.name)")
    }
  }

  /// deploy/pomodoro.conf carries a line for every key, in the table's order: `key = default`,
  /// or `# key = example` for a key unset by default; it has no other key line.
  func testTheShippedConfigHasEveryKeysLineInTheTablesOrder() throws {
    let text = try Self.repoFile("deploy/pomodoro.conf")
    let names = Set(ConfigKey.all.map(\.name))
    let keyLines = text.split(separator: "\n").map(String.init).filter { line in
      let bare = line.hasPrefix("# ") ? String(line.dropFirst(2)) : line
      guard let eq = bare.range(of: " =") else { return false }
      let key = String(bare[..<eq.lowerBound])
      return names.contains(key) || ProfileLines.member(key) != nil
    }
    XCTAssertEqual(keyLines, ConfigKey.all.map(\.exampleLine))
    XCTAssertEqual(try ConfigParser.parse(text, file: "deploy/pomodoro.conf"), DeviceConfig())
  }

  /// The table in docs/settings.md, one row a key: name, default, when a change applies, what
  /// it is for. On a mismatch the message holds the table to paste.
  func testTheSettingsPageListsEveryKeyAsTheTableHasIt() throws {
    let page = try Self.repoFile("docs/settings.md")
    let rows = page.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
    let expected = ConfigKey.all.map(Self.settingsRow)
    XCTAssertEqual(rows, expected, "docs/settings.md's table should be:\n" + expected.joined(separator: "\n"))
  }

  static func settingsRow(_ key: ConfigKey) -> String {
    let value = key.defaultValue.map { "`\($0)`" } ?? key.example.map { "unset (e.g. `\($0)`)" } ?? "unset"
    return "| `\(key.name)` | \(value) | \(key.applies.text) | \(key.summary) |"
  }

  /// README's table of the settings that matter groups keys: each row's keys and defaults, in
  /// the same order, are the table's, no key is in it twice, and README sends the reader to
  /// docs/settings.md for the rest (checked above against every key).
  func testReadmesSettingsTableAgreesWithTheTable() throws {
    let readme = try Self.repoFile("README.md")
    let start = try XCTUnwrap(readme.range(of: "| Keys | Default | What |"))
    var seen: [String] = []
    for row in readme[start.upperBound...].split(separator: "\n").dropFirst().prefix(while: { $0.hasPrefix("|") }) {
      let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count >= 2 else { continue }
      let keys = cells[0].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
      let defaults = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      XCTAssertEqual(keys.count, defaults.count, "README row \(row): a default for each key")
      for (name, shown) in zip(keys, defaults) {
        let key = try XCTUnwrap(ConfigKey.named[name], "README names '\(name)', which is no key")
        XCTAssertEqual(shown, key.defaultValue ?? "unset", "README's default of \(name)")
        XCTAssertFalse(seen.contains(name), "README's table has \(name) twice")
        seen.append(name)
      }
    }
    XCTAssertFalse(seen.isEmpty, "README's table of the settings that matter has rows")
    XCTAssertTrue(readme.contains("(docs/settings.md)"), "README links docs/settings.md, which has every key")
  }

  // MARK: SIGHUP

  func reload(_ text: String, running: DeviceConfig = DeviceConfig()) -> ConfigReload.Outcome {
    ConfigReload.reload(text, file: "/etc/p.conf", running: running)
  }

  /// The bug an owner hit: after setting `mqtt_host` as README says, a SIGHUP refused every
  /// change, `focus` included, naming no key. The live key applies; the bridge's key is named
  /// with its line as the bridge's alone.
  func testABridgeKeyDoesNotHoldBackALiveOne() throws {
    var running = DeviceConfig()
    running.mqttHost = "broker.lan"
    guard
      case .apply(let config, let changed, let waiting, _) = reload(
        "mqtt_host = other.lan\nfocus = 50m\n", running: running)
    else { return XCTFail("applies") }
    XCTAssertEqual(changed, ["focus"])
    XCTAssertEqual(config.engine.presets[.focus], minutes(50))
    XCTAssertEqual(config.mqttHost, "other.lan", "the bridge's key is the file's (the device does not use it)")
    XCTAssertEqual(
      waiting,
      [
        "/etc/p.conf:1: 'mqtt_host' changed; it is the MQTT bridge's alone and changes nothing in the device (sudo systemctl restart pomodoro-mqtt applies it)"
      ])
  }

  func testEveryKeyReloadsAsItsRowSays() throws {
    for key in ConfigKey.all {
      let other = try XCTUnwrap(Self.otherValue(key))
      let prelude = Self.prelude(key, other)
      let running = try ConfigParser.parse(prelude, file: "/etc/p.conf")
      guard
        case .apply(let config, let changed, let waiting, _) = reload(
          prelude + "\r\n\(key.name) = \(other)\r\n", running: running)
      else {
        XCTFail(key.name)
        continue
      }
      switch key.applies {
      case .live:
        XCTAssertEqual(changed, [key.name])
        XCTAssertEqual(waiting, [])
        XCTAssertTrue(key.differs(config, running), "\(key.name) applied")
      case .restart, .restartBoth:
        XCTAssertEqual(changed, [])
        XCTAssertEqual(config, running, "\(key.name) waits")
        XCTAssertEqual(waiting.count, 1)
        XCTAssertTrue(waiting.first?.hasPrefix("/etc/p.conf:2: '\(key.name)' changed") ?? false, "\(waiting)")
        XCTAssertEqual(prelude, "", "a key read at start has no prelude (the line above is its second)")
        XCTAssertTrue(waiting.first?.contains("(\(key.applies.command!))") ?? false, "\(waiting)")
      case .bridge:
        XCTAssertEqual(changed, [])
        XCTAssertTrue(waiting.first?.contains("the MQTT bridge's alone") ?? false, "\(waiting)")
      case .web:
        XCTAssertEqual(changed, [])
        XCTAssertTrue(waiting.first?.contains("the web page's server's (pomodoro web) alone") ?? false, "\(waiting)")
        XCTAssertTrue(
          waiting.first?.contains("(sudo systemctl restart pomodoro-web applies it)") ?? false, "\(waiting)")
      case .hooks:
        XCTAssertEqual(changed, [])
        XCTAssertTrue(waiting.first?.contains("the hooks' (pomodoro hooks) alone") ?? false, "\(waiting)")
        XCTAssertTrue(
          waiting.first?.contains("(sudo systemctl restart pomodoro-hooks applies it)") ?? false, "\(waiting)")
      }
    }
  }

  func testAKeyBackToItsDefaultIsNamedWithoutALine() {
    var running = DeviceConfig()
    running.controlSocket = nil
    guard case .apply(_, let changed, let waiting, _) = reload("# no keys\n", running: running) else {
      return XCTFail("applies")
    }
    XCTAssertEqual(changed, [])
    XCTAssertEqual(
      waiting,
      [
        "/etc/p.conf: 'control_socket' changed (back to its default); it takes effect when the device restarts (sudo systemctl restart pomodoro pomodoro-mqtt); until then it runs with the value it had"
      ])
  }

  func testABadConfigIsKeptWithItsLine() {
    XCTAssertEqual(
      reload("focus = 5m\nfocus = 6m\n"),
      .kept(
        "/etc/p.conf:2: 'focus' is set twice (first on line 1); keep one; still running on the config it had (fix it and send SIGHUP again)"
      ))
  }

  // MARK: Values

  func testHexadecimalTakesHexDigitsOnly() throws {
    XCTAssertEqual(try ConfigParser.parse("i2c_address = 0x3d\n", file: "t").i2cAddress, 0x3D)
    for bad in ["0x+3c", "0x-3c", "0x", "0x 3c", "0x3g"] {
      XCTAssertThrowsError(try ConfigParser.parse("i2c_address = \(bad)\n", file: "t"), bad)
    }
  }
}
