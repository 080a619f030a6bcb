import PomodoroControl
import PomodoroCore
import PomodoroSystem

extension EngineState {
  /// What a restart from `saved` is worth a line of in the log: the timer restored, and a saved
  /// profile the config no longer defines (the base settings run instead).
  func restoredTexts(_ saved: SavedTimer, at now: Instant) -> [String] {
    var said = restoredText(at: now).map { [$0] } ?? []
    if let gone = saved.profile, profile == nil {
      said.append(
        "the profile '\(gone)' saved in the state file is no longer in the config; running on the base settings "
          + "(pomodoro ctl profile NAME chooses one of: \(profileNames.joined(separator: ", ")))")
    }
    return said
  }

  /// What the journal says of a timer restored after a restart (nil: none was), paused: a flow's
  /// clock is the time counted, a countdown's the time left.
  func restoredText(at now: Instant) -> String? {
    guard restored else { return nil }
    let how: String
    switch count(at: now) {
    case .up: how = "counted"
    case .down: how = "left"
    }
    return "restored a \(mode.rawValue) timer with \(formatClock(shownSeconds(at: now))) \(how), paused"
  }
}

extension Storage {
  /// After a restart: the history lines saved with the state (`StateStore.save`'s
  /// `pendingHistory`) that are not in the history file yet are appended. A line torn by a
  /// power cut does not count as written. Returns the lines that could not be written (a full
  /// disk), to keep pending.
  public func recover() throws -> [String] {
    let pending = try state.loadPendingHistory().filter(Self.isRecord)
    guard !pending.isEmpty else { return [] }
    // Pending lines are appended in order, so those already written end the history (before a
    // line torn by the cut, if any). Matching the end, not any line, keeps a record that
    // happens to read like an older one (a Pi without a clock repeats 1970 times). Only the end
    // is read: room for every pending line and a torn one, whatever the history's size.
    let room = (pending.count + 1) * (HistoryLog.maxLine + 2)
    let tail = try history.fileSystem.tail(history.path, count: room) ?? []
    var lines = tail.split(separator: 0x0A, omittingEmptySubsequences: false).map {
      String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)
    }
    // The last piece is what follows the final newline: empty, or a line torn by the cut.
    _ = lines.popLast()
    // A tail that does not start the file starts inside a line.
    if tail.count == room, !lines.isEmpty { lines.removeFirst() }
    lines.removeAll { $0.isEmpty }
    if let last = lines.last, HistoryEntry(jsonLine: last) == nil { lines.removeLast() }
    var written = min(pending.count, lines.count)
    while written > 0, Array(lines.suffix(written)) != Array(pending.prefix(written)) { written -= 1 }
    var left = Array(pending.dropFirst(written))
    while let line = left.first {
      do { try history.appendLine(line) } catch { break }
      left.removeFirst()
    }
    return left
  }

  /// Whether a pending line read back from state.json is a history record the device could have
  /// written: anything else (a crafted or damaged state file) is dropped, never appended.
  static func isRecord(_ line: String) -> Bool {
    line.utf8.count <= HistoryLog.maxLine && HistoryEntry(jsonLine: line) != nil
  }

  /// What a failed write means for the user, by errno (never "a power cut" for a full disk).
  static func advice(_ error: Error, path: String) -> String {
    switch (error as? SystemError)?.errno {
    case ENOSPC:
      return "no space left on the disk: the timer keeps time, and the state and history are written when space returns"
    case EROFS:
      return "the file system is read-only: the timer keeps time, and writing is tried again at the next save"
    case EIO:
      return "the disk reports an I/O error: the timer keeps time, and writing is tried again at the next save"
    default: return "check that \(path)'s directory exists and is writable"
    }
  }
}
