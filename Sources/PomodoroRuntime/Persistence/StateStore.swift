import PomodoroCore

/// The timer state on disk (`state.json` in the state directory), replaced atomically so that
/// a power cut at any instant leaves a readable file: the old state or the new one.
public struct StateStore {
  public let path: String

  public init(directory: String) { path = directory + "/state.json" }

  public func save(_ saved: SavedTimer) throws {
    let json = FlatJSON.encode([
      "version": .int(1),
      "phase": .string(saved.phase.rawValue),
      "mode": .string(saved.mode.rawValue),
      "duration_ns": .int(saved.duration),
      "remaining_ns": .int(saved.remaining),
      "focus_done_in_cycle": .int(Int64(saved.focusDoneInCycle)),
    ])
    try Files.writeAtomically(path, Array((json + "\n").utf8))
  }

  /// The saved state; nil when there is none. A damaged file is an error naming it (the caller
  /// logs it and starts fresh).
  public func load() throws -> SavedTimer? {
    guard let text = try Files.readText(path, limit: 64 * 1024) else { return nil }
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
    return SavedTimer(
      phase: phase, mode: mode, duration: duration, remaining: remaining, focusDoneInCycle: Int(cycle),
      extended: extended)
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
