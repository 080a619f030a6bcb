import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// Where the timer state and the history are kept, and the file system they are written on
/// (the real one, or a fault-injecting twin in tests).
public struct Storage {
  public var state: StateStore
  public var history: HistoryLog
  /// The settings set with `pomodoro ctl config set` or the page.
  public var settings: SettingsStore
  /// The state and the history are written by a thread of their own (`ThreadSaveWriter`), so
  /// that the loop never waits on an fsync: `pomodoro run` and the bench. Otherwise by the loop
  /// itself, at the instant the save is asked for (tests, scripts, the simulator).
  public var writesInBackground: Bool

  public init(directory: String, fileSystem: FileSystem = PosixFileSystem.shared, writesInBackground: Bool = false) {
    state = StateStore(directory: directory, fileSystem: fileSystem)
    history = HistoryLog(directory: directory, fileSystem: fileSystem)
    settings = SettingsStore(directory: directory, fileSystem: fileSystem)
    self.writesInBackground = writesInBackground
  }
}

/// The device's records on disk: the timer state saved with the history lines not yet in the
/// history file, those lines appended (fsynced) at each save, recovered after a restart, and
/// today's count of completed focus sessions read from the history's end. The device says when
/// (`Device` saves at each `.persist` and record); this says how.
public final class SessionRecorder {
  public let storage: Storage
  let log: Log
  /// Says what "today" is; never used to count time.
  let wallClock: () -> WallTime
  /// History lines not yet in the history file (the disk was full): kept, saved with the
  /// state, and appended at the next save that can write them.
  public internal(set) var pending: [String] = []
  /// The state file may still hold a timer whose session has since been recorded: if the next
  /// save fails, the file is removed rather than left to bring that timer back.
  var stateOnDiskEnded = false
  /// At most this many records are kept in memory while the history cannot be written.
  static let pendingLimit = 500
  /// The local day last counted (0: none yet).
  var day = 0
  /// A count names at most this many damaged lines; one more message says how many followed.
  public static let damagedNamed = 20

  /// Who does a save's blocking writes (`SaveWriter`).
  let writer: SaveWriter
  /// The save being written: how many pending lines its job took, how many of the oldest
  /// pending lines were dropped since (`pendingLimit`), and whether a record was added since.
  struct InFlight {
    var lines: Int
    /// The settings overlay the job writes (nil: none).
    var settings: String? = nil
    var dropped = 0
    var recorded = false
  }
  var inFlight: InFlight?
  /// The settings overlay's text to write at the next save (`Device.settingsAnswer`): a set
  /// replaces the one not yet taken, so a burst of sets writes the last (coalesced).
  public internal(set) var pendingSettings: String?
  /// Why the last write of the overlay failed (nil: it did not); a new set is refused while it
  /// did (the overlay is tried again at each save).
  public internal(set) var settingsFailure: Error?
  /// Saves started and ended (taken) since start: a reply waits for the save of its state.
  public private(set) var started = 0
  public private(set) var ended = 0

  /// `writer`: who writes (nil: a thread where `storage.writesInBackground`, else the caller).
  public init(storage: Storage, log: Log, wallClock: @escaping () -> WallTime, writer: SaveWriter? = nil) {
    self.storage = storage
    self.log = log
    self.wallClock = wallClock
    if let writer {
      self.writer = writer
    } else if storage.writesInBackground {
      do {
        self.writer = try ThreadSaveWriter(storage: storage)
      } catch {
        log.warning("\(error); the state is saved by the loop itself")
        self.writer = InlineSaveWriter(storage: storage)
      }
    } else {
      self.writer = InlineSaveWriter(storage: storage)
    }
  }

  /// A save is being written (a new one waits until it has ended: `collect`).
  public var saving: Bool { inFlight != nil }

  /// After a restart: history lines saved with the state that did not reach the history file
  /// are appended now (or kept pending, `Storage.recover`); then the saved timer, nil when there
  /// is none or it cannot be used (logged: the timer starts fresh).
  public func recover() -> SavedTimer? {
    do {
      pending = try storage.recover()
    } catch {
      log.warning("recovering the history kept with the state failed: \(error)")
    }
    do {
      return try storage.state.load()
    } catch {
      log.warning("\(error)")
      return nil
    }
  }

  /// Saves the state with the history lines still pending, then appends those lines: starts the
  /// writer on them (an inline writer has written them when this returns, and its end is
  /// taken). False, and nothing started, while a save is being written: the caller asks again
  /// once it has ended. A save that fails after a session ended removes the state file (a
  /// restart then starts fresh rather than bringing back a timer that already rang); the lines
  /// stay in memory and are tried again at the next save.
  @discardableResult
  public func save(_ saved: SavedTimer) -> Bool {
    guard inFlight == nil else { return false }
    let job = SaveJob(
      state: StateStore.bytes(saved, pendingHistory: pending), lines: pending, removeStateOnFailure: stateOnDiskEnded,
      settings: pendingSettings)
    inFlight = InFlight(lines: pending.count, settings: pendingSettings)
    pendingSettings = nil
    started += 1
    writer.start(job)
    collect()
    return true
  }

  /// Takes the end of the save being written, if it has ended (`waiting`: waits for it): logs
  /// what failed and drops the lines written from those pending. True when a save ended.
  @discardableResult
  public func collect(waiting: Bool = false) -> Bool {
    guard let flight = inFlight, let outcome = waiting ? writer.wait() : writer.finished() else { return false }
    inFlight = nil
    ended += 1
    if let error = outcome.stateError {
      log.once(
        "state-save", .error,
        "saving the timer state failed: \(error); \(Storage.advice(error, path: storage.state.path))")
      if outcome.removed { stateOnDiskEnded = flight.recorded }
      if let error = outcome.removeError {
        log.once("state-remove", .error, "removing the outdated \(storage.state.path) failed: \(error)")
      }
    } else {
      // The file holds the state of the job; a record made since ended a timer it may hold.
      stateOnDiskEnded = flight.recorded
      log.forget("state-save")
    }
    // Lines dropped from the front since the job was taken were among its first.
    pending.removeFirst(min(pending.count, max(0, outcome.linesWritten - flight.dropped)))
    if let error = outcome.appendError {
      log.once(
        "history-append", .error,
        "appending to the history failed: \(error); \(pending.count) record(s) kept in memory and written at the next save; \(Storage.advice(error, path: storage.history.path))"
      )
    } else {
      log.forget("history-append")
    }
    collectSettings(outcome.settingsError, flight.settings)
    return true
  }

  /// The end of an overlay's write: a failure is logged (once) and the overlay kept, unless a
  /// newer set replaced it, for the next save.
  func collectSettings(_ error: Error?, _ settings: String?) {
    guard settings != nil else { return }
    settingsFailure = error
    guard let error else { return log.forget("settings-save") }
    if pendingSettings == nil { pendingSettings = settings }
    log.once(
      "settings-save", .error,
      "saving \(storage.settings.path) failed: \(error); the settings run as set and are written at the next save; "
        + Storage.advice(error, path: storage.settings.path))
  }

  /// Waits for the save being written, if any: before the history is read (its pending lines
  /// would count twice while they are being appended), and at shutdown.
  public func settle() { collect(waiting: true) }

  /// Waits for the save being written and ends the writer (its thread).
  public func close() {
    settle()
    writer.stop()
  }

  /// Keeps a record's line pending until the next `save` writes it (the caller saves next): the
  /// oldest is dropped past `pendingLimit`.
  public func append(_ entry: HistoryEntry) {
    if pending.count >= Self.pendingLimit {
      log.error("the history could not be written for \(Self.pendingLimit) records; the oldest is dropped")
      pending.removeFirst()
      inFlight?.dropped += 1
    }
    pending.append(entry.jsonLine)
    stateOnDiskEnded = true
    inFlight?.recorded = true
  }

  /// The most records `recent` gives.
  public static let recentLimit = HistoryEntry.listLimit

  /// The records of the last `days` local days (today's included) as their lines, oldest first:
  /// the history read from its end back to the first record of an earlier day made on a
  /// synchronised clock (at most `recentLimit`, the newest kept), then the pending ones. Damaged
  /// lines are left out (today's count names them).
  public func recent(days: Int) throws -> [String] {
    settle()
    // Counted in civil days: yyyymmdd's order is the days', its arithmetic is not.
    let first = wallClock().localCivilDay.adding(-(days - 1)).yyyymmdd
    var lines: [String] = []
    try storage.history.fileSystem.forEachLineBackward(storage.history.path, maxLine: HistoryLog.maxLine) {
      offset, text in
      guard lines.count < Self.recentLimit else { return false }
      guard let text, case .entry(let entry) = HistoryLog.line(text, first: offset == 0) else { return true }
      if entry.ended.synced && entry.ended.localDay < first { return false }
      lines.append(text)
      return true
    }
    lines.reverse()
    let waiting = pending.filter {
      HistoryEntry(jsonLine: $0).map { !$0.ended.synced || $0.ended.localDay >= first } ?? false
    }
    return Array((lines + waiting).suffix(Self.recentLimit))
  }

  /// `history`'s item lines: the records of the last `days` local days, oldest first.
  public func historyItems(days: Int) -> Result<[String], ControlProtocol.Refusal> {
    do {
      return .success(try recent(days: days).map { ControlProtocol.itemLine("history", object: $0) })
    } catch {
      return .failure(.init("reading the history failed: \(error)"))
    }
  }

  /// Today's completed focus sessions when the local day is not the one last counted (the first
  /// call counts); nil when it is, or when the history cannot be read (logged; counted again at
  /// the next new day).
  public func countIfNewDay() -> Int? {
    let wall = wallClock()
    guard wall.localDay != day else { return nil }
    day = wall.localDay
    do {
      return try countToday(onDayOf: wall)
    } catch {
      log.warning("reading the history failed: \(error)")
      return nil
    }
  }

  /// Completed focus sessions on the local day of `now`, in the pending lines and in the history
  /// read from its end back to the first record of an earlier day (`TodayTally`): the cost of
  /// today's lines, whatever the history's length. Damaged lines are skipped: the first
  /// `damagedNamed` are named (each once), the rest counted in one message.
  public func countToday(onDayOf now: WallTime) throws -> Int {
    settle()
    var tally = TodayTally(day: now.localDay)
    for line in pending { if let entry = HistoryEntry(jsonLine: line) { tally.count(entry) } }
    let path = storage.history.path
    var fromEnd = 0
    var named = 0
    var unnamed = 0
    try storage.history.fileSystem.forEachLineBackward(path, maxLine: HistoryLog.maxLine) { offset, text in
      fromEnd += 1
      switch HistoryLog.line(text, first: offset == 0) {
      case .entry(let entry): return tally.take(entry)
      case .blank: return true
      case .damaged where named < Self.damagedNamed:
        named += 1
        log.once(
          "history-at-\(offset)", .warning,
          "\(path) line \(fromEnd) from the end is damaged (torn by a power cut, or a time out of range); skipped")
      case .damaged: unnamed += 1
      }
      return true
    }
    if unnamed > 0 {
      log.warning(
        "\(path): \(unnamed) more damaged line(s) skipped among its last \(fromEnd) lines while counting today's sessions"
      )
    }
    return tally.completed
  }
}
