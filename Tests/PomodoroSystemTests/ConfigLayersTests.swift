import PomodoroControl
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroConfig

/// The settings from `pomodoro ctl config` and the page, as layers: the defaults, the config
/// file, the overlay (issue 28, item 5). Pure: no device, no disk.
final class ConfigLayersTests: XCTestCase {
  static let file = "/etc/pomodoro/pomodoro.conf"
  static let fileText = "# the owner's\nshort_break = 7m\nfocus = 50m\ncontrast = 100\n"

  func fileLayers() throws -> ConfigLayers {
    ConfigLayers(
      file: Self.file, fileConfig: try ConfigParser.parse(Self.fileText, file: Self.file),
      fileLines: ConfigParser.lines(in: Self.fileText))
  }

  func set(_ layers: ConfigLayers, _ key: String, _ value: String) throws -> ConfigLayers {
    switch layers.setting(key, to: value) {
    case .success((let next, let setKey)):
      XCTAssertEqual(setKey.name, key)
      return next
    case .failure(let refusal): throw refusal
    }
  }

  /// The issue's keys, and only keys SIGHUP applies at once, are settable.
  func testTheSettableKeysAreTheLiveOnesTheIssueNames() {
    let names = ConfigKey.settableKeys.map(\.name)
    XCTAssertEqual(names, ConfigKey.all.filter { $0.applies == .live }.map(\.name))
    for name in [
      "focus", "short_break", "long_break", "soft", "medium", "hard", "long_break_every", "auto_start", "modes",
      "flow_break_ratio", "alarm_timeout", "egg_alarm_timeout", "dim_after", "blank_after", "shift_every", "click",
    ] {
      XCTAssertTrue(names.contains(name), name)
    }
    for name in ["contrast", "i2c_address", "state_dir", "control_socket", "mqtt_host", "encoder_a"] {
      XCTAssertFalse(names.contains(name), name)
    }
  }

  /// Defaults < the file < the overlay; each value says where it comes from.
  func testTheOverlayWinsOverTheFileWhichWinsOverTheDefaults() throws {
    let layers = try set(try fileLayers(), "focus", "30m")
    XCTAssertEqual(layers.config.engine.presets[.focus], minutes(30), "the overlay wins")
    XCTAssertEqual(layers.config.engine.presets[.shortBreak], minutes(7), "the file's")
    XCTAssertEqual(layers.config.engine.presets[.longBreak], minutes(15), "the default")
    XCTAssertEqual(layers.config.contrast, 100, "the file's key read only at start")
    XCTAssertEqual(layers.from("focus"), "set")
    XCTAssertEqual(layers.from("short_break"), "\(Self.file):2")
    XCTAssertEqual(layers.from("long_break"), "default")
    let item = try XCTUnwrap(
      ControlProtocol.decodeItem(ControlProtocol.itemLine(layers.item(ConfigKey.named["focus"]!))))
    XCTAssertEqual(item.kind, "config")
    XCTAssertEqual(item.fields["key"], .string("focus"))
    XCTAssertEqual(item.fields["value"], .string("30m"))
    XCTAssertEqual(item.fields["from"], .string("set"))
    XCTAssertEqual(item.fields["about"], .string("the Focus preset"))
    XCTAssertEqual(item.fields["accepts"], .string("a duration from 5s to 23h59m59s, like 25m or 1m30s"))
    XCTAssertEqual(layers.items.count, ConfigKey.settableKeys.count)
    XCTAssertTrue(
      layers.items.map(ControlProtocol.itemLine).allSatisfy { $0.hasPrefix("{\"item\":\"config\",\"key\":") })

    let reset = try XCTUnwrap(try? layers.resetting("focus").get().0)
    XCTAssertEqual(reset.config.engine.presets[.focus], minutes(50), "back to the file's value")
    XCTAssertEqual(reset.from("focus"), "\(Self.file):3")
    XCTAssertEqual(reset.overlay, [:])
    XCTAssertEqual(reset.config, try fileLayers().config)
  }

  /// A value is read as the config file reads it: normalised as the config writes it, and a
  /// bad one refused with the config file's own message (after its FILE:LINE).
  func testASetIsValidatedAsTheFileIsWithTheSameMessage() throws {
    let layers = try fileLayers()
    XCTAssertEqual(try set(layers, "modes", " focus,flow ").overlay["modes"], "focus flow")
    XCTAssertEqual(try set(layers, "click", "YES").overlay["click"], "true")
    XCTAssertEqual(try set(layers, "alarm_timeout", "never").overlay["alarm_timeout"], "never")
    for (key, value) in [
      ("focus", "2"), ("focus", "24h"), ("focus", ""), ("modes", "focus focus"), ("modes", "focus nap"),
      ("long_break_every", "13"), ("click", "maybe"), ("alarm_timeout", "2h"), ("dim_after", "1s"), ("nope", "1"),
      ("Focus", "25m"),
    ] {
      let fileError: ConfigError
      do {
        _ = try ConfigParser.parse("\(key) = \(value)\n", file: "f.conf")
        XCTFail("the file takes \(key) = \(value)")
        continue
      } catch let error as ConfigError {
        fileError = error
      }
      XCTAssertEqual(
        layers.setting(key, to: value).map { $0.0 }, .failure(.init(fileError.message)), "\(key) = \(value)")
    }
  }

  /// A key read only at start, or the bridge's, is refused, saying where it is set and the
  /// restart that applies it.
  func testAKeyReadOnlyAtStartOrTheBridgesIsRefusedWithWhereAndTheRestart() throws {
    let layers = try fileLayers()
    for key in ConfigKey.all where !key.settable {
      guard case .failure(let refusal) = layers.setting(key.name, to: ConfigKey.all[0].defaultValue ?? "x") else {
        XCTFail(key.name)
        continue
      }
      XCTAssertTrue(refusal.message.hasPrefix("'\(key.name)' "), refusal.message)
      XCTAssertTrue(
        refusal.message.hasSuffix(": set it in \(Self.file), then \(key.applies.command!) applies it"), refusal.message)
      XCTAssertEqual(layers.resetting(key.name).map { $0.0 }, .failure(refusal), key.name)
    }
    XCTAssertEqual(
      layers.setting("contrast", to: "100").map { $0.0 },
      .failure(
        .init(
          "'contrast' is read only when the device starts: set it in \(Self.file), then sudo systemctl restart pomodoro "
            + "applies it")))
  }

  /// The overlay's text: a header saying who writes it and how to undo it, then its keys in
  /// the table's order, which the config's own parser reads back.
  func testTheOverlayTextReadsBackWithTheConfigsParser() throws {
    var layers = try set(try fileLayers(), "modes", "focus short flow")
    layers = try set(layers, "focus", "30m")
    layers = try set(layers, "click", "true")
    let text = layers.overlayText
    XCTAssertTrue(text.hasPrefix("# Written by the pomodoro device"), text)
    XCTAssertTrue(text.contains("pomodoro ctl config reset KEY"), text)
    XCTAssertTrue(text.hasSuffix("focus = 30m\nmodes = focus short flow\nclick = true\n"), text)
    let parsed = try ConfigParser.parse(text, file: "settings.conf")
    XCTAssertEqual(parsed.engine.modes, [.focus, .shortBreak, .flow])
    let read = layers.readOverlay(text, path: "/var/lib/pomodoro/settings.conf")
    XCTAssertEqual(read.problems, [])
    XCTAssertEqual(read.overlay, layers.overlay)
    XCTAssertEqual(layers.with(overlay: read.overlay), layers)
  }

  /// A damaged overlay: each bad line is named PATH:LINE with the config's message and ignored;
  /// the good lines stand.
  func testADamagedOverlaysBadLinesAreNamedAndIgnored() throws {
    let path = "/var/lib/pomodoro/settings.conf"
    let text =
      "# header\nfocus = 30m\nfocus = 31m\nshort_break = 2\ncontrast = 10\nbogus\nclick = true\n"
      + "mod\u{1B}es = x\n"
    let (overlay, problems) = try fileLayers().readOverlay(text, path: path)
    XCTAssertEqual(overlay, ["focus": "30m", "click": "true"])
    XCTAssertEqual(
      problems.map(\.description),
      [
        "\(path):3: 'focus' is set twice (first on line 2); keep one",
        "\(path):4: bad value '2' for 'short_break'; expected a duration from 5s to 23h59m59s, like 25m or 1m30s",
        "\(path):5: 'contrast' is read only when the device starts: set it in \(Self.file), then sudo systemctl "
          + "restart pomodoro applies it",
        "\(path):6: expected `key = value`, found 'bogus'",
        "\(path):8: an invisible character \\u{1B} in 'mod\\u{1B}es = x'; delete it",
      ])
  }

  /// The commands as `pomodoro ctl` words and as requests; each reads back from its request line.
  func testTheConfigCommandsReadFromWordsAndRequests() {
    XCTAssertEqual(ControlCommand.parse(words: ["config"]), .success(.config))
    XCTAssertEqual(
      ControlCommand.parse(words: ["config", "set", "modes", "focus", "short", "flow"]),
      .success(.configSet(key: "modes", value: "focus short flow")))
    XCTAssertEqual(ControlCommand.parse(words: ["config", "reset", "focus"]), .success(.configReset(key: "focus")))
    XCTAssertEqual(
      ControlCommand.parse(words: ["config_set", "focus", "30m"]), .success(.configSet(key: "focus", value: "30m")))
    XCTAssertEqual(
      ControlCommand.parse(json: #"{"cmd":"config_set","key":"modes","value":"focus flow"}"#),
      .success(.configSet(key: "modes", value: "focus flow")))
    XCTAssertEqual(ControlCommand.parse(json: #"{"cmd":"config"}"#), .success(.config))
    XCTAssertEqual(
      ControlCommand.parse(json: #"{"cmd":"config_reset","key":"click"}"#), .success(.configReset(key: "click")))
    for command in [ControlCommand.config, .configSet(key: "modes", value: "focus flow"), .configReset(key: "click")] {
      XCTAssertEqual(ControlCommand.parse(json: command.requestLine), .success(command))
      XCTAssertTrue(command.isConfig)
    }
    XCTAssertEqual(
      ControlCommand.parse(words: ["config", "set", "focus"]),
      .failure(.init("config: set takes a key and a value, like: config set focus 30m")))
    XCTAssertEqual(
      ControlCommand.parse(words: ["config", "reset"]),
      .failure(.init("config: reset takes one key, like: config reset focus")))
    XCTAssertEqual(
      ControlCommand.parse(words: ["config", "show"]),
      .failure(.init("config: 'show' is neither set nor reset; config, config set KEY VALUE or config reset KEY")))
    XCTAssertEqual(
      ControlCommand.parse(json: #"{"cmd":"config_set","key":"focus"}"#),
      .failure(
        .init(#"config_set needs "key" and "value", like {"cmd":"config_set","key":"focus","value":"30m"}"#)))
    XCTAssertEqual(
      ControlProtocol.events(for: .configSet(key: "focus", value: "30m"), in: .running), .success([]),
      "no engine event: the settings answer it, in any phase")
    XCTAssertEqual(Array(ControlCommand.names.suffix(3)), ["config", "config_set", "config_reset"])
  }
}
