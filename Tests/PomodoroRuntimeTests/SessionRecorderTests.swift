import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

/// The recorder alone: saves, appends, recovers, keeps records pending, and counts today from
/// the history's end.
final class SessionRecorderTests: XCTestCase {
  var directory = ""
  var messages: [String] = []

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "pomodoro-recorder-\(UUID().uuidString)"
    try Files.makeDirectories(directory)
    messages = []
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Now, chosen so that the two hours before it is the same local day whatever the time zone.
  static let now: WallTime = {
    var t = WallTime(epochSeconds: 1_796_040_000, synced: true)
    if WallTime(epochSeconds: t.epochSeconds - 7200, synced: true).localDay != t.localDay { t.epochSeconds += 7200 }
    return t
  }()

  func recorder(_ fs: FileSystem = PosixFileSystem.shared, wall: @escaping () -> WallTime = { now }) -> SessionRecorder
  {
    if fs !== PosixFileSystem.shared { try? Files.makeDirectories(directory, in: fs) }
    return SessionRecorder(
      storage: Storage(directory: directory, fileSystem: fs), log: Log(sink: { [unowned self] in messages.append($1) }),
      wallClock: wall)
  }

  func line(
    _ secondsAgo: Int64, _ mode: Mode = .focus, _ outcome: SessionRecord.Outcome = .completed, synced: Bool = true
  ) -> String {
    HistoryEntry(
      ended: WallTime(epochSeconds: Self.now.epochSeconds - secondsAgo, synced: synced),
      record: SessionRecord(mode: mode, outcome: outcome, planned: minutes(25), actual: minutes(25), endedAt: .zero)
    ).jsonLine
  }

  var idle: SavedTimer {
    SavedTimer(phase: .idle, mode: .focus, duration: minutes(25), remaining: minutes(25), focusDoneInCycle: 0)
  }

  func historyLines(_ fs: FileSystem = PosixFileSystem.shared) throws -> [String] {
    try HistoryLog(directory: directory, fileSystem: fs).read().entries.map(\.jsonLine)
  }

  /// A record is pending until a save appends it; the state is saved first, carrying it.
  func testARecordIsSavedWithTheStateThenAppended() throws {
    let fs = FaultyFileSystem()
    let r = recorder(fs)
    let record = try XCTUnwrap(HistoryEntry(jsonLine: line(60)))
    r.append(record)
    XCTAssertEqual(r.pending, [record.jsonLine])
    XCTAssertEqual(try historyLines(fs), [], "not written before the save")
    var stateAtAppend: [String]?
    fs.onStep = { [unowned fs, directory] _ in
      if stateAtAppend == nil, fs.files[directory + "/history.jsonl"] != nil {
        stateAtAppend = try? StateStore(directory: directory, fileSystem: fs).loadPendingHistory()
      }
    }
    r.save(idle)
    XCTAssertEqual(stateAtAppend, [record.jsonLine], "the state carried the record before the history had it")
    XCTAssertEqual(try historyLines(fs), [record.jsonLine])
    XCTAssertEqual(r.pending, [])
    XCTAssertEqual(
      try StateStore(directory: directory, fileSystem: fs).loadPendingHistory(), [record.jsonLine],
      "state.json carries it until the next save: recovery finds it at the history's end")
    r.save(idle)
    XCTAssertEqual(try StateStore(directory: directory, fileSystem: fs).loadPendingHistory(), [])
    XCTAssertEqual(try historyLines(fs), [record.jsonLine], "appended once")
  }

  /// A full disk keeps records in memory, at most `pendingLimit`, and the next save that can
  /// write appends them in order, once.
  func testAFullDiskKeepsRecordsPendingThenAppendsThemOnce() throws {
    let fs = FaultyFileSystem()
    let r = recorder(fs)
    fs.fault = .noSpace
    let lines = (0..<(SessionRecorder.pendingLimit + 2)).map { line(Int64(10_000 - $0)) }
    for l in lines {
      r.append(try XCTUnwrap(HistoryEntry(jsonLine: l)))
      r.save(idle)
    }
    XCTAssertEqual(r.pending, Array(lines.dropFirst(2)), "the two oldest dropped")
    XCTAssertEqual(messages.filter { $0.contains("the oldest is dropped") }.count, 2)
    fs.fault = nil
    r.save(idle)
    r.save(idle)
    XCTAssertEqual(try historyLines(fs), Array(lines.dropFirst(2)))
    XCTAssertEqual(r.pending, [])
  }

  /// After a restart: what the state carried is appended once, never twice, and the saved
  /// timer comes back.
  func testRecoveryAppendsWhatTheStateCarriedOnce() throws {
    let first = line(120)
    let second = line(60, .shortBreak)
    try HistoryLog(directory: directory).appendLine(first)
    try StateStore(directory: directory).save(idle, pendingHistory: [first, second])
    let r = recorder()
    XCTAssertEqual(r.recover(), idle)
    XCTAssertEqual(r.pending, [])
    XCTAssertEqual(try historyLines(), [first, second])
    XCTAssertEqual(recorder().recover(), idle)
    XCTAssertEqual(try historyLines(), [first, second], "not appended twice")
  }

  /// A pending record counts for today like a written one.
  func testTodayCountsWrittenAndPendingRecords() throws {
    try HistoryLog(directory: directory).appendLine(line(3 * 86_400))
    try HistoryLog(directory: directory).appendLine(line(300))
    let fs = PosixFileSystem.shared
    let r = recorder(fs)
    r.append(try XCTUnwrap(HistoryEntry(jsonLine: line(60))))
    XCTAssertEqual(try r.countToday(onDayOf: Self.now), 2)
  }

  /// Counted at the first call and at each new local day, not in between.
  func testCountedAtStartAndAtEachNewDay() throws {
    try HistoryLog(directory: directory).appendLine(line(60))
    var wall = Self.now
    let r = recorder(wall: { wall })
    XCTAssertEqual(r.countIfNewDay(), 1)
    XCTAssertNil(r.countIfNewDay(), "the same day")
    wall.epochSeconds += 86_400
    XCTAssertEqual(r.countIfNewDay(), 0, "a new day starts at zero")
  }

  /// The last N days are counted in civil days across a month's end, a year's end and a leap
  /// day: one record at noon of each of the 8 days before, 7 asked for, 7 given (yyyymmdd
  /// arithmetic asked for 2026-11-97 and left most of them out).
  func testRecentCountsCivilDaysAcrossMonthYearAndLeapDay() throws {
    for (year, month, day) in [(2026, 12, 3), (2027, 1, 2), (2028, 3, 1), (2026, 11, 30)] {
      try? FileManager.default.removeItem(atPath: directory + "/history.jsonl")
      // Local noon of that day, found from UTC noon (the local day of UTC noon is that day
      // within 12 hours of UTC, and an offset beyond is corrected by a day).
      let target = CivilDay(year: year, month: month, day: day)
      var now = WallTime(epochSeconds: Int64(target.ordinal) * 86_400 + 43_200, synced: true)
      now.epochSeconds += Int64(target.ordinal - now.localCivilDay.ordinal) * 86_400
      let lines = (0...7).reversed().map { daysAgo in
        HistoryEntry(
          ended: WallTime(epochSeconds: now.epochSeconds - Int64(daysAgo) * 86_400, synced: true),
          record: SessionRecord(
            mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(25), endedAt: .zero)
        ).jsonLine
      }
      try Data((lines.joined(separator: "\n") + "\n").utf8).write(
        to: URL(fileURLWithPath: directory + "/history.jsonl"))
      let recent = try recorder(wall: { now }).recent(days: 7)
      XCTAssertEqual(recent, Array(lines.suffix(7)), "\(target): the 7 days up to it, not the 8th")
      XCTAssertEqual(try recorder(wall: { now }).recent(days: 1), [lines[7]], "\(target): today alone")
    }
  }
  /// Records made before the clock was synchronised may carry any day: one of an earlier day
  /// does not end today's stretch, and one of today counts, as every record of today does.
  func testUnsyncedRecordsNeitherEndTheStretchNorAreLeftOut() throws {
    let lines = [
      line(2 * 86_400),  // synced, an earlier day: the stretch ends here
      line(1200),  // today: counted
      line(Self.now.epochSeconds - 60, synced: false),  // 1970, unsynced: skipped, not an end
      line(600, synced: false),  // today, unsynced: counted
      line(300, .focus, .cancelled),  // not completed
      "{\"ended\":\"2026-12-0",  // torn
      line(60),  // today: counted
    ]
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/history.jsonl"))
    XCTAssertEqual(try recorder().countToday(onDayOf: Self.now), 3)
    XCTAssertEqual(messages.filter { $0.contains("damaged") }.count, 1, "\(messages)")
    XCTAssertTrue(messages[0].contains("line 2 from the end is damaged"), "\(messages)")
  }

  /// A million lines, one in ten torn, the last thousand of today (a flood of commands): the
  /// count reads today's stretch only, and names 20 damaged lines and counts the rest in one
  /// message. The file's first lines are dated today, out of order on purpose: a reader that
  /// went past the end of today's stretch would count them.
  func testAMillionLineHistoryIsCountedFromItsEnd() throws {
    let path = directory + "/history.jsonl"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    XCTAssertGreaterThanOrEqual(fd, 0)
    func write(_ lines: [String]) {
      let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
      var done = 0
      while done < bytes.count { done += bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
    }
    let torn = "{\"ended\":\"2026-11-30T1"
    // Ten probes of today, then 999 blocks of a thousand lines of long ago, then today's thousand.
    write((0..<10).map { line(Int64(5000 + $0)) })
    let old = (0..<1000).map { i -> String in
      let ago = Int64(400 * 86_400 - i * 600)
      return i % 10 == 0 ? torn : line(ago, i % 3 == 0 ? .focus : .longBreak)
    }
    for _ in 0..<999 { write(old) }
    let today = (0..<990).map { i -> String in
      let mode: Mode = i % 2 == 0 ? .focus : .shortBreak
      let outcome: SessionRecord.Outcome = i % 4 == 0 ? .completed : .cancelled
      return i % 10 == 9 ? torn : line(Int64(3000 - i * 3), mode, outcome)
    }
    write(today)
    close(fd)
    let completed = (0..<990).filter { $0 % 10 != 9 && $0 % 2 == 0 && $0 % 4 == 0 }.count
    XCTAssertEqual(try recorder().countToday(onDayOf: Self.now), completed)
    let damaged = messages.filter { $0.contains("damaged") }
    XCTAssertLessThanOrEqual(damaged.count, 21, "\(damaged.prefix(30))")
    XCTAssertEqual(damaged.count, 21)
    XCTAssertTrue(damaged[20].contains("79 more damaged line(s) skipped among its last 991 lines"), damaged[20])
  }
}

/// The device shows the recorder's count: at start, and afresh at a new local day.
final class TodayCountDeviceTests: XCTestCase {
  func testTheDeviceCountsTodayAtStartAndAtANewDay() throws {
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var wall = SessionRecorderTests.now
    func line(_ secondsAgo: Int64, _ mode: Mode) -> String {
      HistoryEntry(
        ended: WallTime(epochSeconds: wall.epochSeconds - secondsAgo, synced: true),
        record: SessionRecord(
          mode: mode, outcome: .completed, planned: minutes(25), actual: minutes(25), endedAt: .zero)
      ).jsonLine
    }
    let history = [line(3 * 86_400, .focus), line(1800, .focus), "{\"torn", line(900, .shortBreak), line(60, .focus)]
    try Data((history.joined(separator: "\n") + "\n").utf8).write(
      to: URL(fileURLWithPath: directory + "/history.jsonl"))
    let h = try DeviceHarness(directory: directory, wall: { wall })
    h.device.start()
    XCTAssertEqual(h.device.state.completedToday, 2)
    XCTAssertEqual(h.logLines.filter { $0.1.contains("line 3 from the end is damaged") }.count, 1, "\(h.logLines)")
    h.run(for: seconds(61))
    XCTAssertEqual(h.device.state.completedToday, 2, "the same day")
    wall.epochSeconds += 86_400
    h.run(for: seconds(61))
    XCTAssertEqual(h.device.state.completedToday, 0, "a new day")
  }
}
