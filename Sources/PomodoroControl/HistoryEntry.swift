import PomodoroCore
import PomodoroSystem

/// One line of the history: a completed or cancelled session with the wall-clock time it ended.
/// The record and its reader live here, below the runtime, beside `StateFields`: the device
/// writes it (`HistoryLog`, PomodoroRuntime), `history` sends it as item lines, and `pomodoro
/// stats` and the page read it without the runtime.
public struct HistoryEntry: Equatable, Sendable {
  /// The most records the device's `history` lists (the newest kept): a list this long may be cut.
  public static let listLimit = 5000

  public var ended: WallTime
  public var mode: Mode
  public var outcome: SessionRecord.Outcome
  public var plannedMs: Int64
  public var actualMs: Int64
  /// Time added by snoozes after the timer first reached zero (included in `actualMs`).
  public var extendedMs: Int64
  /// What the session was for; nil: no label (and every line written before labels).
  public var label: SessionLabel?
  /// The interruptions marked during it (none in lines written before they were).
  public var interruptions: Interruptions
  /// The room whose session it was (docs/room.md); nil: the desk's own.
  public var room: String?
  /// The profile in use (issue 48); nil: the base settings (and every line written before profiles).
  public var profile: String?

  public init(ended: WallTime, record: SessionRecord) {
    self.ended = ended
    mode = record.mode
    outcome = record.outcome
    plannedMs = wholeMilliseconds(record.planned)
    actualMs = wholeMilliseconds(record.actual)
    extendedMs = wholeMilliseconds(record.extended)
    label = record.label
    interruptions = record.interruptions
    room = record.room
    profile = record.profile
  }

  public init(
    ended: WallTime, mode: Mode, outcome: SessionRecord.Outcome, plannedMs: Int64, actualMs: Int64,
    extendedMs: Int64 = 0, label: SessionLabel? = nil, interruptions: Interruptions = Interruptions(),
    room: String? = nil, profile: String? = nil
  ) {
    self.ended = ended
    self.mode = mode
    self.outcome = outcome
    self.plannedMs = plannedMs
    self.actualMs = actualMs
    self.extendedMs = extendedMs
    self.label = label
    self.interruptions = interruptions
    self.room = room
    self.profile = profile
  }

  /// The fields in the order they are written, for JSON lines and the transcript: `fieldNames`'
  /// first seven always, the interruptions when any was marked, the label, the room and the profile
  /// when there is one (so that a session without them is written as before them).
  public var fields: [(String, JSONValue)] {
    let values: [JSONValue] = [
      .string(ended.iso8601), .bool(ended.synced), .string(mode.rawValue), .string(outcome.rawValue), .int(plannedMs),
      .int(actualMs), .int(extendedMs), .int(Int64(interruptions.internal)), .int(Int64(interruptions.external)),
      label.map { .string($0.text) } ?? .null, room.map { .string($0) } ?? .null,
      profile.map { .string($0) } ?? .null,
    ]
    let marked = interruptions.total > 0
    return zip(Self.fieldNames, values).enumerated().filter { i, pair in
      i < 7 || (i < 9 && marked) || (i == 9 && label != nil) || (i == 10 && room != nil) || (i == 11 && profile != nil)
    }.map(\.1)
  }

  /// Every field, each always given (no label: an empty string): CSV's columns.
  public var allFields: [(String, JSONValue)] {
    var all = fields.filter { $0.0 != "label" && $0.0 != "room" && $0.0 != "profile" }
    if interruptions.total == 0 {
      all += [("interruptions_internal", .int(0)), ("interruptions_external", .int(0))]
    }
    return all + [
      ("label", .string(label?.text ?? "")), ("room", .string(room ?? "")), ("profile", .string(profile ?? "")),
    ]
  }

  public var jsonLine: String { FlatJSON.encode(fields) }

  /// The names of `fields`, in their order.
  public static let fieldNames = [
    "ended", "clock_synced", "mode", "outcome", "planned_ms", "actual_ms", "extended_ms", "interruptions_internal",
    "interruptions_external", "label", "room", "profile",
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
    // Labels and interruptions are optional (lines written before them have none); a label
    // the rules refuse, or a count out of range, is a damaged line.
    let marks = ["interruptions_internal", "interruptions_external"].map { o[$0].map { $0.int } ?? 0 }
    guard let inside = marks[0], let outside = marks[1],
      [inside, outside].allSatisfy({ 0...Int64(Interruptions.most) ~= $0 })
    else { return nil }
    var label: SessionLabel?
    if let value = o["label"] {
      guard let parsed = value.string.flatMap(SessionLabel.stored) else { return nil }
      label = parsed
    }
    var room: String?
    if let value = o["room"] {
      guard let name = value.string, RoomNames.isRoom(name) else { return nil }
      room = name
    }
    // The profile (issue 48), optional: one that is no profile's name is a damaged line.
    var profile: String?
    if let value = o["profile"] {
      guard let name = value.string, Profile.isName(name) else { return nil }
      profile = name
    }
    self.init(
      ended: ended, mode: mode, outcome: outcome, plannedMs: planned, actualMs: actual, extendedMs: extended,
      label: label, interruptions: Interruptions(internal: Int(inside), external: Int(outside)), room: room,
      profile: profile)
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
      let extended = number()
    else { return nil }
    var interruptions = Interruptions()
    if literal(",\"interruptions_internal\":") {
      guard let inside = number(), inside <= Interruptions.most, literal(",\"interruptions_external\":"),
        let outside = number(), outside <= Interruptions.most
      else { return nil }
      interruptions = Interruptions(internal: Int(inside), external: Int(outside))
    }
    var label: SessionLabel?
    if literal(",\"label\":\"") {
      // A label without escapes (every one without a quote or a backslash) is read here; any
      // other goes to the general reader.
      let start = i
      while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\") { i += 1 }
      guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
      let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
      guard let parsed = SessionLabel.stored(text) else { return nil }
      label = parsed
      i += 1
    }
    guard literal("}"), i == b.count else { return nil }
    return HistoryEntry(
      ended: ended, mode: mode, outcome: outcome, plannedMs: planned, actualMs: actual, extendedMs: extended,
      label: label, interruptions: interruptions)
  }
}
