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

  /// The version `bytes` writes: 2 since the flow counted up inside; `decode` reads 1 (0.2.0's)
  /// too, for one release.
  public static let version: Int64 = 2

  /// The file's contents for `saved` with `pendingHistory` (what `save` writes): a countdown's
  /// `duration_ns` (its total, or the idle picker's) and `remaining_ns`, or a flow's `counted_ns`;
  /// a countdown's `origin` (`preset`, `dialed`, or `earned`: the break a flow earned).
  public static func bytes(_ saved: SavedTimer, pendingHistory: [String] = []) -> [UInt8] {
    var pairs: [(String, JSONValue)] = [
      ("version", .int(version)),
      ("phase", .string(saved.phase.rawValue)),
      ("mode", .string(saved.mode.rawValue)),
    ]
    switch saved.count {
    case .down(let remaining, let total):
      pairs.append(("duration_ns", .int(total)))
      pairs.append(("remaining_ns", .int(remaining)))
    case .up(let counted):
      pairs.append(("counted_ns", .int(counted)))
    }
    pairs.append(("focus_done_in_cycle", .int(Int64(saved.focusDoneInCycle))))
    pairs.append(("extended_ns", .int(saved.extended)))
    if let origin = saved.origin { pairs.append(("origin", .string(origin.rawValue))) }
    if let label = saved.label { pairs.append(("label", .string(label.text))) }
    if !saved.recentLabels.isEmpty {
      pairs.append(("recent_labels", .list(saved.recentLabels.map { .string($0.text) })))
    }
    if saved.interruptions.internal > 0 {
      pairs.append(("interruptions_internal", .int(Int64(saved.interruptions.internal))))
    }
    if saved.interruptions.external > 0 {
      pairs.append(("interruptions_external", .int(Int64(saved.interruptions.external))))
    }
    if let followed = saved.room {
      pairs.append(("room", .string(followed.room)))
      pairs.append(("room_plan_rev", .int(followed.planRevision)))
      pairs.append(("room_phase", .int(Int64(followed.index))))
    }
    if let profile = saved.profile { pairs.append(("profile", .string(profile))) }
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
  /// state of version 2, or of version 1 (0.2.0's, read for one release: a flow as a countdown
  /// from the dial's top, `counted` = `duration_ns - remaining_ns`; the earned break as
  /// `break_after_flow`).
  public static func decode(_ text: String, path: String) throws -> SavedTimer {
    guard let o = FlatJSON.decode(text) else { throw StateFileError(path: path) }
    guard let written = o["version"] else { throw StateFileError(path: path) }
    guard written == .int(version) || written == .int(version1) else {
      throw StateFileError(path: path, version: written.text)
    }
    guard let phase = o["phase"]?.string.flatMap(Phase.init(rawValue:)),
      let mode = o["mode"]?.string.flatMap(Mode.init(rawValue:)),
      let cycle = o["focus_done_in_cycle"]?.int
    else {
      throw StateFileError(path: path)
    }
    // `extended_ns` (snoozes) is optional: files written before it existed have none.
    guard let extended = o["extended_ns"].map({ $0.int }) ?? 0 else { throw StateFileError(path: path) }
    let count: Count
    let origin: DurationOrigin?
    if written == .int(version1) {
      guard let duration = o["duration_ns"]?.int, let remaining = o["remaining_ns"]?.int,
        let afterFlow = o["break_after_flow"].map({ $0.bool }) ?? false
      else { throw StateFileError(path: path) }
      // `break_after_flow` was written only when true; the other origins were not saved (the
      // restore guesses). A flow counted down from the dial's top.
      switch mode.kind.counting {
      case .down: (count, origin) = (.down(remaining: remaining, total: duration), afterFlow ? .earned : nil)
      case .up:
        // Held to the engine's range first: a crafted file's difference cannot overflow.
        let (top, bottom) = (min(max(0, duration), Engine.longestTotal), min(max(0, remaining), Engine.longestTotal))
        (count, origin) = (.up(counted: max(0, top - bottom)), nil)
      }
    } else {
      switch mode.kind.counting {
      case .down:
        guard let duration = o["duration_ns"]?.int, let remaining = o["remaining_ns"]?.int else {
          throw StateFileError(path: path)
        }
        count = .down(remaining: remaining, total: duration)
      case .up:
        guard let counted = o["counted_ns"]?.int else { throw StateFileError(path: path) }
        count = .up(counted: counted)
      }
      switch (mode.kind.counting, o["origin"]) {
      case (.up, _), (.down, nil): origin = nil  // A flow's time has no origin: it has no duration.
      case (.down, .some(let value)):
        guard let word = value.string, let known = DurationOrigin(rawValue: word) else {
          throw StateFileError(path: path)
        }
        origin = known
      }
    }
    // The label, the recent labels and the interruptions (since 0.3.0) are optional; one that
    // is not a label the rules allow (a hand-edited file) is left out, the timer kept.
    func label(_ value: JSONValue?) -> SessionLabel? {
      guard let text = value?.string, case .success(let label?) = SessionLabel.parse(text) else { return nil }
      return label
    }
    func marks(_ key: String) -> Int {
      Int(min(max(0, o[key]?.int ?? 0), Int64(Interruptions.most)))
    }
    // The profile (issue 48) is optional too: a file without it (or with a name the rules do not
    // allow) means the base settings.
    // The room phase the timer followed (since 0.3.0), optional: a file that names none, or
    // names it out of range, restores the timer as the desk's own.
    var followed: SavedTimer.Followed?
    if let room = o["room"]?.string, RoomNames.isRoom(room), let plan = o["room_plan_rev"]?.int, plan > 0,
      let index = o["room_phase"]?.int, (0..<8).contains(index)
    {
      followed = SavedTimer.Followed(room: room, planRevision: plan, index: Int(index))
    }
    return SavedTimer(
      phase: phase, mode: mode, count: count, focusDoneInCycle: Int(cycle), extended: extended, origin: origin,
      label: label(o["label"]), recentLabels: (o["recent_labels"]?.list ?? []).compactMap(label),
      interruptions: Interruptions(
        internal: marks("interruptions_internal"), external: marks("interruptions_external")),
      room: followed, profile: o["profile"]?.string.flatMap { Profile.isName($0) ? $0 : nil })
  }

  /// 0.2.0's version.
  static let version1: Int64 = 1
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
      return "\(path) has version \(TextLines.visible(version)), which this pomodoro does not know "
        + "(it writes \(StateStore.version) and reads 1 too); "
        + "it was ignored and the timer starts fresh"
    }
    return "\(path) is damaged and was ignored; the timer starts fresh"
  }
}
