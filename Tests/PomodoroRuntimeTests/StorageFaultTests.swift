import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroGraphics
import PomodoroMock
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

/// What the device tells the outside, kept to compare a run with faults against one without.
final class StorageRecorder: DeviceObserver {
  var records: [String] = []
  var states: [String] = []
  var buzzer: [String] = []
  func stateChanged(_ s: EngineState, at: Instant) { states.append("\(s.phase) \(s.mode) \(s.duration) \(at)") }
  func frameFlushed(bytes: Int, shown: String, at: Instant) {}
  func buzzerChanged(_ on: Bool, at: Instant) { buzzer.append("\(on) \(at)") }
  func recorded(_ entry: HistoryEntry, at: Instant) { records.append(entry.jsonLine) }
}

/// The storage layer under a full disk, I/O errors, a read-only file system and power cuts
/// after every write, fsync and rename of a whole day of sessions, on `FaultyFileSystem`.
final class StorageFaultTests: XCTestCase {
  static let directory = "/var/lib/pomodoro"
  /// Nothing to draw: these tests are about time and storage, and a blank screen wakes the
  /// loop only when the shown second changes.
  static var blank: Screen { Screen(render: { _, _ in Framebuffer() }, nextFrame: { _, _ in nil }) }

  /// The day's presets: the real ones with POMODORO_FULL_DAY=1 (about 9 virtual hours, a few
  /// minutes of CPU in a debug build), else a day's 32 sessions shortened five times.
  static var dayConfig: DeviceConfig {
    var config = DeviceConfig()
    if ProcessInfo.processInfo.environment["POMODORO_FULL_DAY"] != "1" {
      config.engine.presets[.focus] = minutes(5)
      config.engine.presets[.shortBreak] = minutes(1)
      config.engine.presets[.longBreak] = minutes(3)
    }
    return config
  }

  func makeDevice(_ fs: FaultyFileSystem, config: DeviceConfig = StorageFaultTests.dayConfig) throws -> DeviceHarness {
    try Files.makeDirectories(Self.directory, in: fs)
    return try DeviceHarness(
      directory: Self.directory, config: config, fileSystem: fs, screen: Self.blank, wallFollowsClock: true)
  }

  /// Finding 4: with the disk full when a session ends, the record was lost (a torn line,
  /// reported as a power cut) and state.json kept "paused, 00:05 left", so a restart brought
  /// back a session that had rung.
  func testAFullDiskKeepsTheRecordAndNeverLeavesAnEndedTimer() throws {
    var config = DeviceConfig()
    config.engine.presets[.focus] = seconds(40)
    let fs = FaultyFileSystem()
    let h = try makeDevice(fs, config: config)
    let recorder = StorageRecorder()
    h.device.observer = recorder
    h.device.start()
    h.press(config.buttonStart)
    h.run(for: seconds(20))
    h.press(config.buttonStart)  // Paused with about 20 s left: saved.
    h.run(for: seconds(1))
    h.press(config.buttonStart)  // Resumed.
    h.run(for: seconds(15))
    fs.capacity = fs.used + 35  // The disk fills up: 35 bytes fit.
    h.run(for: seconds(10))
    XCTAssertEqual(h.device.state.phase, .ringing, "the countdown goes on")
    let rang = h.buzzerHistory.first { $0.active }
    XCTAssertNotNil(rang, "the alarm sounds")
    fs.fault = .noSpace  // Nothing fits any more (removing a file still works).
    h.press(config.buttonStart)  // Acknowledged: the session ends and is recorded.
    h.run(for: seconds(1))
    XCTAssertEqual(recorder.records.count, 1)
    XCTAssertEqual(h.device.pendingHistory, recorder.records, "kept in memory")
    let statePath = Self.directory + "/state.json"
    let onDisk = try StateStore(directory: Self.directory, fileSystem: fs).load()
    XCTAssertTrue(onDisk == nil || onDisk?.phase == .idle, "no ended timer left on disk: \(String(describing: onDisk))")
    XCTAssertEqual(try HistoryLog(directory: Self.directory, fileSystem: fs).read().damagedLines, [], "no torn line")
    let messages = h.logLines.map(\.1).joined(separator: "\n")
    XCTAssertTrue(messages.contains("no space left"), messages)
    XCTAssertFalse(messages.contains("power cut"), messages)

    // The power goes now: the restart comes back idle, never with the session that rang.
    for seed in 0..<UInt64(20) {
      let image = fs.crashImage(seed: seed)
      let again = try DeviceHarness(directory: Self.directory, config: config, fileSystem: image, screen: Self.blank)
      again.device.start()
      XCTAssertEqual(again.device.state.phase, .idle, "seed \(seed)")
      XCTAssertFalse(again.device.state.restored, "seed \(seed)")
    }

    // Space returns: the next save writes the record.
    fs.capacity = nil
    fs.fault = nil
    h.press(config.buttonStart)
    h.run(for: seconds(1))
    XCTAssertEqual(h.device.pendingHistory, [])
    let (entries, damaged) = try HistoryLog(directory: Self.directory, fileSystem: fs).read()
    XCTAssertEqual(entries.map(\.jsonLine), recorder.records)
    XCTAssertEqual(entries.first?.outcome, .completed)
    XCTAssertEqual(damaged, [])
    XCTAssertNotNil(fs.files[statePath])
  }

  // MARK: - A day of sessions

  struct Window {
    /// Before the end of this session (0-based, counting breaks)...
    var session: Int
    /// ...until this long into the next one.
    var lasting: Nanoseconds
    var apply: (FaultyFileSystem) -> Void
  }

  /// A working day: 16 focus sessions with their breaks (about 9 virtual hours), with a pause
  /// in every third session and a cancelled one every fifth. `windows` open faults around
  /// session ends. `onStep` sees each file-system step.
  @discardableResult
  func runDay(
    _ fs: FaultyFileSystem, windows: [Window] = [], check: ((DeviceHarness, StorageRecorder, Int) -> Void)? = nil
  ) throws -> (DeviceHarness, StorageRecorder) {
    let h = try makeDevice(fs)
    let recorder = StorageRecorder()
    h.device.observer = recorder
    if let check { fs.onStep = { check(h, recorder, $0) } }
    defer { fs.onStep = nil }
    h.device.start()
    var open: (FaultyFileSystem) -> Void = { _ in }
    for session in 0..<32 {
      let total = h.device.state.duration ?? 0
      h.press(h.config.buttonStart)
      h.run(for: seconds(1))
      if let window = windows.first(where: { $0.session == session - 1 }) {
        h.run(for: window.lasting)
        fs.fault = nil
        fs.capacity = nil
        open = { _ in }
      }
      if session % 3 == 1 {
        h.run(for: total / 3)
        h.press(h.config.buttonStart)
        h.run(for: seconds(17))
        h.press(h.config.buttonStart)
      }
      if session % 5 == 4 {
        h.run(for: total / 2)
        h.press(h.config.buttonCancel)
        h.run(for: seconds(1))
        h.press(h.config.buttonCancel)  // A long cancel would skip; two clicks: cancel, then nothing.
        h.run(for: seconds(1))
        h.press(h.config.buttonStart)
        h.run(for: seconds(1))
      }
      if let window = windows.first(where: { $0.session == session }) {
        open = window.apply
        h.run(for: max(0, (h.device.state.remaining(at: h.clock.now) ?? 0) - seconds(30)))
        open(fs)
      }
      for _ in 0..<1_000 where h.device.state.phase != .ringing { h.run(for: seconds(30)) }
      XCTAssertEqual(h.device.state.phase, .ringing, "session \(session)")
      h.run(for: seconds(3))
      h.press(h.config.buttonStart)
      h.run(for: seconds(2))
    }
    h.run(for: seconds(5))
    return (h, recorder)
  }

  /// Checks what a power cut now would leave, for one seed: the state file loads (old or new,
  /// never torn); after the restart's recovery the history is the device's records in order, no
  /// duplicate, none missing but those still only in memory; a saved timer is never a session
  /// the history already holds, and, without faults, lost at most 10 s.
  final class CutChecker {
    var sessionOf: [[UInt8]: Int] = [:]
    var lastState: [UInt8]?
    var images = 0
    var restarts = 0
    var failures: [String] = []
    let faultFree: Bool
    init(faultFree: Bool) { self.faultFree = faultFree }

    func check(_ h: DeviceHarness, _ r: StorageRecorder, _ fs: FaultyFileSystem, step: Int) {
      let dir = StorageFaultTests.directory
      if let now = fs.files[dir + "/state.json"], now != lastState {
        lastState = now
        sessionOf[now] = r.records.count
      }
      let seed = UInt64(step) &* 0x9E37_79B9
      let image = fs.crashImage(seed: seed)
      images += 1
      func fail(_ s: String) { failures.append("step \(step) seed \(seed): \(s)") }
      let storage = Storage(directory: dir, fileSystem: image)
      let stateBytes = image.files[dir + "/state.json"]
      let saved: SavedTimer?
      do { saved = try storage.state.load() } catch { return fail("state: \(error)") }
      do { _ = try storage.recover() } catch { return fail("recover: \(error)") }
      guard let (entries, damaged) = try? storage.history.read() else { return fail("history unreadable") }
      if damaged.count > 1 { fail("\(damaged.count) damaged lines") }
      let lines = entries.map(\.jsonLine)
      let emitted = r.records
      if lines.count > emitted.count || Array(emitted.prefix(lines.count)) != lines {
        return fail("history \(lines) is not a prefix of the records \(emitted)")
      }
      if lines.count < emitted.count - h.device.pendingHistory.count {
        fail("\(emitted.count - lines.count) written record(s) lost")
      }
      if let saved, saved.phase != .idle, let bytes = stateBytes {
        guard let session = sessionOf[bytes] else { return fail("a state never written: \(saved)") }
        if lines.count > session { fail("the saved \(saved.phase) timer is session \(session), already recorded") }
        if faultFree && lines.count != session { fail("the saved timer's earlier sessions are missing") }
        let live = h.device.state
        if faultFree, saved.phase != .ringing, session == emitted.count, live.phase != .idle {
          let lost = (saved.remaining ?? 0) - (live.remaining(at: h.clock.now) ?? 0)
          if lost < 0 || lost > seconds(10) { fail("\(lost) ns of the timer lost") }
        }
      }
      // Every 50th image is restarted whole: the device comes up on it.
      guard images % 25 == 0 else { return }
      restarts += 1
      let restartImage = fs.crashImage(seed: seed)
      guard
        let again = try? DeviceHarness(
          directory: dir, config: h.config, fileSystem: restartImage, screen: StorageFaultTests.blank)
      else { return fail("no restart") }
      again.device.start()
      if let saved, saved.phase == .running || saved.phase == .paused {
        if again.device.state.phase != .paused || !again.device.state.restored { fail("not restored paused") }
      } else if again.device.state.phase != .idle {
        fail("came back \(again.device.state.phase)")
      }
      let after = ((try? again.device.storage?.history.read().entries) ?? []).map(\.jsonLine)
      if Array(after.prefix(lines.count)) != lines || after.count > lines.count + 1 {
        fail("restart history \(after)")
      }
    }
  }

  /// A power cut after every write, fsync, rename and unlink of a whole day (thousands of cut
  /// points, each a different seeded worst case, every 50th restarted on the mocks).
  func testAPowerCutAfterEveryStepOfADay() throws {
    let fs = FaultyFileSystem()
    let checker = CutChecker(faultFree: true)
    let (h, recorder) = try runDay(fs) { h, r, step in checker.check(h, r, fs, step: step) }
    XCTAssertEqual(checker.failures.prefix(5), [])
    XCTAssertEqual(checker.failures.count, 0)
    XCTAssertGreaterThan(checker.images, 3_000)
    XCTAssertGreaterThan(checker.restarts, 100)
    XCTAssertEqual(recorder.records.count, 38, "32 sessions and 6 cancelled")
    XCTAssertEqual(try h.device.storage?.history.read().entries.map(\.jsonLine), recorder.records)
    print("storage.cut_points \(checker.images) restarts \(checker.restarts) sessions \(recorder.records.count)")
  }

  /// ENOSPC (a disk that fills up, and one that is full), EIO and EROFS windows around session
  /// ends over a day, with a cut checked after every step: never a crash, the countdown and the
  /// alarm exactly as without faults, no contradiction on disk, and once the faults end every
  /// session is in the history.
  func testFaultWindowsOverADayLoseNothingOnceTheyEnd() throws {
    let fs = FaultyFileSystem()
    let checker = CutChecker(faultFree: false)
    var windows = [
      Window(session: 2, lasting: seconds(40)) { $0.capacity = $0.used + 35 },
      Window(session: 5, lasting: seconds(30)) { $0.fault = .noSpace },
      Window(session: 8, lasting: seconds(45)) { $0.fault = .ioError },
      Window(session: 13, lasting: seconds(40)) { $0.fault = .readOnly },
      Window(session: 20, lasting: seconds(5)) { $0.capacity = $0.used + 200 },
    ]
    let (h, recorder) = try runDay(fs, windows: windows) { h, r, step in checker.check(h, r, fs, step: step) }
    for i in windows.indices { windows[i].apply = { _ in } }
    let (_, clean) = try runDay(FaultyFileSystem(), windows: windows)
    XCTAssertEqual(checker.failures.prefix(5), [])
    XCTAssertGreaterThan(fs.faultsInjected, 20)
    XCTAssertEqual(recorder.states, clean.states, "the countdown is unaffected")
    XCTAssertEqual(recorder.buzzer, clean.buzzer, "the alarm is unaffected")
    XCTAssertEqual(recorder.records.count, 38)
    let entries = try XCTUnwrap(h.device.storage?.history.read())
    XCTAssertEqual(entries.entries.map(\.jsonLine), recorder.records, "no session lost once the faults end")
    XCTAssertEqual(entries.damagedLines, [])
    let messages = h.logLines.map(\.1).joined(separator: "\n")
    for words in ["no space left", "I/O error", "read-only"] { XCTAssertTrue(messages.contains(words), words) }
    XCTAssertFalse(messages.contains("power cut"))
  }
}
