import Foundation
import PomodoroCommandLine
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// Issue 12's findings on what is read: each test failed before its fix.
final class ParserHardeningTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func write(_ name: String, _ text: String) -> String { write(name, Data(text.utf8)) }

  func write(_ name: String, _ data: Data) -> String {
    let path = directory + "/" + name
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data))
    return path
  }

  func configError(_ text: String, pins: PinSet? = nil) -> ConfigError? {
    do {
      _ = try ConfigParser.parse(text, file: "p.conf", pins: pins)
      return nil
    } catch {
      return error as? ConfigError
    }
  }

  // MARK: 1. Durations that overflowed

  func testDurationsThatOverflowedAreExactOrRefused() {
    XCTAssertEqual(DurationText.parse("0.4166667h"), 1_500_000_120_000)
    XCTAssertEqual(DurationText.parse("1.999999999h"), 7_199_999_996_400)
    XCTAssertEqual(DurationText.parse("0.999999999m"), 59_999_999_940)
    XCTAssertEqual(DurationText.parse("0.0000000015s"), nil, "at most 9 decimals")
    XCTAssertEqual(DurationText.parse("0.3333333333ms"), nil)
    XCTAssertEqual(DurationText.parse("0.333333333ms"), 333_333, "rounded to the nearest nanosecond")
    XCTAssertEqual(DurationText.parse("0.666666667ms"), 666_667)
    for bad in [
      "1h9223372035s", "9223372036854775807h", "99999999999999999999s", "10000h1ms", "9223372036s9223372036ms",
      "٣s", "1h 2m",
    ] {
      XCTAssertNil(DurationText.parse(bad), bad)
    }
    XCTAssertEqual(DurationText.parse("10000h"), DurationText.longest)
    XCTAssertEqual(DurationText.format(1_500_000_120_000), "25m0.12ms")
    XCTAssertEqual(DurationText.format(1), "0.000001ms")
    XCTAssertEqual(DurationText.parse("25m0.12ms"), 1_500_000_120_000)
  }

  func testAnOverflowingDurationIsAConfigErrorExit78AndAScriptErrorExit65() {
    XCTAssertEqual(try ConfigParser.parse("focus = 0.4166667h", file: "p").engine.presets[.focus], 1_500_000_120_000)
    let e = configError("# mine\nfocus = 1h9223372035s\n")
    XCTAssertEqual(e?.line, 2)
    XCTAssertEqual(
      e?.message.contains("expected a duration from 5s to 23h59m59s, like 25m"), true, "\(String(describing: e))")

    let conf = write("p.conf", "focus = 1h9223372035s\n")
    let run = captureOutput { PomodoroCLI.main(["history", "--config", conf]) }
    XCTAssertEqual(run.code, ExitCode.config)
    XCTAssertTrue(run.err.contains("p.conf:1: bad value '1h9223372035s' for 'focus'; expected a duration"), run.err)

    let script = write("s.pomo", "press start\nwait 1h9223372035s\n")
    let sim = captureOutput { PomodoroCLI.main(["simulate", "--script", script]) }
    XCTAssertEqual(sim.code, ExitCode.badScript)
    XCTAssertTrue(sim.err.contains("s.pomo:2: expected a duration like 90s"), sim.err)
    XCTAssertEqual(
      try ScriptParser.parse("wait 0.4166667h\n", file: "s").lines.first?.step, .wait(1_500_000_120_000))
  }

  /// Each `wait 10000h` is valid, but 257 of them overflowed the 64-bit virtual clock (a trap,
  /// exit 132, no transcript). A script whose virtual time would pass ten years is refused before
  /// anything runs, naming the first line past it; holds and turns count with their own timings.
  func testAScriptPastTenYearsOfVirtualTimeIsRefusedNamingTheLine() throws {
    let waits = String(repeating: "wait 10000h\n", count: 257)
    let script = write("long.pomo", "press start\n" + waits)
    let sim = captureOutput { PomodoroCLI.main(["simulate", "--script", script]) }
    XCTAssertEqual(sim.code, ExitCode.badScript)
    // 8 waits of 10000h are 9.13 years; the 9th passes ten years (87672h): line 10.
    XCTAssertEqual(
      sim.err,
      "pomodoro: script error: \(script):10: the script would run past 87672h of virtual time here, the most one "
        + "script may cover; split it or shorten its waits\n")
    XCTAssertEqual(sim.out, "", "nothing ran")
    for (text, line) in [
      (String(repeating: "hold start 10000h\n", count: 300), 9),
      (String(repeating: "wait 10000h\n", count: 8) + "wait 7670h\n" + "turn +100000\n", 10),
    ] {
      XCTAssertThrowsError(try ScriptParser.parse(text, file: "s")) { error in
        XCTAssertEqual((error as? ScriptError)?.line, line, text.suffix(40).description)
      }
    }
    let almost = String(repeating: "wait 10000h\n", count: 8) + "wait 7670h\n" + "turn +100000 fast\n"
    XCTAssertEqual(try ScriptParser.parse(almost, file: "s").lines.count, 10, "1000 s of fast turning still fits")
  }

  func testATurnTakesOneSignAndDigitsOnly() {
    for bad in ["turn ++5", "turn +-5", "turn -+5", "turn +5x", "turn + 5", "turn +٣"] {
      XCTAssertThrowsError(try ScriptParser.parse(bad + "\n", file: "s"), bad) { error in
        XCTAssertEqual((error as? ScriptError)?.line, 1, bad)
      }
    }
    XCTAssertEqual(
      try ScriptParser.parse("turn -5\n", file: "s").lines.first?.step, .turn(detents: -5, fast: false, bounce: false))
  }

  // MARK: 2. CRLF and a BOM

  func testACRLFConfigIsReadLineByLineAndItsErrorsReported() throws {
    let c = try ConfigParser.parse("# my device\r\nfocus = 50m\r\ncontrast = 10\r\n", file: "p")
    XCTAssertEqual(c.engine.presets[.focus], minutes(50))
    XCTAssertEqual(c.contrast, 10)
    let e = configError("# my device\r\nfocus = 50m\r\ncontrast = 999\r\n")
    XCTAssertEqual(e?.line, 3)
    XCTAssertEqual(e?.message, "bad value '999' for 'contrast'; expected a number from 0 to 255")
    let bom = try ConfigParser.parse("\u{FEFF}focus = 40m\n", file: "p")
    XCTAssertEqual(bom.engine.presets[.focus], minutes(40))
    XCTAssertEqual(configError("\u{FEFF}focuss = 40m\n")?.message.hasPrefix("unknown key 'focuss';"), true)
  }

  func testACRLFScriptAndHistoryAreReadWhole() throws {
    let script = try ScriptParser.parse(
      "\u{FEFF}press start\r\n# expect event=state phase=running\r\nwait 2s\r\n", file: "s")
    XCTAssertEqual(script.lines.map(\.step), [.press(.start), .wait(seconds(2))])
    XCTAssertEqual(script.lines.first?.expectations.count, 1)

    let entries = (0..<3).map { i in
      HistoryEntry(
        ended: WallTime(epochSeconds: 1_796_000_000 + Int64(i) * 60, synced: true), mode: .focus,
        outcome: .completed, plannedMs: 1_500_000, actualMs: 1_500_000)
    }
    let text = "\u{FEFF}" + entries.map { $0.jsonLine + "\r\n" }.joined()
    _ = write("history.jsonl", text)
    let (read, damaged) = try HistoryLog(directory: directory).read()
    XCTAssertEqual(read, entries)
    XCTAssertEqual(damaged, [])
  }

  // MARK: 5. What is read: regular files only, capped

  func testAFIFOOrADeviceAsConfigIsRefusedAtOnceExit78() throws {
    let fifo = directory + "/fifo.conf"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    for (path, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a character device"), (directory, "a directory")] {
      let (code, _, err) = captureOutput { PomodoroCLI.main(["history", "--config", path]) }
      XCTAssertEqual(code, ExitCode.config, path)
      XCTAssertTrue(err.contains("config error: \(path): cannot read it: \(path) is \(kind), not a regular file"), err)
    }
    let big = write("big.conf", Data(repeating: 0x23, count: (1 << 20) + 1))
    let (code, _, err) = captureOutput { PomodoroCLI.main(["history", "--config", big]) }
    XCTAssertEqual(code, ExitCode.config)
    XCTAssertTrue(err.contains("big.conf is larger than 1 MiB"), err)
    let script = captureOutput { PomodoroCLI.main(["simulate", "--script", "/dev/zero"]) }
    XCTAssertEqual(script.code, ExitCode.badScript)
    XCTAssertTrue(script.err.contains("/dev/zero: cannot read it: /dev/zero is a character device"), script.err)
  }

  func testAHistoryThatIsAFIFOOrALinkToDevZeroIsRefusedNotWaitedOn() throws {
    let conf = write("p.conf", "state_dir = \(directory)\n")
    XCTAssertEqual(mkfifo(directory + "/history.jsonl", 0o600), 0)
    var (code, _, err) = captureOutput { PomodoroCLI.main(["history", "--config", conf]) }
    XCTAssertEqual(code, ExitCode.failure)
    XCTAssertTrue(err.contains("history.jsonl is a FIFO, not a regular file"), err)
    unlink(directory + "/history.jsonl")
    XCTAssertEqual(symlink("/dev/zero", directory + "/history.jsonl"), 0)
    (code, _, err) = captureOutput { PomodoroCLI.main(["history", "--config", conf]) }
    XCTAssertEqual(code, ExitCode.failure)
    XCTAssertTrue(err.contains("history.jsonl is a character device, not a regular file"), err)
  }

  func testHistoryIsStreamedAcrossChunksAndAnOverlongLineIsDamagedNotHeld() throws {
    let entries = (0..<1500).map { i in
      HistoryEntry(
        ended: WallTime(epochSeconds: 1_796_000_000 + Int64(i), synced: i % 2 == 0), mode: .soft,
        outcome: .cancelled, plannedMs: 300_000, actualMs: Int64(i))
    }
    var text = entries[..<700].map { $0.jsonLine + "\n" }.joined()
    text += String(repeating: "x", count: 200_000) + "\n"  // line 701: across several 64 KiB chunks
    text += entries[700...].map { $0.jsonLine + "\n" }.joined()
    _ = write("history.jsonl", text)
    let (read, damaged) = try HistoryLog(directory: directory).read()
    XCTAssertEqual(read, entries)
    XCTAssertEqual(damaged, [701])
  }

  // MARK: 6. One pin, two keys; a pin the simulated header lacks

  func testTwoSignalsOnOnePinIsAConfigErrorNamingBothKeys() {
    var e = configError("# wiring\nencoder_b = GPIO17\n")
    XCTAssertEqual(e?.line, 2)
    XCTAssertEqual(
      e?.message, "'encoder_b' is on GPIO17, the pin 'encoder_a' has (by default); give each signal its own pin")
    e = configError("buzzer = GPIO5\n\nbutton_start = GPIO5\n")
    XCTAssertEqual(e?.line, 3)
    XCTAssertEqual(e?.message.contains("the pin 'buzzer' has (on line 1)"), true)
    // On the simulated header a name and an offset are the same pin.
    XCTAssertNil(configError("encoder_b = 17\n"), "on a real chip, 17 may be another line than GPIO17")
    XCTAssertEqual(configError("encoder_b = 17\n", pins: .raspberryPiHeader)?.line, 1)
  }

  func testSimulateRefusesAPinTheMockHeaderLacksExit78NamingKeyAndLine() {
    let conf = write("p.conf", "# pins\nfocus = 20m\nbuzzer = GPIO40\n")
    let script = write("s.pomo", "press start\n")
    let (code, _, err) = captureOutput { PomodoroCLI.main(["simulate", "--config", conf, "--script", script]) }
    XCTAssertEqual(code, ExitCode.config)
    XCTAssertTrue(
      err.contains("p.conf:3: bad value 'GPIO40' for 'buzzer': the simulated Raspberry Pi header has no such line"),
      err)
    let dup = write("d.conf", "encoder_a = GPIO5\nencoder_b = GPIO5\n")
    let second = captureOutput { PomodoroCLI.main(["simulate", "--config", dup, "--script", script]) }
    XCTAssertEqual(second.code, ExitCode.config)
    XCTAssertTrue(
      second.err.contains("d.conf:2: 'encoder_b' is on GPIO5, the pin 'encoder_a' has (on line 1)"), second.err)
  }

  // MARK: 10. The rest of the parsing findings

  func testStateDirMustBeAbsoluteAndOnlyASpacedHashStartsAComment() throws {
    for dir in ["~/x", ".", "./state", "var/lib"] {
      XCTAssertEqual(configError("state_dir = \(dir)")?.message.contains("an absolute directory path"), true, dir)
    }
    XCTAssertEqual(try ConfigParser.parse("chip = /dev/gpio#chip0", file: "p").chip, "/dev/gpio#chip0")
    XCTAssertEqual(
      try ConfigParser.parse("focus = 50m # long\n\t# indented", file: "p").engine.presets[.focus], minutes(50))
    XCTAssertEqual(
      configError("focus = 50m#long")?.message,
      "bad value '50m#long' for 'focus'; expected a duration from 5s to 23h59m59s, like 25m or 1m30s")
    XCTAssertEqual(try ScriptParser.parse("wait 2s # a pause", file: "s").lines.first?.step, .wait(seconds(2)))
  }

  func testImpossibleHistoryDatesAreRefusedNotRolledOver() {
    for bad in [
      "2026-13-45T99:99:99Z", "2026-02-30T10:00:00Z", "2026-04-31T10:00:00Z", "2026-11-30T24:00:00Z",
      "2026-11-30T10:60:00Z", "2026-11-30T10:00:60Z", "2026-11-30T10:00:00", "2026-11-30 10:00:00Z",
      "+026-11-30T10:00:00Z", "2026-1-30T10:00:00Z", "1969-12-31T23:59:59Z",
    ] {
      XCTAssertNil(WallTime(iso8601: bad, synced: true), bad)
    }
    XCTAssertEqual(WallTime(iso8601: "2028-02-29T23:59:59Z", synced: true)?.iso8601, "2028-02-29T23:59:59Z")
    let line =
      #"{"ended":"2026-13-45T99:99:99Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1,"actual_ms":1}"#
    XCTAssertNil(HistoryEntry(jsonLine: line))
  }

  func testAStateFileOfAnUnknownVersionIsRefusedNamingItAndTheDeviceStartsFresh() throws {
    let store = StateStore(directory: directory)
    try Files.writeAtomically(
      store.path,
      Array(
        #"{"version":99,"phase":"paused","mode":"focus","duration_ns":1500000000000,"remaining_ns":5,"focus_done_in_cycle":0}"#
          .utf8))
    XCTAssertThrowsError(try store.load()) { e in
      XCTAssertEqual(
        "\(e)",
        "\(store.path) has version 99, which this pomodoro does not know (it writes 2 and reads 1 too); it was ignored and the timer starts fresh"
      )
    }
    let harness = try DeviceHarness(directory: directory)
    harness.device.start()
    XCTAssertEqual(harness.device.state.phase, .idle)
    XCTAssertFalse(harness.device.state.restored)
    XCTAssertTrue(harness.logLines.contains { $0.1.contains("has version 99") }, "\(harness.logLines)")
  }

  func testControlCharactersFromTheInputAreEscapedInMessages() {
    let e = configError("chip = gpio\u{1B}[2J\u{7}chip\n")
    XCTAssertEqual(e?.line, 1)
    XCTAssertEqual(
      e?.message.contains(#"an invisible character \u{1B} in 'chip = gpio\u{1B}[2J\u{7}chip'"#), true, e?.message ?? "")
    XCTAssertFalse(e!.description.unicodeScalars.contains { TextLines.isInvisible($0) })
    XCTAssertEqual(configError("focus = 25m\u{0}")?.message.contains(#"\u{0}"#), true)
    XCTAssertThrowsError(try ScriptParser.parse("press start\u{202E}\n", file: "s")) { e in
      XCTAssertTrue("\(e)".contains(#"s:1: an invisible character \u{202E}"#), "\(e)")
    }
  }

  // MARK: Issue 14's keys

  func testTimeoutAndPanelCareKeysTakeDurationsOrNever() throws {
    let d = DeviceConfig()
    XCTAssertEqual(d.engine.alarmTimeout, seconds(60))
    XCTAssertNil(d.engine.eggAlarmTimeout)
    XCTAssertEqual([d.dimAfter, d.blankAfter, d.shiftEvery], [minutes(2), minutes(10), minutes(3)])
    XCTAssertEqual(d.dimContrast, 16)
    let c = try ConfigParser.parse(
      """
      alarm_timeout = never
      egg_alarm_timeout = 5m
      dim_after = never
      blank_after = 1h
      shift_every = Never
      dim_contrast = 0x20
      """, file: "p")
    XCTAssertNil(c.engine.alarmTimeout)
    XCTAssertEqual(c.engine.eggAlarmTimeout, minutes(5))
    XCTAssertNil(c.dimAfter)
    XCTAssertEqual(c.blankAfter, minutes(60))
    XCTAssertNil(c.shiftEvery)
    XCTAssertEqual(c.dimContrast, 32)
    XCTAssertEqual(try ConfigParser.parse(ConfigParser.text(of: c), file: "p"), c)
    for (line, expected) in [
      ("egg_alarm_timeout = 2h", "from 5s to 1h, like 60s, or never"), ("dim_after = 1s", "from 5s to 24h"),
      ("dim_contrast = 256", "0 to 255"), ("shift_every = nevermore", "or never"),
    ] {
      XCTAssertEqual(configError(line)?.message.contains(expected), true, line)
    }
  }
}
