import PomodoroCore
import PomodoroSystem

/// Where the timer state and the history are kept, and the file system they are written on
/// (the real one, or a fault-injecting twin in tests).
public struct Storage {
  public var state: StateStore
  public var history: HistoryLog
  /// The settings set with `pomodoro ctl config set` or the page.
  public var settings: SettingsStore

  public init(directory: String, fileSystem: FileSystem = PosixFileSystem.shared) {
    state = StateStore(directory: directory, fileSystem: fileSystem)
    history = HistoryLog(directory: directory, fileSystem: fileSystem)
    settings = SettingsStore(directory: directory, fileSystem: fileSystem)
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

  public init(storage: Storage, log: Log, wallClock: @escaping () -> WallTime) {
    self.storage = storage
    self.log = log
    self.wallClock = wallClock
  }

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

  /// Saves the state with the history lines still pending, then appends those lines. A save
  /// that fails after a session ended removes the state file (a restart then starts fresh
  /// rather than bringing back a timer that already rang); the lines stay in memory and are
  /// tried again at the next save.
  public func save(_ saved: SavedTimer) {
    do {
      try storage.state.save(saved, pendingHistory: pending)
      stateOnDiskEnded = false
      log.forget("state-save")
    } catch {
      log.once(
        "state-save", .error,
        "saving the timer state failed: \(error); \(Storage.advice(error, path: storage.state.path))")
      if stateOnDiskEnded {
        do {
          try storage.state.remove()
          stateOnDiskEnded = false
        } catch {
          log.once("state-remove", .error, "removing the outdated \(storage.state.path) failed: \(error)")
        }
      }
    }
    while let line = pending.first {
      do {
        try storage.history.appendLine(line)
        pending.removeFirst()
      } catch {
        log.once(
          "history-append", .error,
          "appending to the history failed: \(error); \(pending.count) record(s) kept in memory and written at the next save; \(Storage.advice(error, path: storage.history.path))"
        )
        return
      }
    }
    log.forget("history-append")
  }

  /// Keeps a record's line pending until the next `save` writes it (the caller saves next): the
  /// oldest is dropped past `pendingLimit`.
  public func append(_ entry: HistoryEntry) {
    if pending.count >= Self.pendingLimit {
      log.error("the history could not be written for \(Self.pendingLimit) records; the oldest is dropped")
      pending.removeFirst()
    }
    pending.append(entry.jsonLine)
    stateOnDiskEnded = true
  }

  /// The most records `recent` gives.
  public static let recentLimit = 5000

  /// The records of the last `days` local days (today's included) as their lines, oldest first:
  /// the history read from its end back to the first record of an earlier day made on a
  /// synchronised clock (at most `recentLimit`, the newest kept), then the pending ones. Damaged
  /// lines are left out (today's count names them).
  public func recent(days: Int) throws -> [String] {
    let first = wallClock().localDay - (days - 1)
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

/// Today's completed focus sessions, counted from the history's end backwards (a pure fold).
/// Records are appended in time order, so the first record of an earlier day that was made on
/// a synchronised clock ends today's stretch: nothing before it is read. A record made before
/// the clock was synchronised (`clock_synced` false: 1970, or the last shutdown's time) may
/// carry any day, so it neither ends the stretch nor is left out: like every record, it counts
/// when its day is today's.
public struct TodayTally: Equatable, Sendable {
  /// The local day counted (`WallTime.localDay`).
  public let day: Int
  public private(set) var completed = 0

  public init(day: Int) { self.day = day }

  /// Counts `entry` if it is a completed focus session of the day.
  public mutating func count(_ entry: HistoryEntry) {
    if entry.mode == .focus, entry.outcome == .completed, entry.ended.localDay == day { completed += 1 }
  }

  /// Takes the record before those taken so far; false when it ends today's stretch (read no
  /// further).
  public mutating func take(_ entry: HistoryEntry) -> Bool {
    let counts = entry.mode == .focus && entry.outcome == .completed
    guard entry.ended.synced || counts else { return true }
    let entryDay = entry.ended.localDay  // localtime_r once a line: a full read does a million
    if entry.ended.synced, entryDay < day { return false }
    if counts, entryDay == day { completed += 1 }
    return true
  }
}
