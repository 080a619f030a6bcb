import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What the time was for: each label's completed focus sessions (focus and flow, as
/// `SessionRecord.isCompletedFocus` says) and their minutes, today, this week (from Monday) and
/// over the `weeks` weeks ending today (`pomodoro stats --by-label`; the page's week by label).
/// Pure: "today" and the way an instant maps to a local day are given.
///
/// Built from the history's end backwards (`Builder`, fed newest first), so that reading stops at
/// the first record of a day before the span made on a synchronised clock: records are appended
/// in time order, so none before it falls in the span, and the cost is that of the span's lines,
/// whatever the history's length. A record made before the wall clock was set is counted on the
/// day of the next record made with it set, as `pomodoro stats` counts it; one with no such record
/// after it is on no day (`unsyncedUnplaced`).
public struct LabelStats: Equatable, Sendable {
  /// One label's figures (`label` nil: the sessions without one).
  public struct Row: Equatable, Sendable {
    public var label: SessionLabel?
    public var today = HistoryStats.Count()
    /// Monday to today.
    public var week = HistoryStats.Count()
    /// The `weeks` weeks ending today.
    public var span = HistoryStats.Count()
    /// The sessions of every label past `labelLimit`, summed.
    public var others = false
    public init(label: SessionLabel?, others: Bool = false) {
      self.label = label
      self.others = others
    }

    /// The label as shown: its text, `LabelStats.noLabel` or `LabelStats.otherLabels`.
    public var name: String { others ? LabelStats.otherLabels : label?.text ?? LabelStats.noLabel }

    mutating func add(_ entry: HistoryEntry, on day: CivilDay, in stats: LabelStats) {
      span.add(entry)
      if day >= stats.today.monday { week.add(entry) }
      if day == stats.today { today.add(entry) }
    }
  }

  /// What the rows are: each label (`--by-label`), or each profile (`--by-profile`, issue 48),
  /// whose names are labels too (a desk id's letters, at most 20).
  public enum Grouping: Sendable {
    case label, profile

    /// The row of `entry`.
    func key(_ entry: HistoryEntry) -> SessionLabel? {
      switch self {
      case .label: return entry.label
      case .profile: return entry.profile.flatMap(SessionLabel.stored)
      }
    }

    /// The word for a row, in the heading.
    public var word: String {
      switch self {
      case .label: return "label"
      case .profile: return "profile"
      }
    }

    /// How the sessions without one are named.
    public var none: String {
      switch self {
      case .label: return LabelStats.noLabel
      case .profile: return Profile.baseName
      }
    }
  }

  /// How the sessions without a label are named, on the page and in the table.
  public static let noLabel = "No label"
  /// How the sessions of labels past `labelLimit` are named.
  public static let otherLabels = "Other labels"
  /// The most labels counted one by one (the most recently used kept); sessions of any other
  /// label are summed in `others`. A desk never gets near it; a crafted history cannot make
  /// the statistics grow without bound.
  public static let labelLimit = 1000
  /// The span without `--days`: 12 weeks, `pomodoro stats`' heatmap.
  public static let defaultWeeks = 12

  public var today: CivilDay
  public var weeks: Int
  /// The span's first day: `weeks` weeks ending today.
  public var first: CivilDay { today.adding(1 - weeks * 7) }
  /// Each label seen in the span (with no label's row, if any session had none), in no order:
  /// `rows(by:)` sorts them.
  public var labels: [Row] = []
  /// The sessions of labels past `labelLimit`, summed (nil: none).
  public var others: Row?
  /// Completed focus sessions recorded before the clock was set, placed on a later record's day.
  public var unsyncedPlaced = 0
  /// Those with no record made on a set clock after them: on no day, not counted.
  public var unsyncedUnplaced = 0
  /// How many lines read could not be read (damaged), and the first `HistoryStats.damagedLinesShown`.
  public var damagedCount = 0
  public var damagedLines: [Int] = []

  public init(today: CivilDay, weeks: Int = defaultWeeks) {
    self.today = today
    self.weeks = max(1, weeks)
  }

  /// The statistics of `entries`, in file order (oldest first).
  public init(
    entries: [HistoryEntry], today: CivilDay, weeks: Int = defaultWeeks,
    dayOf: @escaping (WallTime) -> CivilDay = { $0.localCivilDay }
  ) {
    var builder = Builder(today: today, weeks: weeks, dayOf: dayOf)
    for entry in entries.reversed() where !builder.add(entry) { break }
    self = builder.finish()
  }

  /// The rows with a session in `period` (`\.today`, `\.week`, `\.span`), the most minutes
  /// first (then the most sessions, then by name), the sessions without a label after the
  /// labels and the summed others last.
  public func rows(by period: KeyPath<Row, HistoryStats.Count>) -> [Row] {
    let named = labels.filter { $0.label != nil && $0[keyPath: period].sessions > 0 }.sorted { a, b in
      let (x, y) = (a[keyPath: period], b[keyPath: period])
      if x.ms != y.ms { return x.ms > y.ms }
      if x.sessions != y.sessions { return x.sessions > y.sessions }
      return a.name < b.name
    }
    let none = labels.filter { $0.label == nil && $0[keyPath: period].sessions > 0 }
    let rest = [others].compactMap { $0 }.filter { $0[keyPath: period].sessions > 0 }
    return named + none + rest
  }

  /// Builds the statistics from the history read from its end: `add` each readable entry,
  /// newest first, until it returns false; `damaged` each line that could not be read. Memory:
  /// one row a label (at most `labelLimit`).
  public struct Builder {
    var stats: LabelStats
    let dayOf: (WallTime) -> CivilDay
    /// The day of the newest record made on a set clock read so far: the next one in file order.
    var nextSyncedDay: CivilDay?
    var index: [SessionLabel?: Int] = [:]
    let grouping: Grouping

    public init(
      today: CivilDay, weeks: Int = LabelStats.defaultWeeks, by grouping: Grouping = .label,
      dayOf: @escaping (WallTime) -> CivilDay = { $0.localCivilDay }
    ) {
      stats = LabelStats(today: today, weeks: weeks)
      self.grouping = grouping
      self.dayOf = dayOf
    }

    /// The next entry, going back from the history's end. False once it is a record of a day
    /// before the span made on a set clock: nothing before it counts, stop reading.
    public mutating func add(_ entry: HistoryEntry) -> Bool {
      let day: CivilDay
      if entry.ended.synced {
        day = dayOf(entry.ended)
        nextSyncedDay = day
        guard day >= stats.first else { return false }
      } else {
        guard let next = nextSyncedDay else {
          if entry.isCompletedFocus { stats.unsyncedUnplaced += 1 }
          return true
        }
        day = next
        if entry.isCompletedFocus { stats.unsyncedPlaced += 1 }
      }
      guard entry.isCompletedFocus, day <= stats.today else { return true }
      let key = grouping.key(entry)
      if let i = index[key] {
        stats.labels[i].add(entry, on: day, in: stats)
      } else if stats.labels.count < LabelStats.labelLimit {
        index[key] = stats.labels.count
        var row = Row(label: key)
        row.add(entry, on: day, in: stats)
        stats.labels.append(row)
      } else {
        var row = stats.others ?? Row(label: nil, others: true)
        row.add(entry, on: day, in: stats)
        stats.others = row
      }
      return true
    }

    /// A line that could not be read.
    public mutating func damaged(_ line: Int) {
      stats.damagedCount += 1
      if stats.damagedLines.count < HistoryStats.damagedLinesShown { stats.damagedLines.append(line) }
    }

    public func finish() -> LabelStats { stats }
  }
}

extension HistoryEntry {
  /// A completed focus session or flow (`SessionRecord.isCompletedFocus`).
  public var isCompletedFocus: Bool { SessionRecord.isCompletedFocus(mode, outcome) }
}

/// `pomodoro stats --by-label` as text: a row a label (the most minutes over the span first),
/// its sessions and minutes today, this week and over the span. Pure.
public enum LabelStatsText {
  /// `grouping`: what the rows are (`--by-profile`'s rows are profiles).
  public static func render(_ s: LabelStats, by grouping: LabelStats.Grouping = .label) -> String {
    func name(_ row: LabelStats.Row) -> String { row.label == nil && !row.others ? grouping.none : row.name }
    var lines = [
      "Completed focus sessions and flows by \(grouping.word), today (\(s.today)), this week (since Mon \(s.today.monday)) "
        + "and the \(s.weeks) weeks since \(s.first):"
    ]
    let rows = s.rows(by: \.span)
    if rows.isEmpty {
      lines.append("No sessions in these \(s.weeks) weeks.")
    } else {
      // Labels are at most 40 characters: the column is as wide as the longest shown.
      let width = max(grouping.word.count, rows.map { columns(name($0)) }.max() ?? 0)
      func pad(_ text: String, _ n: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, n - columns(text)))
        return left ? fill + text : text + fill
      }
      func cells(_ c: HistoryStats.Count) -> String {
        pad("\(c.sessions)", 9, left: true) + pad("\(c.minutes)", 7, left: true)
      }
      let periods =
        pad("Today", 16, left: true) + pad("This week", 16, left: true) + pad("\(s.weeks) weeks", 16, left: true)
      lines.append(pad("", width) + periods)
      lines.append(
        pad(grouping.word.prefix(1).uppercased() + grouping.word.dropFirst(), width)
          + String(repeating: pad("sessions", 9, left: true) + pad("min", 7, left: true), count: 3))
      for row in rows { lines.append(pad(name(row), width) + cells(row.today) + cells(row.week) + cells(row.span)) }
    }
    lines += StatsText.readingNotes(
      placed: s.unsyncedPlaced, unplaced: s.unsyncedUnplaced, damaged: s.damagedCount, shown: s.damagedLines,
      placedWhy: "", unplacedFate: "not counted", numbered: " from the end")
    return lines.map(StatsText.trimmed).joined(separator: "\n") + "\n"
  }

  /// The terminal columns a text takes: two for a wide (East Asian, emoji) character, one for
  /// any other, so that a label in Japanese keeps the table's columns straight.
  static func columns(_ text: String) -> Int {
    text.reduce(0) { n, c in
      guard let v = c.unicodeScalars.first?.value else { return n }
      let wide =
        (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
        || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
        || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v) || (0x1F900...0x1F9FF).contains(v)
        || (0x20000...0x3FFFD).contains(v)
      return n + (wide ? 2 : 1)
    }
  }
}
