import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// The profile chosen is kept over a restart (issue 48): state.json says it; a file without it
/// (written before profiles) is the base; a saved profile the config no longer defines is the
/// base, said once in the log.
final class ProfileRestartTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  static func config(_ text: String = "profile deep = focus 50m, every 3\nprofile light = focus 15m\n") throws
    -> DeviceConfig
  {
    try ConfigParser.parse(text, file: "/etc/p.conf")
  }

  func testTheStateFileSaysTheProfileAndAnOlderOneReadsAsTheBase() throws {
    var saved = SavedTimer(
      phase: .paused, mode: .focus, duration: minutes(50), remaining: minutes(20), focusDoneInCycle: 2)
    saved.profile = "deep"
    let text = String(decoding: StateStore.bytes(saved), as: UTF8.self)
    XCTAssertTrue(text.contains(#""profile":"deep""#), text)
    XCTAssertEqual(try StateStore.decode(text, path: "state.json"), saved)
    let older = text.replacingOccurrences(of: #","profile":"deep""#, with: "")
    XCTAssertNotEqual(older, text)
    XCTAssertNil(try StateStore.decode(older, path: "state.json").profile, "no profile: the base")
    let bad = text.replacingOccurrences(of: #""profile":"deep""#, with: #""profile":"no such name""#)
    XCTAssertNil(try StateStore.decode(bad, path: "state.json").profile, "a name the rules refuse: the base")
  }

  func testTheChoiceIsKeptOverARestartAndAVanishedOneIsTheBaseWithOneLine() throws {
    let first = try DeviceHarness(directory: directory, config: try Self.config())
    first.device.start()
    _ = first.device.perform(.setProfile("deep"))
    first.run(for: seconds(1))
    XCTAssertEqual(first.device.state.profile, "deep")

    let again = try DeviceHarness(directory: directory, config: try Self.config())
    again.device.start()
    XCTAssertEqual(again.device.state.profile, "deep", "kept over the restart")
    XCTAssertEqual(again.device.state.duration, minutes(50))
    XCTAssertEqual(again.device.state.cycleText, "1/3")

    let gone = try DeviceHarness(directory: directory, config: try Self.config("profile light = focus 15m\n"))
    gone.device.start()
    XCTAssertNil(gone.device.state.profile)
    XCTAssertEqual(gone.device.state.duration, minutes(25), "the base's")
    let said = gone.logLines.map(\.1).filter { $0.contains("profile") }
    XCTAssertEqual(
      said,
      [
        "the profile 'deep' saved in the state file is no longer in the config; running on the base settings "
          + "(pomodoro ctl profile NAME chooses one of: light)"
      ])
  }
}
