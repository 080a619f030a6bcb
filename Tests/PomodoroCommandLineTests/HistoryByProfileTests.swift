import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// Issue 48 item 3: a history record's `profile` (written only when one was in use; older lines
/// read as before), `history --csv`'s `profile` column and `stats --by-profile`.
final class HistoryByProfileTests: XCTestCase {
  var directory = ""
  var conf = ""
  /// Tuesday 2026-12-01, 12:00 UTC.
  let now = WallTime(epochSeconds: 1_796_126_400, synced: true)

  override func setUpWithError() throws {
    directory = try DeviceHarness.temporaryDirectory()
    conf = directory + "/p.conf"
    XCTAssertTrue(FileManager.default.createFile(atPath: conf, contents: Data("state_dir = \(directory)\n".utf8)))
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func entry(daysAgo: Int64, _ profile: String?, _ mode: Mode = .focus, minutes: Int64 = 25) -> HistoryEntry {
    HistoryEntry(
      ended: WallTime(epochSeconds: now.epochSeconds - daysAgo * 86400, synced: true), mode: mode,
      outcome: .completed, plannedMs: minutes * 60000, actualMs: minutes * 60000, profile: profile)
  }

  func testTheRecordSaysTheProfileOnlyWhenOneWasInUseAndOlderLinesReadAsBefore() throws {
    let record = SessionRecord(
      mode: .focus, outcome: .completed, planned: PomodoroCore.minutes(50), actual: PomodoroCore.minutes(50),
      endedAt: .zero, profile: "deep")
    let e = HistoryEntry(ended: now, record: record)
    XCTAssertEqual(e.profile, "deep")
    XCTAssertTrue(e.jsonLine.hasSuffix(#","extended_ms":0,"profile":"deep"}"#), e.jsonLine)
    XCTAssertEqual(HistoryEntry(jsonLine: e.jsonLine), e)
    var base = e
    base.profile = nil
    XCTAssertFalse(base.jsonLine.contains("profile"), "none: written as before profiles")
    XCTAssertEqual(HistoryEntry(jsonLine: base.jsonLine), base)
    let bad = e.jsonLine.replacingOccurrences(of: #""profile":"deep""#, with: #""profile":"a b""#)
    XCTAssertNil(HistoryEntry(jsonLine: bad), "a profile that is no name: damaged")
  }

  func testTheEngineRecordsTheProfileInUse() {
    let deep = Profile(name: "deep", presets: [.focus: PomodoroCore.minutes(50)])!
    var state = EngineState(settings: EngineSettings(profiles: [deep], profile: "deep"), now: .zero)
    state = Engine.step(state, .press(.start), now: .zero).0
    let effects = Engine.step(state, .press(.cancel), now: Instant(nanoseconds: 1_000_000_000)).1
    let records = effects.compactMap { effect -> SessionRecord? in
      if case .record(let r) = effect { return r }
      return nil
    }
    XCTAssertEqual(records.map(\.profile), ["deep"])
  }

  func testCSVHasAProfileColumn() throws {
    let log = HistoryLog(directory: directory)
    try log.append(entry(daysAgo: 0, "deep"))
    try log.append(entry(daysAgo: 0, nil))
    let r = captureOutput { (try? HistoryCommand.run(ArraySlice(["--csv", "--config", conf]), now: now)) ?? -1 }
    let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    XCTAssertTrue(lines[0].hasSuffix(",label,room,profile"), lines[0])
    XCTAssertTrue(lines[1].hasSuffix(",0,0,,,deep"), lines[1])
    XCTAssertTrue(lines[2].hasSuffix(",0,0,,,"), lines[2])
  }

  func testStatsByProfile() throws {
    let log = HistoryLog(directory: directory)
    try log.append(entry(daysAgo: 8, "deep", minutes: 50))
    try log.append(entry(daysAgo: 0, "deep", minutes: 50))
    try log.append(entry(daysAgo: 0, "light", minutes: 15))
    try log.append(entry(daysAgo: 0, nil))
    try log.append(entry(daysAgo: 0, "deep", .longBreak, minutes: 30))
    let r = captureOutput { (try? StatsCommand.run(ArraySlice(["--by-profile", "--config", conf]), now: now)) ?? -1 }
    XCTAssertEqual(r.code, 0, r.err)
    let lines = r.out.split(separator: "\n").map(String.init)
    XCTAssertEqual(
      lines.first,
      "Completed focus sessions and flows by profile, today (2026-12-01), this week (since Mon 2026-11-30) and the 12 weeks since 2026-09-09:"
    )
    XCTAssertTrue(lines[2].hasPrefix("Profile"), lines[2])
    XCTAssertEqual(lines.filter { $0.hasPrefix("deep") }, ["deep           1     50        1     50        2    100"])
    XCTAssertEqual(lines.filter { $0.hasPrefix("light") }, ["light          1     15        1     15        1     15"])
    XCTAssertEqual(lines.last, "(base)         1     25        1     25        1     25")
    let both = captureOutput { PomodoroCLI.main(["stats", "--by-label", "--by-profile", "--config", conf]) }
    XCTAssertEqual(both.code, ExitCode.usage)
    XCTAssertTrue(both.err.contains("--by-label and --by-profile are two tables; ask for one"), both.err)
  }
}
