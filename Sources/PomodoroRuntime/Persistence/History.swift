import PomodoroCore
import PomodoroSystem

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
    plannedMs = wholeMilliseconds(record.planned)
    actualMs = wholeMilliseconds(record.actual)
    extendedMs = wholeMilliseconds(record.extended)
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
    let values: [JSONValue] = [
      .string(ended.iso8601), .bool(ended.synced), .string(mode.rawValue), .string(outcome.rawValue), .int(plannedMs),
      .int(actualMs), .int(extendedMs),
    ]
    return Array(zip(Self.fieldNames, values))
  }

  public var jsonLine: String { FlatJSON.encode(fields) }

  /// The names of `fields`, in their order.
  public static let fieldNames = [
    "ended", "clock_synced", "mode", "outcome", "planned_ms", "actual_ms", "extended_ms",
  ]

  /// The longest time a line may give (`planned_ms`, `actual_ms`, `extended_ms`): a week. The
  /// device never records more than `Engine.longestTotal` a session (47:59:58: up to 23:59:59
  /// left, set while paused, on top of up to as much run); a week leaves room for that to grow
  /// while any sum of them stays far from overflowing (2^63 ms is 15 billion weeks: no history
  /// file holds that many lines). A line outside 0 to this is damaged, as a torn one is.
  public static let longestMs: Int64 = wholeMilliseconds(days(7))

  public init?(jsonLine: String) {
    guard let entry = Self(canonical: jsonLine) ?? Self.general(jsonLine) else { return nil }
    self = entry
  }

  /// Any well-formed line: a flat JSON object with the fields in any order and spacing, and
  /// `extended_ms` optional (lines written before it existed).
  static func general(_ jsonLine: String) -> HistoryEntry? {
    FlatJSON.decode(jsonLine).flatMap(HistoryEntry.init(fields:))
  }

  /// A record from its fields (a history line taken apart, or `history`'s item line).
  public init?(fields o: [String: JSONValue]) {
    guard let synced = o["clock_synced"]?.bool,
      let ended = o["ended"]?.string.flatMap({ WallTime(iso8601: $0, synced: synced) }),
      let mode = o["mode"]?.string.flatMap(Mode.init(rawValue:)),
      let outcome = o["outcome"]?.string.flatMap(SessionRecord.Outcome.init(rawValue:)),
      let planned = o["planned_ms"]?.int, let actual = o["actual_ms"]?.int
    else { return nil }
    let extended = o["extended_ms"].map { $0.int } ?? 0
    guard let extended, [planned, actual, extended].allSatisfy({ 0...Self.longestMs ~= $0 }) else { return nil }
    self.init(ended: ended, mode: mode, outcome: outcome, plannedMs: planned, actualMs: actual, extendedMs: extended)
  }
}

extension HistoryEntry {
  /// The line if it is exactly as `jsonLine` writes it (every line the device writes), read by
  /// position without building a JSON object: `history` and `stats` read a million of them.
  /// Nil for anything else (other spacing, order or escapes, an older line without
  /// `extended_ms`), which the general reader then takes; a fuzz test holds both to the same
  /// answer.
  init?(canonical line: String) {
    var line = line
    guard let entry = line.withUTF8({ Self.canonical(bytes: $0) }) else { return nil }
    self = entry
  }

  static func canonical(bytes b: UnsafeBufferPointer<UInt8>) -> HistoryEntry? {
    var i = 0
    func literal(_ text: StaticString) -> Bool {
      let n = text.utf8CodeUnitCount
      guard i + n <= b.count else { return false }
      for k in 0..<n where b[i + k] != text.utf8Start[k] { return false }
      i += n
      return true
    }
    /// A whole number as JSON writes it: no sign, no leading zero, within `longestMs`.
    func number() -> Int64? {
      let start = i
      var n: Int64 = 0
      while i < b.count, b[i] >= 0x30, b[i] <= 0x39, i - start < 15 {
        n = n * 10 + Int64(b[i] - 0x30)
        i += 1
      }
      guard i > start, b[start] != 0x30 || i == start + 1, n <= longestMs else { return nil }
      return n
    }
    /// A JSON string of plain letters (a mode, an outcome), without its closing quote.
    func word() -> String? {
      let start = i
      while i < b.count, (0x61...0x7A).contains(b[i]) { i += 1 }
      return i > start ? String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self) : nil
    }
    guard literal("{\"ended\":\""), i + 20 <= b.count else { return nil }
    let time = UnsafeBufferPointer(rebasing: b[i..<i + 20])
    i += 20
    guard literal("\",\"clock_synced\":") else { return nil }
    let synced: Bool
    if literal("true") { synced = true } else if literal("false") { synced = false } else { return nil }
    guard let ended = WallTime(iso8601Bytes: time, synced: synced), literal(",\"mode\":\""),
      let mode = word().flatMap(Mode.init(rawValue:)), literal("\",\"outcome\":\""),
      let outcome = word().flatMap(SessionRecord.Outcome.init(rawValue:)), literal("\",\"planned_ms\":"),
      let planned = number(), literal(",\"actual_ms\":"), let actual = number(), literal(",\"extended_ms\":"),
      let extended = number(), literal("}"), i == b.count
    else { return nil }
    return HistoryEntry(
      ended: ended, mode: mode, outcome: outcome, plannedMs: planned, actualMs: actual, extendedMs: extended)
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

  /// The longest history line read (a record is about 130 bytes); a longer one is damaged.
  public static let maxLine = 4096

  /// Every readable entry, and the line numbers of those that were not (a line torn by a power
  /// cut): skipped and reported, never fatal.
  public func read() throws -> (entries: [HistoryEntry], damagedLines: [Int]) {
    var entries: [HistoryEntry] = []
    var damaged: [Int] = []
    try scan(entry: { entries.append($0) }, damaged: { damaged.append($0) })
    return (entries, damaged)
  }

  /// Streams the file: each readable entry to `entry`, each damaged line's number to `damaged`,
  /// in file order, memory flat in the file's size. Only a regular file is read (a FIFO or a
  /// link to /dev/zero is a `Files.ReadError`); lines may end in CRLF; a leading BOM is dropped.
  public func scan(entry: (HistoryEntry) throws -> Void, damaged: (Int) throws -> Void) throws {
    try fileSystem.forEachLine(path, maxLine: Self.maxLine) { number, text in
      try Self.scanLine(number, text, entry: entry, damaged: damaged)
    }
  }

  /// One line of the history as `Files.LineSplitter` gives it (nil: too long): an entry, a
  /// damaged line's number, or nothing for a blank line.
  static func scanLine(
    _ number: Int, _ text: String?, entry: (HistoryEntry) throws -> Void, damaged: (Int) throws -> Void
  ) throws {
    switch line(text, first: number == 1) {
    case .entry(let e): try entry(e)
    case .blank: return
    case .damaged: try damaged(number)
    }
  }

  /// What a line of the history is.
  enum Line {
    case entry(HistoryEntry)
    case blank
    /// Torn, too long (nil text), or with a time out of range.
    case damaged
  }

  /// A line's text as the line readers give it (nil: too long); `first` when it starts the file
  /// (a leading BOM is dropped).
  static func line(_ text: String?, first: Bool) -> Line {
    guard var line = text else { return .damaged }
    if first, line.unicodeScalars.first == "\u{FEFF}" { line.unicodeScalars.removeFirst() }
    if line.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
    return HistoryEntry(jsonLine: line).map { .entry($0) } ?? .damaged
  }

  /// Completed focus sessions (`SessionRecord.isCompletedFocus`) on the local calendar day of `now`.
  public static func completedFocus(in entries: [HistoryEntry], onDayOf now: WallTime) -> Int {
    let day = now.localDay
    return entries.filter { SessionRecord.isCompletedFocus($0.mode, $0.outcome) && $0.ended.localDay == day }.count
  }

  /// CSV with a header, for spreadsheets: the same fields as the JSON lines, in their order.
  public static func csv(_ entries: [HistoryEntry]) -> String {
    ([csvHeader] + entries.map(csvLine)).map { $0 + "\n" }.joined()
  }

  /// The CSV header: the JSON lines' keys, in their order.
  public static let csvHeader = HistoryEntry(
    ended: WallTime(epochSeconds: 0, synced: false),
    record: SessionRecord(mode: .focus, outcome: .completed, planned: 0, actual: 0, endedAt: .zero)
  ).fields.map(\.0).joined(separator: ",")

  /// One entry as a CSV row (no line end), from the same fields as its JSON line.
  public static func csvLine(_ e: HistoryEntry) -> String {
    e.fields.map { csvText($0.1) }.joined(separator: ",")
  }

  /// A value as a CSV cell: numbers and booleans as JSON writes them, text quoted only when it
  /// holds a comma, a quote or a line break.
  static func csvText(_ value: JSONValue) -> String {
    switch value {
    case .string(let s):
      guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
      return "\"" + s.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    case .int(let n): return String(n)
    case .bool(let b): return b ? "true" : "false"
    case .null: return ""
    case .list: return csvText(.string(value.text))
    }
  }
}
