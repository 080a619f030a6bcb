import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

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
    let old = SavedTimer(
      phase: .paused, mode: .focus, duration: minutes(25), remaining: minutes(3), focusDoneInCycle: 1)
    try store.save(old)
    // A second name for the old file: replacing means a new file renamed over the name, so the
    // old one is never opened for writing (an in-place rewrite would change it under this link).
    let second = directory + "/old-state"
    XCTAssertEqual(link(store.path, second), 0)
    let oldText = try Files.readText(second)
    let saved = SavedTimer(
      phase: .running, mode: .soft, duration: minutes(5), remaining: 123_456_789, focusDoneInCycle: 2,
      extended: seconds(90))
    try store.save(saved)
    XCTAssertEqual(try store.load(), saved, "extended included")
    XCTAssertEqual(try StateStore(directory: directory).load(), saved)
    XCTAssertEqual(try Files.readText(second), oldText, "the old file was not written")
    XCTAssertNotEqual(try Files.readText(store.path), oldText)
    XCTAssertFalse(Files.exists(store.path + ".tmp"), "no temporary left behind")
  }

  /// The room phase a timer followed is saved and read back; a file naming it out of range
  /// (a crafted or hand-edited one) keeps the timer as the desk's own.
  func testTheRoomPhaseATimerFollowedRoundTrips() throws {
    var saved = SavedTimer(
      phase: .running, mode: .focus, duration: minutes(25), remaining: minutes(20), focusDoneInCycle: 0)
    saved.room = SavedTimer.Followed(room: "team", planRevision: 7, index: 1)
    let text = String(decoding: StateStore.bytes(saved), as: UTF8.self)
    XCTAssertTrue(text.contains(#""room":"team","room_plan_rev":7,"room_phase":1"#), text)
    XCTAssertEqual(try StateStore.decode(text, path: "state.json"), saved)
    for bad in [#""room":"a b""#, #""room_plan_rev":0"#, #""room_phase":8"#, #""room_phase":-1"#] {
      let key = String(bad.prefix { $0 != ":" })
      let damaged = text.replacingOccurrences(
        of: #"\#(key):[^,}]*"#, with: bad, options: .regularExpression)
      XCTAssertNotEqual(damaged, text)
      XCTAssertNil(try StateStore.decode(damaged, path: "state.json").room, damaged)
    }
  }

  func testARunningFlowIsSavedAndComesBackPausedWithItsCount() throws {
    let store = StateStore(directory: directory)
    var state = Engine.step(EngineState(now: .zero), .select(.flow), now: .zero).0
    state = Engine.step(state, .press(.start), now: .zero).0
    let now = Instant.zero + seconds(12 * 60 + 34) + ms(250)
    try store.save(state.saved(at: now))
    let (back, _) = Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero)
    XCTAssertEqual(back.phase, .paused)
    XCTAssertEqual(back.mode, .flow)
    XCTAssertEqual(back.elapsed(at: Instant.zero + seconds(99)), seconds(12 * 60 + 34) + ms(250), "paused: it stands")
    XCTAssertEqual(back.statusLine(at: .zero), "paused  flow  12:34, break 3:00 earned")
    // A flow is saved as its count: no duration, no time left.
    let text = try XCTUnwrap(try Files.readText(store.path))
    XCTAssertTrue(text.contains(#""counted_ns":754250000000"#), text)
    XCTAssertFalse(text.contains("duration_ns") || text.contains("remaining_ns") || text.contains("origin"), text)
    // The break a flow earned is saved as such: its origin.
    let earned = Engine.step(back, .press(.cancel), now: .zero).0
    try store.save(earned.saved(at: .zero))
    XCTAssertEqual(try Files.readText(store.path)?.contains(#""origin":"earned""#), true)
    XCTAssertEqual(try store.load()?.origin, .earned)
    XCTAssertTrue(
      Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero).0.breakAfterFlow)
    try store.save(EngineState(now: .zero).saved(at: .zero))
    XCTAssertEqual(try Files.readText(store.path)?.contains(#""origin":"preset""#), true)
    XCTAssertEqual(try store.load()?.origin, .preset)
  }

  /// State files exactly as 0.2.0 wrote them (version 1: a flow as a countdown from the dial's
  /// top, 23:59:59, and the break it earned as `break_after_flow`) are read for one release.
  func testAStateFileWrittenBy020IsRestored() throws {
    let store = StateStore(directory: directory)
    // A flow paused at 12:34.25 counted; 0.2.0 saved it as 86399 s less what was left.
    try Files.writeAtomically(
      store.path,
      Array(
        (#"{"version":1,"phase":"paused","mode":"flow","duration_ns":86399000000000,"remaining_ns":85644750000000,"#
          + #""focus_done_in_cycle":2,"extended_ns":0}"# + "\n").utf8))
    let flow = try XCTUnwrap(try store.load())
    XCTAssertEqual(flow.count, .up(counted: seconds(12 * 60 + 34) + ms(250)))
    let (back, _) = Engine.restore(flow, settings: EngineSettings(), now: .zero)
    XCTAssertEqual(back.phase, .paused)
    XCTAssertEqual(back.mode, .flow)
    XCTAssertNil(back.duration, "a flow has no duration")
    XCTAssertEqual(back.count(at: .zero + minutes(5)), .up(counted: seconds(12 * 60 + 34) + ms(250)))
    XCTAssertEqual(back.focusDoneInCycle, 2)
    XCTAssertEqual(back.statusLine(at: .zero), "paused  flow  12:34, break 3:00 earned")
    // Running, it comes back paused with its count too.
    try Files.writeAtomically(
      store.path,
      Array(
        (#"{"version":1,"phase":"running","mode":"flow","duration_ns":86399000000000,"remaining_ns":86339000000000,"#
          + #""focus_done_in_cycle":0,"extended_ns":0}"# + "\n").utf8))
    XCTAssertEqual(
      Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero).0.count(at: .zero),
      .up(counted: minutes(1)))
    // A crafted file's difference does not overflow.
    try Files.writeAtomically(
      store.path,
      Array(
        (#"{"version":1,"phase":"paused","mode":"flow","duration_ns":9223372036854775807,"remaining_ns":-9,"#
          + #""focus_done_in_cycle":0,"extended_ns":0}"# + "\n").utf8))
    XCTAssertEqual(
      Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero).0.count(at: .zero),
      .up(counted: Engine.longestFlow))
    // The break a flow earned, idle: flow follows it.
    try Files.writeAtomically(
      store.path,
      Array(
        (#"{"version":1,"phase":"idle","mode":"short","duration_ns":180000000000,"remaining_ns":180000000000,"#
          + #""focus_done_in_cycle":1,"extended_ns":0,"break_after_flow":true}"# + "\n").utf8))
    var earned = Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero).0
    XCTAssertEqual(earned.mode, .shortBreak)
    XCTAssertEqual(earned.duration, minutes(3))
    XCTAssertTrue(earned.breakAfterFlow)
    XCTAssertEqual(earned.title, "Earned break")
    earned = Engine.step(earned, .skip, now: .zero).0
    XCTAssertEqual(earned.mode, .flow, "flow again after the break it earned")
    // A countdown paused with 3:00 of a dialed 20:00 left, and the idle picker at its preset.
    try Files.writeAtomically(
      store.path,
      Array(
        (#"{"version":1,"phase":"paused","mode":"focus","duration_ns":1200000000000,"remaining_ns":180000000000,"#
          + #""focus_done_in_cycle":3,"extended_ns":0}"# + "\n").utf8))
    let focus = Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero).0
    XCTAssertEqual(focus.count(at: .zero), .down(remaining: minutes(3), total: minutes(20)))
    XCTAssertEqual(focus.cycleText, "4/4")
    XCTAssertTrue(focus.durationDialed)
    try Files.writeAtomically(
      store.path,
      Array(
        (#"{"version":1,"phase":"idle","mode":"focus","duration_ns":1500000000000,"remaining_ns":1500000000000,"#
          + #""focus_done_in_cycle":0,"extended_ns":0}"# + "\n").utf8))
    let idle = Engine.restore(try XCTUnwrap(try store.load()), settings: EngineSettings(), now: .zero).0
    XCTAssertFalse(idle.durationDialed, "at its preset: follows the preset")
    XCTAssertFalse(idle.breakAfterFlow)
  }

  /// A power cut after every step of a save, on the fault-injecting file system: the state
  /// file is always the old state or the new one, never torn, empty or missing.
  func testAPowerCutAtAnyStepOfASaveLeavesTheOldStateOrTheNew() throws {
    let fs = FaultyFileSystem()
    try Files.makeDirectories("/state", in: fs)
    let store = StateStore(directory: "/state", fileSystem: fs)
    let old = SavedTimer(
      phase: .running, mode: .focus, duration: minutes(25), remaining: minutes(20), focusDoneInCycle: 0)
    let new = SavedTimer(
      phase: .paused, mode: .focus, duration: minutes(25), remaining: minutes(19), focusDoneInCycle: 0)
    try store.save(old)
    var images = 0
    var survivors: [Bool] = []
    fs.onStep = { step in
      for seed in 0..<UInt64(40) {
        let image = fs.crashImage(seed: seed &* 7919 &+ UInt64(step))
        let loaded = try? StateStore(directory: "/state", fileSystem: image).load()
        XCTAssertTrue(loaded == old || loaded == new, "step \(step) seed \(seed): \(String(describing: loaded))")
        survivors.append(loaded == new)
        images += 1
      }
    }
    try store.save(new)
    fs.onStep = nil
    XCTAssertGreaterThanOrEqual(images, 4 * 40, "create, write, fsync, rename, directory fsync")
    XCTAssertTrue(survivors.contains(true) && survivors.contains(false), "the cuts leave the old state or the new")
    for seed in 0..<UInt64(40) {
      let image = fs.crashImage(seed: seed)
      XCTAssertEqual(try StateStore(directory: "/state", fileSystem: image).load(), new, "durable once saved")
    }
  }

  /// Finding: a planted `state.json.tmp` symlink made the save write through it.
  func testWritesNeverFollowAPlantedSymbolicLink() throws {
    let victim = directory + "/victim"
    try Files.writeAtomically(victim, Array("precious\n".utf8))
    let store = StateStore(directory: directory)
    XCTAssertEqual(symlink(victim, store.path + ".tmp"), 0)
    let saved = SavedTimer(
      phase: .paused, mode: .focus, duration: minutes(25), remaining: minutes(7), focusDoneInCycle: 0)
    try store.save(saved)
    XCTAssertEqual(try Files.readText(victim), "precious\n", "the link's target is untouched")
    XCTAssertEqual(try store.load(), saved)
    XCTAssertEqual(try PosixFileSystem.shared.kind(store.path), .regular)
    XCTAssertNil(try PosixFileSystem.shared.kind(store.path + ".tmp"), "the planted link is gone")

    // The state file or the history itself a link, or a history that is not a regular file: refused.
    try FileManager.default.removeItem(atPath: store.path)
    XCTAssertEqual(symlink(victim, store.path), 0)
    XCTAssertThrowsError(try store.save(saved)) { XCTAssertTrue("\($0)".contains("symbolic link"), "\($0)") }
    let history = HistoryLog(directory: directory)
    XCTAssertEqual(symlink(victim, history.path), 0)
    let entry = HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_000_000, synced: true),
      record: SessionRecord(
        mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(25), endedAt: .zero))
    XCTAssertThrowsError(try history.append(entry)) { XCTAssertTrue("\($0)".contains("symbolic link"), "\($0)") }
    XCTAssertEqual(try Files.readText(victim), "precious\n")
    try FileManager.default.removeItem(atPath: history.path)
    XCTAssertEqual(mkfifo(history.path, 0o600), 0)
    XCTAssertThrowsError(try history.append(entry)) { XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)") }
  }

  func testDirectoriesAreCreatedPrivate() throws {
    let nested = directory + "/a/b"
    try Files.makeDirectories(nested)
    for path in [directory + "/a", nested] {
      var info = stat()
      XCTAssertEqual(lstat(path, &info), 0)
      XCTAssertEqual(info.st_mode & 0o777, 0o700, path)
    }
  }

  /// Finding: a full disk left 35 bytes of a record as a torn line, reported forever after as
  /// a power cut. The append is cut back to the old size and says the disk is full.
  func testAFullDiskLeavesNoTornLine() throws {
    let fs = FaultyFileSystem()
    try Files.makeDirectories("/state", in: fs)
    let log = HistoryLog(directory: "/state", fileSystem: fs)
    let entry = HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_000_000, synced: true),
      record: SessionRecord(
        mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(26), extended: minutes(1),
        endedAt: .zero))
    try log.append(entry)
    let before = try XCTUnwrap(fs.read(log.path))
    fs.capacity = fs.used + 35
    XCTAssertThrowsError(try log.append(entry)) { XCTAssertTrue("\($0)".contains("No space left"), "\($0)") }
    XCTAssertEqual(try fs.read(log.path), before, "the 35 bytes that fitted are cut back")
    fs.capacity = nil
    try log.append(entry)
    let (entries, damaged) = try log.read()
    XCTAssertEqual(entries, [entry, entry])
    XCTAssertEqual(damaged, [])
  }

  func testHistoryLinesCarryExtendedAfterActual() throws {
    let entry = HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_050_805, synced: true),
      record: SessionRecord(
        mode: .focus, outcome: .completed, planned: minutes(25), actual: minutes(27), extended: minutes(2),
        endedAt: .zero))
    XCTAssertEqual(
      entry.jsonLine,
      #"{"ended":"2026-11-30T15:00:05Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1500000,"actual_ms":1620000,"extended_ms":120000}"#
    )
    XCTAssertEqual(HistoryEntry(jsonLine: entry.jsonLine), entry)
    let old =
      #"{"ended":"2026-11-30T15:00:05Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1,"actual_ms":1}"#
    XCTAssertEqual(HistoryEntry(jsonLine: old)?.extendedMs, 0, "lines written before extended_ms read as 0")
  }

  /// planned_ms, actual_ms and extended_ms must be 0 to a week (`HistoryEntry.longestMs`): a
  /// negative or huge one makes the line damaged, as a torn one is.
  func testHistoryTimesOutsideZeroToAWeekAreDamaged() {
    func line(_ key: String, _ value: String) -> String {
      var fields = ["planned_ms": "1500000", "actual_ms": "1500000", "extended_ms": "0"]
      fields[key] = value
      return
        #"{"ended":"2026-11-30T15:00:05Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":\#(fields["planned_ms"]!),"actual_ms":\#(fields["actual_ms"]!),"extended_ms":\#(fields["extended_ms"]!)}"#
    }
    let week = String(HistoryEntry.longestMs)
    XCTAssertEqual(week, "604800000")
    XCTAssertLessThan(wholeMilliseconds(Engine.longestTotal), HistoryEntry.longestMs, "the longest session is readable")
    for key in ["planned_ms", "actual_ms", "extended_ms"] {
      XCTAssertNotNil(HistoryEntry(jsonLine: line(key, "0")), key)
      XCTAssertNotNil(HistoryEntry(jsonLine: line(key, week)), key)
      for bad in ["-1", "-5", String(HistoryEntry.longestMs + 1), "5000000000000000000", "9223372036854775807"] {
        XCTAssertNil(HistoryEntry(jsonLine: line(key, bad)), "\(key) \(bad)")
      }
    }
    XCTAssertNil(HistoryEntry(jsonLine: line("extended_ms", #""1""#)), "extended_ms, when given, is a number")
    XCTAssertEqual(HistoryEntry(jsonLine: line("actual_ms", week))?.actualMs, HistoryEntry.longestMs)
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
      "ended,clock_synced,mode,outcome,planned_ms,actual_ms,extended_ms,interruptions_internal,interruptions_external,label,room,profile\n"
        + "2026-11-30T15:00:05Z,false,hard,completed,720000,720000,0,0,0,,,\n"
    )
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

/// Recovery decides "already appended or not" from the history's end, at any size.
final class RecoveryAtSizeTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "pomodoro-recovery-\(UUID().uuidString)"
    try Files.makeDirectories(directory)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  func record(_ second: Int64, _ mode: Mode = .focus) -> String {
    HistoryEntry(
      ended: WallTime(epochSeconds: 1_796_000_000 + second, synced: true),
      record: SessionRecord(mode: mode, outcome: .completed, planned: minutes(25), actual: minutes(25), endedAt: .zero)
    ).jsonLine
  }

  func saveWithPending(_ lines: [String]) throws {
    try StateStore(directory: directory).save(
      SavedTimer(phase: .idle, mode: .shortBreak, duration: minutes(5), remaining: minutes(5), focusDoneInCycle: 1),
      pendingHistory: lines)
  }

  /// A 50 MB history (about 380,000 records): the pending record is appended once, and a second
  /// recovery (the record already at the end) appends nothing.
  func testAFiftyMegabyteHistoryLosesNoPendingRecord() throws {
    let storage = Storage(directory: directory)
    let old = (0..<1000).map { record($0) }.joined(separator: "\n") + "\n"
    let chunk = Array(old.utf8)
    let fd = open(storage.history.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    XCTAssertGreaterThanOrEqual(fd, 0)
    var written = 0
    while written < 50_000_000 {
      written += chunk.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
    close(fd)
    let pending = record(999_999, .shortBreak)
    try saveWithPending([pending])
    XCTAssertEqual(try storage.recover(), [], "appended, none left pending")
    XCTAssertEqual(try Files.tail(storage.history.path, count: pending.utf8.count + 1), Array((pending + "\n").utf8))
    let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: storage.history.path)[.size] as? Int)
    XCTAssertEqual(try storage.recover(), [])
    XCTAssertEqual(
      try XCTUnwrap(FileManager.default.attributesOfItem(atPath: storage.history.path)[.size] as? Int), size,
      "already at the end: not appended twice")
  }

  /// A sparse 1 GiB history whose last record is the pending one, torn line and all: read from
  /// its end only.
  func testASparseGigabyteHistoryIsReadFromItsEnd() throws {
    let storage = Storage(directory: directory)
    let first = record(1)
    let second = record(2, .shortBreak)
    let fd = open(storage.history.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    XCTAssertEqual(ftruncate(fd, 1 << 30), 0)
    XCTAssertEqual(lseek(fd, 0, SEEK_END), 1 << 30)
    let text = Array(("\n" + first + "\n" + "{\"ended\":\"torn").utf8)
    _ = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    try saveWithPending([first, second])
    XCTAssertEqual(try storage.recover(), [])
    let tail = try XCTUnwrap(Files.tail(storage.history.path, count: 4096))
    let lines = String(decoding: tail, as: UTF8.self).split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.last, second, "the second record was appended after the torn line")
    XCTAssertEqual(lines.filter { $0 == first }.count, 1, "the first was already there, not appended again")
    XCTAssertEqual(tail.first, 0, "the tail read is the sparse file's zeros, then its records")
  }

  /// Junk in state.json's pending_history is never appended: each line must be a record.
  func testAPendingLineThatIsNoRecordIsDropped() throws {
    let storage = Storage(directory: directory)
    let good = record(5)
    try saveWithPending(["{\"junk\":1}", good, "x"])
    XCTAssertEqual(try storage.recover(), [])
    let read = try storage.history.read()
    XCTAssertEqual(read.entries.map(\.jsonLine), [good])
    XCTAssertEqual(read.damagedLines, [], "no junk became a damaged line")
  }
}
