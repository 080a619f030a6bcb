import PomodoroControl
import PomodoroCore
import PomodoroSystem

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

  /// Streams the file from its last line back: each readable entry to `entry` until it returns
  /// false, each damaged line's number counted from the end (1: the last line) to `damaged`.
  /// Memory is one chunk and one line; the time, the lines read.
  public func scanBackward(entry: (HistoryEntry) throws -> Bool, damaged: (Int) throws -> Void) throws {
    var fromEnd = 0
    try fileSystem.forEachLineBackward(path, maxLine: Self.maxLine) { offset, text in
      fromEnd += 1
      switch Self.line(text, first: offset == 0) {
      case .entry(let e): return try entry(e)
      case .blank: return true
      case .damaged:
        try damaged(fromEnd)
        return true
      }
    }
  }

  /// Streams the records of the last `days` local days (today's included), oldest first, as
  /// `scan` does: the file is read from its end back to the first record of an earlier day made
  /// on a synchronised clock (records are appended in time order, so none before it is in the
  /// span; the device's `history` command reads the same), then forward from the line after it.
  /// The cost is the span's lines, whatever the file's length. A damaged line's number counts
  /// from the file's end (1: its last line).
  public func scan(
    days: Int, today: CivilDay, dayOf: (WallTime) -> CivilDay = { $0.localCivilDay },
    entry: (HistoryEntry) throws -> Void, damaged: (Int) throws -> Void
  ) throws {
    let first = today.adding(1 - max(1, days))
    var start: Int64 = 0
    var next: Int64?
    var lines = 0
    let found = try fileSystem.forEachLineBackward(path, maxLine: Self.maxLine) { offset, text in
      if case .entry(let e) = Self.line(text, first: offset == 0), e.ended.synced, dayOf(e.ended) < first {
        start = next ?? Int64.max
        return false
      }
      next = offset
      lines += 1
      return true
    }
    guard found, start != Int64.max else { return }
    try fileSystem.forEachLine(path, from: start, maxLine: Self.maxLine) { number, text in
      guard number <= lines else { return }
      switch Self.line(text, first: start == 0 && number == 1) {
      case .entry(let e): try entry(e)
      case .blank: return
      case .damaged: try damaged(lines - number + 1)
      }
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
  ).allFields.map(\.0).joined(separator: ",")

  /// One entry as a CSV row (no line end), from the same fields as its JSON line.
  public static func csvLine(_ e: HistoryEntry) -> String {
    e.allFields.map { csvText($0.1) }.joined(separator: ",")
  }

  /// A value as a CSV cell: numbers and booleans as JSON writes them, text quoted only when it
  /// holds a comma, a quote or a line break, or when it would start a formula in a spreadsheet
  /// (`=`, `+`, `-`, `@`, a tab or a carriage return first: a label typed or set over MQTT
  /// as `=cmd|' /C calc'!A0`), which gets a `'` in front, as OWASP's CSV-injection advice says.
  static func csvText(_ value: JSONValue) -> String {
    switch value {
    case .string(let s):
      let formula = startsFormula(s)
      guard formula || s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
      let cell = formula ? "'" + s : s
      return "\"" + cell.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    case .int(let n): return String(n)
    case .bool(let b): return b ? "true" : "false"
    case .null: return ""
    case .list: return csvText(.string(value.text))
    }
  }

  /// Whether a spreadsheet would read text starting so as a formula (OWASP: `=`, `+`, `-`, `@`,
  /// a tab, a carriage return).
  static func startsFormula(_ s: String) -> Bool {
    guard let first = s.utf8.first else { return false }
    return [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D].contains(first)
  }
}
