import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroSystem
import XCTest

final class ConfigTests: XCTestCase {
  func parse(_ text: String) throws -> DeviceConfig { try ConfigParser.parse(text, file: "/etc/p.conf") }

  func error(_ text: String) -> ConfigError? {
    do {
      _ = try parse(text)
      return nil
    } catch let e as ConfigError {
      return e
    } catch {
      return nil
    }
  }

  func testTheCommentedExampleInDeployIsTheDefaults() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../deploy/pomodoro.conf")
    let text = try String(contentsOf: url, encoding: .utf8)
    XCTAssertEqual(try parse(text), DeviceConfig(), "deploy/pomodoro.conf states every default")
    XCTAssertEqual(try parse(""), DeviceConfig())
  }

  func testEveryKeyIsReadIntoItsField() throws {
    let c = try parse(
      """
      chip = pinctrl-rp1   # a Pi 5
      encoder_a = 5
      encoder_b = GPIO6
      inputs_active_low = false
      buzzer_active_high = no
      debounce = 5ms
      long_press = 1.5s
      encoder_detent = 2
      encoder_invert = true
      i2c_bus = 3
      i2c_address = 0x3d
      controller = SH1106
      size = 128x32
      rotate = 180
      contrast = 0x10
      focus = 50m
      short_break = 1m30s
      long_break_every = 3
      auto_start = yes
      alarm_timeout = 2m
      click = on
      state_dir = /tmp/pomo
      """)
    XCTAssertEqual(c.chip, "pinctrl-rp1")
    XCTAssertEqual(c.encoderA, "5")
    XCTAssertEqual(c.encoderB, "GPIO6")
    XCTAssertFalse(c.inputsActiveLow)
    XCTAssertFalse(c.buzzerActiveHigh)
    XCTAssertEqual(c.debounce, ms(5))
    XCTAssertEqual(c.longPress, ms(1500))
    XCTAssertEqual(c.encoderDetent, 2)
    XCTAssertTrue(c.encoderInvert)
    XCTAssertEqual(c.i2cBus, 3)
    XCTAssertEqual(c.i2cAddress, 0x3D)
    XCTAssertEqual(c.controller, .sh1106)
    XCTAssertEqual(c.height, 32)
    XCTAssertTrue(c.rotate180)
    XCTAssertEqual(c.contrast, 16)
    XCTAssertEqual(c.engine.preset(.focus), minutes(50))
    XCTAssertEqual(c.engine.preset(.shortBreak), seconds(90))
    XCTAssertEqual(c.engine.longBreakEvery, 3)
    XCTAssertTrue(c.engine.autoStart)
    XCTAssertEqual(c.engine.alarmTimeout, minutes(2))
    XCTAssertTrue(c.click)
    XCTAssertEqual(c.stateDirectory, "/tmp/pomo")
  }

  func testUnknownKeyNamesFileLineAndKnownKeys() {
    let e = error("focus = 20m\n\nfocuss = 25m\n")
    XCTAssertEqual(e?.line, 3)
    XCTAssertEqual(e?.file, "/etc/p.conf")
    XCTAssertTrue(e!.description.hasPrefix("/etc/p.conf:3: unknown key 'focuss'"), e!.description)
    XCTAssertTrue(e!.message.contains("focus"))
  }

  func testBadValueSaysWhatIsExpected() {
    let cases: [(String, String)] = [
      ("focus = 25", "a duration from 5s to 23h59m59s"),
      ("focus = 2s", "a duration from 5s"),
      ("focus = 24h", "a duration from 5s"),
      ("controller = ssd1309", "ssd1306 or sh1106"),
      ("size = 128x48", "128x64 or 128x32"),
      ("i2c_address = 0x78", "7-bit address"),
      ("rotate = 90", "0 or 180"),
      ("contrast = 300", "0 to 255"),
      ("encoder_detent = 3", "1, 2 or 4"),
      ("auto_start = maybe", "true or false"),
      ("encoder_a = GPIO 17", "line name"),
      ("state_dir = var/lib", "absolute directory"),
      ("debounce = 1s", "0ms to 500ms"),
    ]
    for (line, expected) in cases {
      let e = error("# first\n" + line)
      XCTAssertEqual(e?.line, 2, line)
      XCTAssertTrue(e?.message.contains(expected) ?? false, "\(line): \(e?.message ?? "no error")")
      XCTAssertTrue(e?.message.contains("bad value") ?? false, line)
    }
  }

  /// The passive buzzer's keys (docs/sound.md): a tune is a built-in name or RTTTL (its `=`,
  /// `:`, `,` and `#` kept), and a bad one names the line, the character and what was expected.
  func testTunesAreBuiltInNamesOrRTTTLAndABadOneSaysWhere() throws {
    let c = try parse(
      "buzzer_kind = passive\npwm_chip = 1f00098000.pwm\npwm_channel = 2\nalarm_tune = Ode\n"
        + "break_tune = mine:d=8,o=6,b=140:c#,e,g#  # a comment\negg_tune = cuckoo\nvolume = 10\ntick = fade\n")
    XCTAssertEqual(c.buzzerKind, .passive)
    XCTAssertEqual(c.pwmChip, "1f00098000.pwm")
    XCTAssertEqual(c.pwmChannel, 2)
    XCTAssertEqual(c.alarmTune.source, "ode")
    XCTAssertEqual(c.breakTune.source, "mine:d=8,o=6,b=140:c#,e,g#")
    XCTAssertEqual(c.breakTune.notes.map(\.midi), [85, 88, 92])
    XCTAssertEqual(c.volume, 10)
    XCTAssertEqual(c.tick, .fade)
    XCTAssertEqual(try parse("pwm_chip = auto\npwm_channel = AUTO\n").pwmChannel, nil)
    XCTAssertTrue(ConfigParser.text(of: c).contains("break_tune = mine:d=8,o=6,b=140:c#,e,g#\n"))
    let cases: [(String, String)] = [
      (
        "alarm_tune = mine:d=8,o=6,b=140:c,e#",
        "'alarm_tune': at character 23: expected a sharp only on c, d, f, g or a"
      ),
      ("egg_tune = beep", "'egg_tune': at character 5: expected a tune like name:d=4,o=5,b=120:c,e,g"),
      ("egg_tune = beep", "no built-in tune is called 'beep'; expected a built-in tune (chime, westminster"),
      ("volume = 11", "a number from 1 (soft) to 10 (loud)"),
      ("pwm_channel = 16", "a channel from 0 to 15, or auto"),
      ("tick = loud", "off, on or fade"),
      ("buzzer_kind = piezo", "active or passive"),
    ]
    for (line, expected) in cases {
      let e = error("# first\n" + line)
      XCTAssertEqual(e?.line, 2, line)
      XCTAssertTrue(e?.message.contains(expected) ?? false, "\(line): \(e?.message ?? "no error")")
    }
  }

  func testModesIsTheKnobsCycleAndAnUnknownOrRepeatedNameIsAnErrorNamingTheLine() throws {
    let c = try parse("modes = flow  short\tfocus\nflow_break_ratio = 3\n")
    XCTAssertEqual(c.engine.modes, [.flow, .shortBreak, .focus])
    XCTAssertEqual(c.engine.flowBreakRatio, 3)
    XCTAssertEqual(DeviceConfig().engine.modes, Mode.allCases)
    let unknown = error("# first\nmodes = focus short_break flow")
    XCTAssertEqual(unknown?.line, 2)
    XCTAssertEqual(
      unknown?.message,
      "'modes' names 'short_break', which is no mode; the modes are focus short long soft medium hard flow")
    let twice = error("# first\n\nmodes = focus flow short flow")
    XCTAssertEqual(twice?.line, 3)
    XCTAssertEqual(twice?.message, "'modes' names 'flow' twice; name each mode once")
    XCTAssertEqual(error("modes = ,")?.message.hasPrefix("bad value ',' for 'modes'"), true)
    XCTAssertEqual(error("flow_break_ratio = 0")?.message.contains("a number from 1 to 60"), true)
  }

  func testDuplicateKeyNamesBothLines() {
    let e = error("focus = 20m\nshort_break = 4m\nfocus = 30m")
    XCTAssertEqual(e?.line, 3)
    XCTAssertEqual(e?.message, "'focus' is set twice (first on line 1); keep one")
  }

  func testLineWithoutEqualsAndEmptyValue() {
    XCTAssertEqual(error("focus 25m")?.message, "expected `key = value`, found 'focus 25m'")
    XCTAssertEqual(error("focus =   # nothing")?.message.hasPrefix("'focus' has no value"), true)
  }

  /// `quiet_hours`: two times of day (spanning midnight or not), `off` or an empty value for
  /// none; anything else is the config file's message naming the line, the value and the fix.
  func testQuietHoursTakeTwoTimesOrOffAndRefuseTheRestNamingTheLine() throws {
    XCTAssertEqual(try parse("quiet_hours = 22:00-07:00").quietHours, QuietHours(start: 1320, end: 420))
    XCTAssertEqual(try parse("quiet_hours = 7:05 - 9:30").quietHours, QuietHours(start: 425, end: 570))
    XCTAssertNil(try parse("quiet_hours = off").quietHours)
    XCTAssertNil(try parse("quiet_hours =   # none").quietHours)
    XCTAssertEqual(try parse("quiet_panel = dim").quietPanel, .dim)
    let cases = [
      ("22:00", "'22:00' is not two times of day joined by '-'"),
      ("25:00-07:00", "'25:00' is no time of day (hours 0 to 23, minutes 00 to 59, like 07:00)"),
      ("22:00-7", "'7' is no time of day"),
      ("22:60-07:00", "'22:60' is no time of day"),
      ("10pm-7am", "'10pm' is no time of day"),
      ("22:00-07:00-08:00", "is not two times of day joined by '-'"),
      ("07:00-07:00", "starts and ends at the same time; for no quiet hours: off"),
      ("22:00-\u{FF17}:00", "is no time of day"),
    ]
    for (value, message) in cases {
      let e = error("# night\nquiet_hours = \(value)")
      XCTAssertEqual(e?.line, 2, value)
      XCTAssertTrue(e?.message.hasPrefix("bad value '") ?? false, "\(value): \(e?.message ?? "accepted")")
      XCTAssertTrue(e?.message.contains(message) ?? false, "\(value): \(e?.message ?? "accepted")")
      XCTAssertTrue(e?.message.hasSuffix("like 22:00-07:00 (it may span midnight), or off") ?? false, value)
    }
    XCTAssertEqual(error("quiet_panel = dark")?.message, "bad value 'dark' for 'quiet_panel'; expected off or dim")
  }

  /// The window and its boundaries, from the wall clock's local time: inside, the next boundary
  /// is the end (the next day's when it spans midnight), outside the start.
  func testQuietHoursBoundariesAcrossMidnight() throws {
    let night = try XCTUnwrap(QuietHours(start: 22 * 60, end: 7 * 60))
    XCTAssertTrue(night.contains(minute: 22 * 60))
    XCTAssertTrue(night.contains(minute: 0))
    XCTAssertTrue(night.contains(minute: 7 * 60 - 1))
    XCTAssertFalse(night.contains(minute: 7 * 60))
    XCTAssertFalse(night.contains(minute: 21 * 60 + 59))
    let day = try XCTUnwrap(QuietHours(start: 13 * 60, end: 14 * 60))
    XCTAssertTrue(day.contains(minute: 13 * 60 + 30))
    XCTAssertFalse(day.contains(minute: 23 * 60))
    let base = WallTime(epochSeconds: 1_796_040_000, synced: true)
    let at2159 = WallTime(epochSeconds: base.localToday(minuteOfDay: 21 * 60 + 59) + 30, synced: true)
    XCTAssertEqual(at2159.localSecondOfDay, (21 * 60 + 59) * 60 + 30)
    let (quiet, start) = night.at(at2159)
    XCTAssertFalse(quiet)
    XCTAssertEqual(start - at2159.epochSeconds, 30, "22:00 is 30 s away")
    let at2200 = WallTime(epochSeconds: start, synced: true)
    let (quietThen, end) = night.at(at2200)
    XCTAssertTrue(quietThen)
    XCTAssertEqual(WallTime(epochSeconds: end, synced: true).localSecondOfDay, 7 * 3600)
    XCTAssertEqual(
      WallTime(epochSeconds: end, synced: true).localCivilDay, at2200.localCivilDay.adding(1), "07:00 the next day")
    XCTAssertGreaterThan(end - start, 8 * 3600, "about nine hours (DST may move it by one)")
    XCTAssertLessThan(end - start, 10 * 3600)
  }

  func testDurationText() {
    XCTAssertEqual(DurationText.parse("1m30s"), seconds(90))
    XCTAssertEqual(DurationText.parse("2.5s"), ms(2500))
    XCTAssertEqual(DurationText.parse("500ms"), ms(500))
    XCTAssertEqual(DurationText.parse("1h2m3s4ms"), seconds(3723) + ms(4))
    XCTAssertEqual(DurationText.parse("0.001s"), ms(1))
    for bad in ["", "25", "m", "1s1m", "1x", "1..5s", "-3s", "1.s", "5m5m"] {
      XCTAssertNil(DurationText.parse(bad), bad)
    }
    for d in [ms(1), seconds(90), minutes(25), seconds(3723) + ms(4)] {
      XCTAssertEqual(DurationText.parse(DurationText.format(d)), d)
    }
  }
}
