import PomodoroCore

/// One line of the history: a completed or cancelled session with the wall-clock time it ended.
public struct HistoryEntry: Equatable, Sendable {
  public var ended: WallTime
  public var mode: Mode
  public var outcome: SessionRecord.Outcome
  public var plannedMs: Int64
  public var actualMs: Int64
  /// Time added by snoozes after the timer first reached zero (included in `actualMs`).
  public var extendedMs: Int64

  public init(ended: WallTime, record: SessionRecord) {
    self.ended = ended
    mode = record.mode
    outcome = record.outcome
    plannedMs = record.planned / 1_000_000
    actualMs = record.actual / 1_000_000
    extendedMs = record.extended / 1_000_000
  }

  init(
    ended: WallTime, mode: Mode, outcome: SessionRecord.Outcome, plannedMs: Int64, actualMs: Int64,
    extendedMs: Int64 = 0
  ) {
    self.ended = ended
    self.mode = mode
    self.outcome = outcome
    self.plannedMs = plannedMs
    self.actualMs = actualMs
    self.extendedMs = extendedMs
  }

  /// The fields in the order they are written, for JSON lines, the transcript and CSV alike.
  public var fields: [(String, JSONValue)] {
    [
      ("ended", .string(ended.iso8601)), ("clock_synced", .bool(ended.synced)), ("mode", .string(mode.rawValue)),
      ("outcome", .string(outcome.rawValue)), ("planned_ms", .int(plannedMs)), ("actual_ms", .int(actualMs)),
      ("extended_ms", .int(extendedMs)),
    ]
  }

  public var jsonLine: String { FlatJSON.encode(fields) }

  public init?(jsonLine: String) {
    guard let o = FlatJSON.decode(jsonLine), let synced = o["clock_synced"]?.bool,
      let ended = o["ended"]?.string.flatMap({ WallTime(iso8601: $0, synced: synced) }),
      let mode = o["mode"]?.string.flatMap(Mode.init(rawValue:)),
      let outcome = o["outcome"]?.string.flatMap(SessionRecord.Outcome.init(rawValue:)),
      let planned = o["planned_ms"]?.int, let actual = o["actual_ms"]?.int
    else { return nil }
    self.init(
      ended: ended, mode: mode, outcome: outcome, plannedMs: planned, actualMs: actual,
      extendedMs: o["extended_ms"]?.int ?? 0)
  }
}

/// The history file, `history.jsonl`: one JSON object a line, appended and fsynced per record.
public struct HistoryLog {
  public let path: String
  public let fileSystem: FileSystem

  public init(directory: String, fileSystem: FileSystem = PosixFileSystem.shared) {
    path = directory + "/history.jsonl"
    self.fileSystem = fileSystem
  }

  /// Appends the entry's line and fsyncs it; on failure nothing of it is left in the file.
  public func append(_ entry: HistoryEntry) throws { try appendLine(entry.jsonLine) }

  /// Appends a line as written by `HistoryEntry.jsonLine` (a record kept while the disk was full).
  public func appendLine(_ line: String) throws { try Files.appendLine(path, line, in: fileSystem) }

  /// Every readable entry, and the line numbers of those that were not (a line torn by a power
  /// cut): skipped and reported, never fatal.
  public func read() throws -> (entries: [HistoryEntry], damagedLines: [Int]) {
    guard let text = try fileSystem.readText(path) else { return ([], []) }
    var entries: [HistoryEntry] = []
    var damaged: [Int] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
      if let entry = HistoryEntry(jsonLine: String(line)) { entries.append(entry) } else { damaged.append(index + 1) }
    }
    return (entries, damaged)
  }

  /// Completed focus sessions on the local calendar day of `now`.
  public static func completedFocus(in entries: [HistoryEntry], onDayOf now: WallTime) -> Int {
    let day = now.localDay
    return entries.filter { $0.mode == .focus && $0.outcome == .completed && $0.ended.localDay == day }.count
  }

  /// CSV with a header, for spreadsheets.
  public static func csv(_ entries: [HistoryEntry]) -> String {
    var out = "ended,clock_synced,mode,outcome,planned_ms,actual_ms,extended_ms\n"
    for e in entries {
      out +=
        "\(e.ended.iso8601),\(e.ended.synced),\(e.mode.rawValue),\(e.outcome.rawValue),\(e.plannedMs),\(e.actualMs),\(e.extendedMs)\n"
    }
    return out
  }
}
