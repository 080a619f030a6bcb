import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import PomodoroWeb
import XCTest

@testable import PomodoroCommandLine

/// The command line's exit codes and messages (stdout/stderr go to the test log).
final class CommandLineTests: XCTestCase {
  /// `probe` says how the desk's room goes: through the bridge, or what keeps it out.
  func testProbeSaysWhatTheRoomGoesThrough() {
    var config = DeviceConfig()
    config.mqttHost = "192.168.1.10"
    XCTAssertEqual(
      ProbeCommand.roomLine("team", config: config, bridgeInstalled: true, hostName: "desk-1.local"),
      "room team: through pomodoro-mqtt and the broker 192.168.1.10:1883 as desk-1 "
        + "(systemctl status pomodoro-mqtt says whether it runs)")
    XCTAssertTrue(
      ProbeCommand.roomLine("team", config: config, bridgeInstalled: false, hostName: "desk-1")
        .hasPrefix("room team: no bridge: a room goes through pomodoro-mqtt (sudo apt install pomodoro-mqtt"))
    config.mqttDeviceId = "küche"
    XCTAssertEqual(
      ProbeCommand.roomLine("team", config: config, bridgeInstalled: true, hostName: "desk-1"),
      "room team: cannot join as 'küche': a desk id in a room is 1-40 of A-Z a-z 0-9 . _ -, not room (set mqtt_device_id)"
    )
  }

  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func write(_ name: String, _ text: String) -> String {
    let path = directory + "/" + name
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    return path
  }

  func testHelpAndVersionExitZero() {
    XCTAssertEqual(PomodoroCLI.main(["--help"]), 0)
    XCTAssertEqual(PomodoroCLI.main(["--version"]), 0)
    XCTAssertEqual(PomodoroCLI.main(["help", "simulate"]), 0)
    let simulate = PomodoroCLI.command("simulate")!.help
    XCTAssertTrue(simulate.contains("128 + n: 130 SIGINT, 143 SIGTERM, 129 SIGHUP"), simulate)
    XCTAssertTrue(simulate.contains("\"interrupted\":\"SIGTERM\""), simulate)
    XCTAssertTrue(PomodoroCLI.command("run")!.help.contains("SIGHUP reads the config again"))
    XCTAssertEqual(PomodoroCLI.main(["run", "--help"]), 0)
    XCTAssertTrue(PomodoroCLI.versionText.hasPrefix("pomodoro \(PomodoroCLI.version) ("))
    // The MQTT bridge's library too, as `pomodoro mqtt` finds it.
    let mqtt = MQTTBridge.available ? ", libmosquitto, " : ", no libmosquitto, "
    XCTAssertTrue(PomodoroCLI.versionText.contains(mqtt), PomodoroCLI.versionText)
    // And the web page's, as `pomodoro web` finds it.
    let web = WebService.available ? ", libmicrohttpd)" : ", no libmicrohttpd)"
    XCTAssertTrue(PomodoroCLI.versionText.hasSuffix(web), PomodoroCLI.versionText)
    let out = captureOutput { PomodoroCLI.main(["--version"]) }.out
    XCTAssertEqual(out, PomodoroCLI.versionText + "\n")
  }

  /// `pomodoro mqtt` becomes the bridge's own binary, `pomodoro-mqtt` beside it (the package's
  /// /usr/lib/pomodoro), which maps none of the device's code: the same process (its PID), now
  /// that file (docs/proof.md, "Memory of the three processes").
  func testMqttExecsTheBridgesOwnBinary() throws {
    let pomodoro = try ChildProcess.pomodoroPath()
    let own = URL(fileURLWithPath: pomodoro).deletingLastPathComponent().appendingPathComponent("pomodoro-mqtt").path
    guard FileManager.default.isExecutableFile(atPath: own) else {
      throw XCTSkip("no pomodoro-mqtt beside \(pomodoro); `swift build` builds it")
    }
    let directory = NSTemporaryDirectory() + "pomodoro-exec-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // Neither a device nor a broker: the bridge waits for both, retrying.
    let conf = directory + "/bridge.conf"
    try "control_socket = \(directory)/none.sock\nmqtt_host = 127.0.0.1\nmqtt_port = 1\n"
      .write(toFile: conf, atomically: true, encoding: .utf8)
    let null = open("/dev/null", O_RDWR)
    defer { close(null) }
    let child = try ChildProcess(["mqtt", "--config", conf], stdin: null, stdout: null, stderr: null)
    defer {
      child.signal(SIGKILL)
      _ = try? child.waitForExit(timeout: 10)
    }
    var exe = ""
    XCTAssertNoThrow(
      try waitUntil("pomodoro (pid \(child.pid)) to exec pomodoro-mqtt (its exe: '\(exe)')") {
        exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/exe")) ?? ""
        return exe.hasSuffix("/pomodoro-mqtt")
      })
    XCTAssertEqual(exe, URL(fileURLWithPath: own).resolvingSymlinksInPath().path)
  }

  func testUsageErrorsExit64() {
    XCTAssertEqual(PomodoroCLI.main(["frobnicate"]), ExitCode.usage)
    XCTAssertEqual(PomodoroCLI.main(["run", "--colour"]), ExitCode.usage)
    XCTAssertEqual(PomodoroCLI.main(["run", "--config"]), ExitCode.usage)
    XCTAssertEqual(PomodoroCLI.main(["help", "nothing"]), ExitCode.usage)
    XCTAssertEqual(PomodoroCLI.main(["simulate", "--png", directory]), ExitCode.usage)
    XCTAssertEqual(PomodoroCLI.main(["snapshot"]), ExitCode.usage)
  }

  /// An empty value names no file: `stats --png ''` said "cannot rename .tmp to :", `--png=` took
  /// the next word as its value.
  func testAnEmptyOptionValueIsAUsageErrorNamingTheOption() {
    for words in [
      ["stats", "--png", ""], ["stats", "--png="], ["history", "--config", ""], ["ctl", "status", "--socket="],
    ] {
      let r = captureOutput { PomodoroCLI.main(words) }
      XCTAssertEqual(r.code, ExitCode.usage, "\(words)")
      let name = words.first { $0.hasPrefix("--") }!.split(separator: "=").first!
      XCTAssertEqual(
        r.err, "pomodoro: \(name) needs a value, not an empty one\nTry 'pomodoro --help'.\n", "\(words)")
    }
  }

  /// `--png` (and snapshot's folder) given a link to a folder writes into that folder; the
  /// device's own state folder still refuses a link.
  func testAPNGFolderThatIsALinkToAFolderIsUsed() throws {
    let good = write("one.pomo", "turn +1\n")
    let real = directory + "/real"
    XCTAssertEqual(mkdir(real, 0o755), 0)
    XCTAssertEqual(symlink(real, directory + "/link"), 0)
    let r = captureOutput { PomodoroCLI.main(["simulate", "--script", good, "--png", directory + "/link/sub"]) }
    XCTAssertEqual(r.code, 0, r.err)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: real + "/sub"), ["line-001.png"])
    XCTAssertThrowsError(try Files.makeDirectories(directory + "/link")) {
      XCTAssertEqual("\($0)", "cannot create directory \(directory)/link: File exists")
    }
  }

  func testConfigErrorsExit78() {
    let bad = write("bad.conf", "contrast = 999\n")
    XCTAssertEqual(PomodoroCLI.main(["run", "--config", bad]), ExitCode.config)
    XCTAssertEqual(PomodoroCLI.main(["simulate", "--config", bad, "--script", bad]), ExitCode.config)
    XCTAssertEqual(PomodoroCLI.main(["simulate", "--config", directory + "/missing.conf"]), ExitCode.config)
  }

  func testBadScriptExits65AndGoodScriptWritesAPNGPerLine() throws {
    let bad = write("bad.pomo", "press start\npress elbow\n")
    XCTAssertEqual(PomodoroCLI.main(["simulate", "--script", bad]), ExitCode.badScript)
    let good = write("good.pomo", "turn +1\n\nwait 2s\n")
    let pngs = directory + "/png"
    XCTAssertEqual(PomodoroCLI.main(["simulate", "--script", good, "--png", pngs]), 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: pngs).sorted()
    XCTAssertEqual(files, ["line-001.png", "line-003.png"])
    let png = try Data(contentsOf: URL(fileURLWithPath: pngs + "/line-001.png"))
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
  }

  func testAScriptsUnmetExpectationExits1NamingItAndTheTranscriptIsWhole() {
    let script = write("check.pomo", "turn +2\n# expect event=state total_ms=1680000\nwait 1s\n")
    let (code, out, err) = captureOutput { PomodoroCLI.main(["simulate", "--script", script]) }
    XCTAssertEqual(code, ExitCode.failure)
    XCTAssertTrue(err.contains("check.pomo:2: `expect event=state total_ms=1680000` not met during line 1"), err)
    XCTAssertTrue(out.contains("\"total_ms\":1620000"), out)
    XCTAssertTrue(out.hasSuffix("}\n") && out.contains("\"event\":\"summary\""), "the transcript is whole")
    let good = write("good.pomo", "turn +2\n# expect event=state total_ms=1620000\n")
    XCTAssertEqual(captureOutput { PomodoroCLI.main(["simulate", "--script", good]) }.code, 0)
  }

  func testHistoryCommandReadsTheStateDirectory() throws {
    let log = HistoryLog(directory: directory)
    let entry = HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_050_805, synced: true),
      record: .init(
        mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(26), extended: minutes(1),
        endedAt: .zero))
    try log.append(entry)
    let conf = write("p.conf", "state_dir = \(directory)\n")
    let json = captureOutput { PomodoroCLI.main(["history", "--config", conf]) }
    XCTAssertEqual(json.code, 0)
    XCTAssertEqual(
      json.out,
      #"{"ended":"2026-11-30T15:00:05Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1500000,"actual_ms":1560000,"extended_ms":60000}"#
        + "\n")
    let csv = captureOutput { PomodoroCLI.main(["history", "--csv", "--config", conf]) }
    XCTAssertEqual(csv.code, 0)
    XCTAssertEqual(
      csv.out,
      "ended,clock_synced,mode,outcome,planned_ms,actual_ms,extended_ms,interruptions_internal,interruptions_external,label,room,profile\n"
        + "2026-11-30T15:00:05Z,true,focus,completed,1500000,1560000,60000,0,0,,,\n")
  }

  func testRunWithoutHardwareExits69NamingTheChip() {
    let conf = write("p.conf", "chip = /dev/gpiochip-none\nstate_dir = \(directory)\n")
    let (code, _, err) = captureOutput { PomodoroCLI.main(["run", "--config", conf]) }
    XCTAssertEqual(code, ExitCode.hardware)
    if PomodoroCLI.versionText.contains("no libgpiod") {
      XCTAssertEqual(
        err,
        "pomodoro: GPIO chip /dev/gpiochip-none: GPIO support was not compiled in: libgpiod is not installed. "
          + "Install it (sudo apt install libgpiod-dev pkg-config) and rebuild, or use `pomodoro simulate`.\n")
    } else {
      XCTAssertEqual(
        err,
        "pomodoro: GPIO chip '/dev/gpiochip-none' not found. Check the `chip` key in the config (a path like "
          + "/dev/gpiochip0, a name like gpiochip0, a label like pinctrl-rp1, or auto); `gpiodetect` lists the chips.\n"
      )
    }
  }

  /// A line held by another program at start-up, through `pomodoro run`'s own start-up path
  /// (config, lines requested as the device does, the error mapped to its exit code): the user
  /// reads the line, the chip, the holder and the fix.
  func testRunWithALineBusyNamesTheLineTheChipItsHolderAndTheFix() {
    let conf = write("p.conf", "state_dir = \(directory)\n")
    let (code, _, err) = captureOutput {
      PomodoroCLI.outcome {
        try RunCommand.run(["--config", conf]) { config in
          try MockHardware(config: config, clock: SystemClock(), busy: [("GPIO23", "gpioset")]).parts
        }
      }
    }
    XCTAssertEqual(code, ExitCode.hardware)
    XCTAssertEqual(
      err,
      "pomodoro: GPIO line 'GPIO23' on mock-gpiochip0 is busy: held by 'gpioset'. Stop that program (or service) "
        + "first; `gpioinfo` shows who holds each line.\n")
  }

  /// Finding: `pomodoro snapshot DIR` wrote through a planted `DIR/01-idle-focus.png.tmp` link.
  func testSnapshotNeverWritesThroughAPlantedLink() throws {
    let shots = directory + "/shots"
    try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
    let victim = write("victim", "precious\n")
    XCTAssertEqual(symlink(victim, shots + "/01-idle-focus.png.tmp"), 0)
    XCTAssertEqual(captureOutput { PomodoroCLI.main(["snapshot", shots]) }.code, 0)
    XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
    let png = try Data(contentsOf: URL(fileURLWithPath: shots + "/01-idle-focus.png"))
    XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
  }

  func testSnapshotWritesEveryScreen() throws {
    XCTAssertEqual(PomodoroCLI.main(["snapshot", directory + "/shots"]), 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/shots")
    XCTAssertGreaterThanOrEqual(files.count, 30)
    XCTAssertTrue(files.contains("01-idle-focus.png"))
    XCTAssertTrue(files.contains("128x32-01-idle-focus.png"))
  }
}
