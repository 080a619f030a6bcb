#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Storage {
  /// After a restart: the history lines saved with the state (`StateStore.save`'s
  /// `pendingHistory`) that are not in the history file yet are appended. A line torn by a
  /// power cut does not count as written. Returns the lines that could not be written (a full
  /// disk), to keep pending.
  public func recover() throws -> [String] {
    let pending = try state.loadPendingHistory()
    guard !pending.isEmpty else { return [] }
    // Pending lines are appended in order, so those already written end the history (before a
    // line torn by the cut, if any). Matching the end, not any line, keeps a record that
    // happens to read like an older one (a Pi without a clock repeats 1970 times).
    let text = try history.fileSystem.readText(history.path) ?? ""
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    if !text.isEmpty, !text.hasSuffix("\n") { lines.removeLast() }
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
