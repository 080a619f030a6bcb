/// `pomodoro stats`' heatmap and streaks as SVG, for the web page (`GET /api/stats.svg`, shown
/// with an <img>): the same numbers and the same grid as `StatsPicture` (a week a column, Monday
/// on top, a square a day shaded by `FocusShade`), in colours that read on a light and a dark
/// page alike, with no script, no style element and no external reference (a page's
/// Content-Security-Policy has nothing to refuse). Pure: the same stats give the same text.
public enum StatsSVG {
  static let cell = 14
  static let pitch = 17
  static let labelWidth = 30
  static let top = 22
  static let lineHeight = 18

  /// Fill of each shade level: none, then 1+, 50+, 100+, 150+ focus minutes.
  public static let shades = ["#8a817933", "#f6b7a8", "#ef8a72", "#e5483b", "#a8321f"]
  static let ink = "#8a8179"

  public static func render(_ s: HistoryStats) -> String {
    let grid = HeatmapGrid(s)
    let gridX = labelWidth
    let gridY = top + 14
    let gridHeight = 7 * pitch - (pitch - cell)
    let legendY = gridY + gridHeight + 12
    let summaryY = legendY + cell + 22
    let width = max(gridX + grid.columns * pitch - (pitch - cell), 300)
    let streak =
      "Streak \(StatsText.plural(s.currentStreak, "day"))"
      + (s.streakIncludesToday || s.currentStreak == 0 ? "" : " to yesterday") + ", longest \(s.longestStreak)"
    let summary = [
      "Today \(s.todayTally.focus.sessions) focus, \(s.todayTally.focus.minutes) min;"
        + " this week \(s.weekTally.focus.sessions), \(s.weekTally.focus.minutes) min",
      streak,
    ]
    let height = summaryY + (summary.count - 1) * lineHeight + 6
    var out = [
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" "
        + "height=\"\(height)\" font-family=\"system-ui, sans-serif\" font-size=\"11\" fill=\"\(ink)\" role=\"img\">",
      "<title>Focus minutes a day, \(s.heatmapStart) to \(grid.end); \(escape(streak))</title>",
    ]
    for (column, name) in grid.monthLabels(minimumGap: 2) {
      out.append("<text x=\"\(gridX + column * pitch)\" y=\"\(top + 8)\">\(name)</text>")
    }
    for row in [0, 2, 4] {
      out.append("<text x=\"0\" y=\"\(gridY + row * pitch + 11)\">\(CivilDay.weekdayNames[row])</text>")
    }
    for column in 0..<grid.columns {
      for row in 0..<7 {
        guard let ms = grid.focusMs(column: column, row: row) else { continue }
        let day = grid.day(column: column, row: row)
        let minutes = HistoryStats.Count(sessions: 0, ms: ms).minutes
        out.append(
          "<rect x=\"\(gridX + column * pitch)\" y=\"\(gridY + row * pitch)\" width=\"\(cell)\" height=\"\(cell)\" "
            + "rx=\"3\" fill=\"\(shades[FocusShade.level(ms: ms)])\"><title>\(day): \(minutes) min</title></rect>")
      }
    }
    var x = 0
    for (level, text) in ["none", "1+", "50+", "100+", "150+ min"].enumerated() {
      out.append(
        "<rect x=\"\(x)\" y=\"\(legendY)\" width=\"\(cell)\" height=\"\(cell)\" rx=\"3\" fill=\"\(shades[level])\"/>")
      out.append("<text x=\"\(x + cell + 4)\" y=\"\(legendY + 11)\">\(text)</text>")
      x += cell + 10 + 7 * text.count
    }
    for (i, line) in summary.enumerated() {
      out.append("<text x=\"0\" y=\"\(summaryY + i * lineHeight)\" font-size=\"13\">\(escape(line))</text>")
    }
    out.append("</svg>")
    return out.joined(separator: "\n") + "\n"
  }

  /// Text for an SVG element: &, < and > escaped.
  static func escape(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      default: out.append(c)
      }
    }
    return out
  }
}
