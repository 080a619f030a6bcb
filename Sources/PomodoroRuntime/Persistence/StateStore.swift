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
    guard let text = try Files.readText(path) else { return nil }
    guard let o = FlatJSON.decode(text),
      let phase = o["phase"]?.string.flatMap(Phase.init(rawValue:)),
      let mode = o["mode"]?.string.flatMap(Mode.init(rawValue:)),
      let duration = o["duration_ns"]?.int, let remaining = o["remaining_ns"]?.int,
      let cycle = o["focus_done_in_cycle"]?.int
    else {
      throw StateFileError(path: path)
    }
    return SavedTimer(phase: phase, mode: mode, duration: duration, remaining: remaining, focusDoneInCycle: Int(cycle))
  }
}

public struct StateFileError: Error, CustomStringConvertible {
  public var path: String
  public var description: String { "\(path) is damaged and was ignored; the timer starts fresh" }
}
