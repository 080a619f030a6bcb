import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// Runs every example in Tests/scenarios through the product's own check of its `# expect`
/// lines (in order, each anchored to its step), and shows that the check fails where it must.
final class ExampleScenarioTests: XCTestCase {
  func testEveryExampleScenarioMeetsItsExpectations() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../scenarios")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pomo") }
      .sorted()
    XCTAssertGreaterThanOrEqual(files.count, 6)
    for file in files {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      // NAME.conf beside NAME.pomo: the config it runs with (docs/scripts.md), as `--config` gives it.
      let conf = folder.appendingPathComponent(String(file.dropLast(5)) + ".conf")
      let config =
        try (try? String(contentsOf: conf, encoding: .utf8)).map {
          try ConfigParser.parse($0, file: conf.lastPathComponent, pins: .raspberryPiHeader)
        } ?? DeviceConfig()
      let scenario = try Scenario(text, file: file, config: config)
      XCTAssertGreaterThan(
        try ScriptParser.parse(text, file: file, config: config).expectationCount, 0, "\(file) checks something")
      XCTAssertNil(scenario.unmet, "\(file): \(scenario.unmet.map(String.init(describing:)) ?? "")")
      for object in scenario.objects {
        let event = try XCTUnwrap(object["event"]?.string, "\(file): a line without an event")
        let keys = try XCTUnwrap(Transcript.keys[event], "\(file): Transcript.keys lacks the event \(event)")
        XCTAssertTrue(Set(object.keys).isSubset(of: keys), "\(file): \(event) has keys beyond Transcript.keys")
      }
    }
  }

  /// An expectation no transcript line can meet (a misspelled key, event or value) is an error
  /// naming its line, so an `# expect-none` cannot pass because of a typo.
  func testAnExpectationThatCanNeverMatchIsAScriptErrorNamingItsLine() throws {
    let cases = [
      ("# expect-none event=buzzer onn=true", "no `buzzer` line has the key 'onn'"),
      ("# expect-none event=buzer", "'buzer' is no value of event"),
      ("# expect phase=runing", "'runing' is no value of phase"),
      ("# expect-none event=state total_ms=30000O", "total_ms takes a whole number, not '30000O'"),
      ("# expect-none remianing_ms=5", "no line has the key 'remianing_ms'"),
      ("# expect-none event=frame phase=idle", "no `frame` line has the key 'phase'"),
    ]
    for (line, message) in cases {
      XCTAssertThrowsError(try ScriptParser.parse("wait 1s\n\(line)\n", file: "typo.pomo"), line) { error in
        let text = "\(error)"
        XCTAssertTrue(text.hasPrefix("typo.pomo:2: "), text)
        XCTAssertTrue(text.contains(message), text)
      }
    }
    XCTAssertNoThrow(
      try ScriptParser.parse("wait 1s\n# expect-none event=history outcome=completed mode=short\n", file: "ok"))
  }

  /// `profile NAME` (issue 48) is read as `pomodoro ctl profile` reads it; with the config the
  /// script runs on, a profile it does not define is refused before anything runs.
  func testAProfileStepNamesAProfileTheConfigDefines() throws {
    let config = try ConfigParser.parse("profile deep = focus 50m\n", file: "p.conf")
    let script = try ScriptParser.parse("profile deep\nprofile\n", file: "p.pomo", config: config)
    XCTAssertEqual(script.lines.map(\.step), [.profile("deep"), .profile(nil)])
    for (line, message) in [
      ("profile light", "p.pomo:1: no profile 'light' in the config (deep); define it there"),
      ("profile a b", "p.pomo:1: expected `profile NAME` with a profile's name (1 to 20 of A-Z a-z 0-9 . _ -)"),
    ] {
      XCTAssertThrowsError(try ScriptParser.parse(line + "\n", file: "p.pomo", config: config), line) { error in
        XCTAssertTrue("\(error)".hasPrefix(message), "\(error)")
      }
    }
  }

  func testAWrongValueFailsNamingTheLineAndWhatCameInstead() throws {
    let s = try Scenario("turn +2\n# expect event=state total_ms=1680000\n", file: "wrong.pomo")
    let unmet = try XCTUnwrap(s.unmet)
    XCTAssertEqual(unmet.expectation.line, 2)
    let text = "\(unmet)"
    XCTAssertTrue(text.hasPrefix("wrong.pomo:2: `expect event=state total_ms=1680000` not met during line 1"), text)
    XCTAssertTrue(text.contains("\"total_ms\":1620000"), "says what came instead: \(text)")
  }

  func testAnExpectationUnderTheWrongStepFails() throws {
    // The ring happens during `wait 5s`, not during the press that started it.
    var config = DeviceConfig()
    config.engine.presets[.focus] = seconds(5)
    let misplaced = try Scenario("press start\n# expect event=state phase=ringing\nwait 5s\n", config: config)
    XCTAssertEqual(misplaced.unmet?.expectation.line, 2)
    let placed = try Scenario("press start\nwait 5s\n# expect event=state phase=ringing\n", config: config)
    XCTAssertNil(placed.unmet)
  }

  func testExpectationsUnderOneStepMatchInOrder() throws {
    let inOrder = try Scenario(
      "turn +2\n# expect event=state total_ms=1560000\n# expect event=state total_ms=1620000\n")
    XCTAssertNil(inOrder.unmet)
    let swapped = try Scenario(
      "turn +2\n# expect event=state total_ms=1620000\n# expect event=state total_ms=1560000\n")
    XCTAssertEqual(swapped.unmet?.expectation.line, 3)
    XCTAssertTrue(swapped.unmet.map { "\($0)" }?.contains("in order") ?? false)
  }

  func testExpectNoneFailsWhenSuchALineCame() throws {
    let s = try Scenario("turn +1\n# expect-none event=state total_ms=1560000\n")
    XCTAssertEqual(s.unmet?.expectation.line, 2)
    XCTAssertNil(try Scenario("turn +1\n# expect-none event=buzzer\n").unmet)
  }

  func testStartUpExpectationsComeBeforeTheFirstStep() throws {
    XCTAssertNil(try Scenario("# expect event=frame shown=25:00 bytes=1096\nwait 1s\n").unmet)
    XCTAssertEqual(try Scenario("# expect event=frame shown=24:59\nwait 1s\n").unmet?.step, "start-up")
  }

  func testMalformedExpectationIsAScriptError() {
    XCTAssertThrowsError(try ScriptParser.parse("wait 1s\n# expect phase\n", file: "x.pomo")) {
      XCTAssertEqual(
        "\($0)", "x.pomo:2: expected key=value pairs after `# expect` (like event=state phase=idle), found 'phase'")
    }
    XCTAssertThrowsError(try ScriptParser.parse("#expect phase=idle\n", file: "x.pomo"))
  }
}
