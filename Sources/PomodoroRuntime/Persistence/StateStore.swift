import PomodoroCore
import PomodoroSystem

/// The timer state on disk (`state.json` in the state directory), replaced atomically so that
/// a power cut at any instant leaves a readable file: the old state or the new one.
public struct StateStore {
  public let path: String
  public let fileSystem: FileSystem

  public init(directory: String, fileSystem: FileSystem = PosixFileSystem.shared) {
    path = directory + "/state.json"
    self.fileSystem = fileSystem
  }

  /// Replaces the state file. `pendingHistory` holds history lines not yet known to be in the
  /// history file (a session that just ended, or records kept while the disk was full): they
  /// are saved with the state that follows them, so that a restart finds the session either
  /// still running or recorded (`Storage.recover`), never both and never neither.
  public func save(_ saved: SavedTimer, pendingHistory: [String] = []) throws {
    try Files.writeAtomically(path, Self.bytes(saved, pendingHistory: pendingHistory), in: fileSystem)
  }

  /// The file's contents for `saved` with `pendingHistory` (what `save` writes).
  public static func bytes(_ saved: SavedTimer, pendingHistory: [String] = []) -> [UInt8] {
    var pairs: [(String, JSONValue)] = [
      ("version", .int(1)),
      ("phase", .string(saved.phase.rawValue)),
      ("mode", .string(saved.mode.rawValue)),
      ("duration_ns", .int(saved.duration)),
      ("remaining_ns", .int(saved.remaining)),
      ("focus_done_in_cycle", .int(Int64(saved.focusDoneInCycle))),
      ("extended_ns", .int(saved.extended)),
    ]
    // Only when set: files without it read as false.
    if saved.breakAfterFlow { pairs.append(("break_after_flow", .bool(true))) }
    if !pendingHistory.isEmpty { pairs.append(("pending_history", .string(pendingHistory.joined(separator: "\n")))) }
    return Array((FlatJSON.encode(pairs) + "\n").utf8)
  }

  /// Removes the state file (a restart then starts fresh): what a failed save does when the
  /// file on disk still holds a timer that has since ended. unlink needs no free space.
  public func remove() throws {
    try fileSystem.remove(path)
    try fileSystem.syncDirectory(Files.directory(of: path))
  }

  /// The history lines saved with the state (see `save`); none when there is no state file.
  public func loadPendingHistory() throws -> [String] {
    guard let text = try fileSystem.readText(path), let o = FlatJSON.decode(text),
      let pending = o["pending_history"]?.string
    else { return [] }
    return pending.split(separator: "\n").map(String.init)
  }

  /// The saved state; nil when there is none. A damaged file is an error naming it (the caller
  /// logs it and starts fresh).
  public func load() throws -> SavedTimer? {
    guard let text = try fileSystem.readText(path) else { return nil }
    return try Self.decode(text, path: path)
  }

  /// The state in `text` (the contents of `path`): a `StateFileError` unless it is a whole
  /// version 1 state.
  public static func decode(_ text: String, path: String) throws -> SavedTimer {
    guard let o = FlatJSON.decode(text) else { throw StateFileError(path: path) }
    if let version = o["version"], version != .int(1) {
      throw StateFileError(path: path, version: version.text)
    }
    guard o["version"] != nil,
      let phase = o["phase"]?.string.flatMap(Phase.init(rawValue:)),
      let mode = o["mode"]?.string.flatMap(Mode.init(rawValue:)),
      let duration = o["duration_ns"]?.int, let remaining = o["remaining_ns"]?.int,
      let cycle = o["focus_done_in_cycle"]?.int
    else {
      throw StateFileError(path: path)
    }
    // `extended_ns` (snoozes) is optional: files written before it existed have none.
    guard let extended = o["extended_ns"].map({ $0.int }) ?? 0 else { throw StateFileError(path: path) }
    // `break_after_flow` likewise (written only when true).
    guard let afterFlow = o["break_after_flow"].map({ $0.bool }) ?? false else { throw StateFileError(path: path) }
    return SavedTimer(
      phase: phase, mode: mode, duration: duration, remaining: remaining, focusDoneInCycle: Int(cycle),
      extended: extended, breakAfterFlow: afterFlow)
  }
}

/// A state file that cannot be used: damaged, or of a version this program does not know.
/// Either way the caller logs it and the timer starts fresh.
public struct StateFileError: Error, CustomStringConvertible, Equatable {
  public var path: String
  /// The version the file says it has, when it is not one this program reads.
  public var version: String?

  public init(path: String, version: String? = nil) {
    self.path = path
    self.version = version
  }

  public var description: String {
    if let version {
      return "\(path) has version \(TextLines.visible(version)), which this pomodoro does not know (it writes 1); "
        + "it was ignored and the timer starts fresh"
    }
    return "\(path) is damaged and was ignored; the timer starts fresh"
  }
}
