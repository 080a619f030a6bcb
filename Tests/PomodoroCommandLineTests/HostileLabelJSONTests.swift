import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// Issue 46 item 1: every output a program reads is valid for every label. The hostile labels
/// (invisible and bidi characters, combining marks, emoji sequences, quotes, backslashes) through
/// `ctl status --json`, `ctl watch --json`, the journal's `state` line and `history`, each read
/// back by Python's json module as exactly the label that was set.
final class HostileLabelJSONTests: XCTestCase {
  /// `ctl status --json` after each label: its `label` and the first of its `recent_labels`;
  /// then every one of the 8 recent labels. (ctl used to print Swift's `\u{200B}`, which JSON
  /// parsers refuse: `Invalid \uXXXX escape`.)
  func testCtlStatusJSONParsesForEveryHostileLabel() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let f = try ControlFixture()
    let pump = SocketPump(f)
    var checks: [RealParsers.Check] = []
    for label in labels {
      _ = f.h.device.perform(.setLabel(label))
      let r = pump.ctl(["status", "--json"])
      XCTAssertEqual(r.code, 0, r.err)
      let line = r.out.trimmingCharacters(in: .newlines)
      checks.append(.init("json:state.label", line, label.text))
      checks.append(.init("json:state.recent_labels.0", line, label.text))
    }
    let r = pump.ctl(["status", "--json"])
    let line = r.out.trimmingCharacters(in: .newlines)
    for (i, label) in labels.reversed().prefix(SessionLabel.recentLimit).enumerated() {
      checks.append(.init("json:state.recent_labels.\(i)", line, label.text))
    }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(checks.count)")
  }

  /// A device that sends the labels raw (one of an older version, or whatever answers on the
  /// socket): `ctl status --json` still prints JSON that parses to the same label.
  func testCtlJSONIsValidWhateverTheDeviceSends() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var checks: [RealParsers.Check] = []
    for label in labels {
      let raw = label.text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      let fake = try FakeDevice(
        directory: directory, .reply("{\"ok\":true,\"state\":{\"phase\":\"idle\",\"label\":\"\(raw)\"}}"))
      let r = captureOutput { (try? CtlCommand.run(["status", "--json", "--socket", fake.path])) ?? -1 }
      fake.stop()
      XCTAssertEqual(r.code, 0, r.err)
      checks.append(.init("json:state.label", r.out.trimmingCharacters(in: .newlines), label.text))
    }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(checks.count)")
  }

  /// `ctl watch --json`: the reply, then a state line for each label set, each parsed.
  func testCtlWatchJSONParsesForEveryHostileLabel() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let f = try ControlFixture()
    let pump = SocketPump(f)
    pump.start(also: { f in
      for label in labels { _ = f.h.device.perform(.setLabel(label)) }
      f.server.close()
    })
    defer { pump.stop() }
    let r = captureOutput { PomodoroCLI.main(["ctl", "watch", "--json", "--socket", f.path]) }
    XCTAssertEqual(r.code, ExitCode.unavailable, r.err)
    let lines = r.out.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, labels.count + 1, r.out)
    let checks = zip(lines.dropFirst(), labels).map { RealParsers.Check("json:label", $0, $1.text) }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(labels.count)")
  }

  /// The journal's `state` line (what the device writes to stderr, as journald stores it): the
  /// fields before the label are bare words; the label after ` label=` is a JSON string, never
  /// Swift's escapes, and no label passes for another field (`x phase=ringing ...`).
  func testTheJournalsStateLineCarriesTheLabelAsJSON() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let h = try DeviceHarness(directory: directory, storing: false)
    h.device.start()
    var checks: [RealParsers.Check] = []
    for label in labels {
      h.logLines = []
      _ = h.device.perform(.setLabel(label))
      let states = h.logLines.map(\.1).filter { $0.hasPrefix("state ") }
      XCTAssertEqual(states.count, 1, "\(h.logLines)")
      for line in states { checks.append(.init("journal", line, label.text)) }
    }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(labels.count)")
    // A plain word stays bare, as the system test and the HIL scenario read it.
    XCTAssertEqual(
      StateFields.logText([("phase", .string("running")), ("label", .string("Report"))]), "phase=running label=Report")
  }

  /// `pomodoro history` (JSON lines) of sessions with each label: every line parsed, its label
  /// the one recorded.
  func testHistoryJSONLinesParseForEveryHostileLabel() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let (directory, conf) = try HostileLabels.history(of: labels)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let r = captureOutput { PomodoroCLI.main(["history", "--config", conf]) }
    XCTAssertEqual(r.code, 0, r.err)
    let lines = r.out.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, labels.count, r.out)
    let checks = zip(lines, labels).map { RealParsers.Check("json:label", $0, $1.text) }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(labels.count)")
  }

  /// The escapes themselves: the invisible characters as JSON writes them (a pair of surrogates
  /// past the first plane), read back exactly by the device's own reader too; a line with raw
  /// ones (a device of an older version) made valid by what ctl prints.
  func testInvisibleCharactersAreWrittenAsJSONEscapes() {
    XCTAssertEqual(FlatJSON.quote("Read\u{200B}me"), #""Read\u200bme""#)
    XCTAssertEqual(FlatJSON.quote("\u{FEFF}\u{202E}\u{2066}"), #""\ufeff\u202e\u2066""#)
    XCTAssertEqual(FlatJSON.quote("tag\u{E0001}"), #""tag\udb40\udc01""#)
    XCTAssertEqual(FlatJSON.quote("x\u{1B}\u{7F}\u{85}"), #""x\u001b\u007f\u0085""#)
    XCTAssertEqual(FlatJSON.quote("café 👩‍👩‍👧"), "\"café 👩\\u200d👩\\u200d👧\"")
    XCTAssertEqual(FlatJSON.quote("plain"), "\"plain\"")
    for text in HostileLabels.all {
      XCTAssertEqual(
        FlatJSON.decode(FlatJSON.encode([("t", .string(text))]))?["t"], .string(text), text.debugDescription)
    }
    let raw = "{\"ok\":true,\"state\":{\"label\":\"Read\u{200B}me\u{1B}[2J\"}}"
    XCTAssertEqual(FlatJSON.visible(raw), #"{"ok":true,"state":{"label":"Read\u200bme\u001b[2J"}}"#)
  }
}
