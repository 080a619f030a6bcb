import Foundation
import PomodoroCore
import XCTest

@testable import PomodoroRuntime

final class PersistenceTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "pomodoro-test-\(UUID().uuidString)"
    try Files.makeDirectories(directory)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  func testStateRoundTripsAndIsReplacedAtomically() throws {
    let store = StateStore(directory: directory)
    XCTAssertNil(try store.load())
    let saved = SavedTimer(
      phase: .running, mode: .soft, duration: minutes(5), remaining: 123_456_789, focusDoneInCycle: 2)
    try store.save(saved)
    XCTAssertEqual(try store.load(), saved)
    XCTAssertFalse(Files.exists(store.path + ".tmp"), "no temporary left behind")
  }

  func testDamagedStateFileIsAnErrorNamingIt() throws {
    let store = StateStore(directory: directory)
    try Files.writeAtomically(store.path, Array("{\"phase\":\"runn".utf8))
    XCTAssertThrowsError(try store.load()) { e in
      XCTAssertTrue("\(e)".contains(store.path))
    }
  }

  func testHistoryAppendsReadsAndSkipsATornLine() throws {
    let log = HistoryLog(directory: directory)
    let t = WallTime(epochSeconds: 1_796_000_000, synced: true)
    let a = HistoryEntry(
      ended: t,
      record: SessionRecord(
        mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(25), endedAt: .zero))
    try log.append(a)
    // A power cut tore the next line mid-write.
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: log.path))
    handle.seekToEndOfFile()
    handle.write(Data("{\"ended\":\"2026-11-30T1".utf8))
    handle.closeFile()
    let b = HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_000_600, synced: false),
      record: SessionRecord(
        mode: .shortBreak, outcome: .cancelled, planned: minutes(5), actual: seconds(61), endedAt: .zero))
    try log.append(b)
    let (entries, damaged) = try log.read()
    XCTAssertEqual(entries, [a, b], "the record after the torn line starts on its own line")
    XCTAssertEqual(damaged, [2])
  }

  func testTodayCountsCompletedFocusOnTheLocalDayOnly() {
    let now = WallTime(epochSeconds: 1_796_040_000, synced: true)
    func entry(_ offset: Int64, _ mode: Mode, _ outcome: SessionRecord.Outcome) -> HistoryEntry {
      HistoryEntry(
        ended: WallTime(epochSeconds: now.epochSeconds + offset, synced: true),
        record: SessionRecord(mode: mode, outcome: outcome, planned: 1, actual: 1, endedAt: .zero))
    }
    let entries = [
      entry(-60, .focus, .completed), entry(-120, .focus, .completed), entry(-180, .focus, .cancelled),
      entry(-240, .shortBreak, .completed), entry(-3 * 86_400, .focus, .completed),
    ]
    XCTAssertEqual(HistoryLog.completedFocus(in: entries, onDayOf: now), 2)
  }

  func testWallTimeTextRoundTrips() {
    let t = WallTime(epochSeconds: 1_796_050_805, synced: true)
    XCTAssertEqual(t.iso8601, "2026-11-30T15:00:05Z")
    XCTAssertEqual(WallTime(iso8601: t.iso8601, synced: true), t)
    XCTAssertNil(WallTime(iso8601: "yesterday", synced: true))
  }

  func testCSVHasAHeaderAndOneRowPerEntry() {
    let e = HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_050_805, synced: false),
      record: SessionRecord(mode: .hard, outcome: .completed, planned: minutes(12), actual: minutes(12), endedAt: .zero)
    )
    XCTAssertEqual(
      HistoryLog.csv([e]),
      "ended,clock_synced,mode,outcome,planned_ms,actual_ms\n2026-11-30T15:00:05Z,false,hard,completed,720000,720000\n")
  }

  func testFlatJSONRoundTripsAndRefusesTornText() {
    let text = FlatJSON.encode(["a": .int(-5), "b": .string("q\"uo\\te\n"), "c": .bool(true), "d": .null])
    XCTAssertEqual(text, #"{"a":-5,"b":"q\"uo\\te\n","c":true,"d":null}"#)
    let back = FlatJSON.decode(text)
    XCTAssertEqual(back?["b"], .string("q\"uo\\te\n"))
    XCTAssertEqual(back?["a"], .int(-5))
    XCTAssertNil(FlatJSON.decode(String(text.dropLast())))
    XCTAssertNil(FlatJSON.decode(text + "x"))
  }
}
