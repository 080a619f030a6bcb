import PomodoroCore
import PomodoroSystem

/// `pomodoro stats` as text: the counts, the streaks, and the heatmap drawn with Unicode shade
/// blocks (rows Monday to Sunday, a column a week, month labels above). Pure.
public enum StatsText {
  /// The heatmap's characters by shade level (`FocusShade.level`).
  public static let shades: [Character] = ["·", "░", "▒", "▓", "█"]

  public static func render(_ s: HistoryStats) -> String {
    var lines: [String] = []
    if s.isEmpty { lines.append("No sessions yet: completed focus sessions will show here.") }
    func focus(_ c: HistoryStats.Count) -> String { "\(plural(c.sessions, "focus session")), \(c.minutes) min" }
    lines.append("Today:      \(focus(s.todayTally.focus))")
    lines.append("This week:  \(focus(s.weekTally.focus)) (since Mon \(s.weekStart))")
    lines.append("All time:   \(focus(s.allTally.focus))")
    let streak =
      s.streakIncludesToday || s.currentStreak == 0
      ? plural(s.currentStreak, "day") : "\(plural(s.currentStreak, "day")) up to yesterday (none yet today)"
    lines.append("Streak:     \(streak); longest \(plural(s.longestStreak, "day"))")
    if s.goal > 0 {
      let run =
        s.goalStreakIncludesToday || s.goalStreak == 0
        ? plural(s.goalStreak, "day") : "\(plural(s.goalStreak, "day")) up to yesterday"
      lines.append(
        "Goal:       \(s.goal) a day (daily_goal): met on \(plural(s.goalDays, "day")); in a row: \(run), "
          + "longest \(plural(s.longestGoalStreak, "day"))")
    }
    func apart(_ key: KeyPath<HistoryStats.Tally, HistoryStats.Count>) -> String {
      "\(s.todayTally[keyPath: key].sessions) today, \(s.weekTally[keyPath: key].sessions) this week, "
        + "\(s.allTally[keyPath: key].sessions) in all"
    }
    if s.allTally.flow.sessions > 0 {
      lines.append("Flows:      \(apart(\.flow)), \(s.allTally.flow.minutes) min (counted as focus, above and below)")
    }
    lines.append("Breaks:     \(apart(\.breaks))")
    lines.append("Egg timers: \(apart(\.eggs))")
    lines.append("Cancelled:  \(apart(\.cancelled)) (not counted above)")
    lines.append("")
    let end = s.heatmapStart.adding(s.heatmapFocusMs.count - 1)
    lines.append("Focus minutes a day, \(s.heatmapStart) to \(end) (\(plural(s.heatmapFocusMs.count, "day"))):")
    lines += heatmap(s)
    lines.append(
      "    \(shades[0]) none  \(shades[1]) 1-49 min  \(shades[2]) 50-99  \(shades[3]) 100-149  \(shades[4]) 150+")
    lines += notes(s)
    return lines.map(trimmed).joined(separator: "\n") + "\n"
  }

  /// What to say about sessions whose date is not trusted.
  public static func notes(_ s: HistoryStats) -> [String] {
    readingNotes(
      placed: s.unsyncedPlaced, unplaced: s.unsyncedUnplaced, damaged: s.damagedCount, shown: s.damagedLines,
      placedWhy: ", as \(s.unsyncedPlaced == 1 ? "its own date" : "their own dates") cannot be trusted",
      unplacedFate: "counted only in all time", numbered: "")
  }

  /// What reading the history met, said after a report (`stats` and `stats --by-label` alike):
  /// sessions recorded before the wall clock was set, placed on a later day (`placedWhy` says
  /// why, if the report does) or on none (`unplacedFate`: what the report did with them), and
  /// damaged lines skipped, the first of them by number (`numbered`: how they are counted).
  static func readingNotes(
    placed: Int, unplaced: Int, damaged: Int, shown: [Int], placedWhy: String, unplacedFate: String, numbered: String
  ) -> [String] {
    var lines: [String] = []
    if placed > 0 || unplaced > 0 || damaged > 0 { lines.append("") }
    if placed > 0 {
      lines.append(
        "\(plural(placed, "session")) recorded before the wall clock was set: counted on the day of the "
          + "next session recorded with the clock set\(placedWhy).")
    }
    if unplaced > 0 {
      lines.append(
        "\(plural(unplaced, "session")) recorded before the wall clock was set, with none recorded with "
          + "the clock set after: not placed on any day, \(unplacedFate).")
    }
    if damaged > 0 {
      var numbers = shown.map(String.init).joined(separator: ", ")
      if damaged > shown.count { numbers += " and \(damaged - shown.count) more" }
      lines.append(
        "\(plural(damaged, "damaged history line")) skipped (torn by a power cut, or a time out of range): line "
          + "\(numbers)\(numbered).")
    }
    return lines
  }

  /// The heatmap's lines: month labels, then Monday to Sunday. A cell is a shade and a space;
  /// days outside the span are blank.
  public static func heatmap(_ s: HistoryStats) -> [String] {
    let grid = HeatmapGrid(s)
    var labelRow = [Character](repeating: " ", count: 4 + 2 * grid.columns + 2)
    for (column, name) in grid.monthLabels(minimumGap: 2) {
      for (i, c) in name.enumerated() { labelRow[4 + 2 * column + i] = c }
    }
    var lines = [trimmed(String(labelRow))]
    for row in 0..<7 {
      var line = CivilDay.weekdayNames[row] + " "
      for column in 0..<grid.columns {
        if let ms = grid.focusMs(column: column, row: row) {
          line.append(shades[FocusShade.level(ms: ms)])
        } else {
          line.append(" ")
        }
        line.append(" ")
      }
      lines.append(trimmed(line))
    }
    return lines
  }

  static func trimmed(_ line: String) -> String { String(line.reversed().drop(while: { $0 == " " }).reversed()) }

  static func plural(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
}

/// The heatmap's calendar: a column a week (Monday first), a row a weekday, over the stats' span.
public struct HeatmapGrid: Sendable {
  public let start: CivilDay
  public let end: CivilDay
  /// The Monday of the first column.
  public let firstMonday: CivilDay
  public let columns: Int
  private let focusMs: [Int64]

  public init(_ s: HistoryStats) {
    start = s.heatmapStart
    end = s.heatmapStart.adding(s.heatmapFocusMs.count - 1)
    firstMonday = start.monday
    columns = (end.monday.ordinal - firstMonday.ordinal) / 7 + 1
    focusMs = s.heatmapFocusMs
  }

  public func day(column: Int, row: Int) -> CivilDay { firstMonday.adding(7 * column + row) }

  /// The focus time of the cell's day; nil outside the span.
  public func focusMs(column: Int, row: Int) -> Int64? {
    let d = day(column: column, row: row)
    guard d >= start && d <= end else { return nil }
    return focusMs[d.ordinal - start.ordinal]
  }

  /// A month's name over the first column where it begins (and over the first column), dropping
  /// a label that would come less than `minimumGap` columns before the next one.
  public func monthLabels(minimumGap: Int) -> [(column: Int, name: String)] {
    var labels: [(column: Int, name: String)] = []
    var previousMonth = -1
    for column in 0..<columns {
      let first = max(start, day(column: column, row: 0))
      let month = first.date.month
      if month != previousMonth {
        if let last = labels.last, column - last.column < minimumGap { labels.removeLast() }
        labels.append((column, CivilDay.monthNames[month - 1]))
        previousMonth = month
      }
    }
    return labels
  }
}
