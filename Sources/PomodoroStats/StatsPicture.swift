import PomodoroGraphics
import PomodoroSystem

/// `pomodoro stats --png` as a 1-bit picture: the heatmap with a square a day, sized by the
/// day's focus minutes (a dot for none, then 3, 5, 7 and 9 pixels), month and weekday labels,
/// a legend and the counts, in the project's small font. Pure.
public enum StatsPicture {
  static let margin = 6
  static let cell = 9
  static let pitch = 11
  static let labelWidth = 18
  static let lineHeight = 11

  /// The side of a day's square by shade level; 1 is the dot of a day without focus.
  public static let squareSides = [1, 3, 5, 7, 9]

  public static func render(_ s: HistoryStats) -> Framebuffer {
    let grid = HeatmapGrid(s)
    let font = Font.small
    let title = title(s, grid)
    let summary = summary(s)

    let gridWidth = labelWidth + grid.columns * pitch - (pitch - cell)
    let legendWidth = legend.reduce(0) { $0 + cell + 3 + font.width($1) + 9 } - 9
    let textWidth = ([title] + summary).map(font.width).max() ?? 0
    let width = 2 * margin + max(gridWidth, legendWidth, textWidth)
    let monthsY = margin + lineHeight + 2
    let gridY = monthsY + lineHeight
    let legendY = gridY + 7 * pitch + 2
    let summaryY = legendY + lineHeight + 4
    let height = summaryY + summary.count * lineHeight + margin - 2
    var fb = Framebuffer(width: width, height: height)

    fb.draw(title, font: font, x: margin, y: margin)
    let gridX = margin + labelWidth
    for (column, name) in grid.monthLabels(minimumGap: 2) {
      fb.draw(name, font: font, x: gridX + column * pitch, y: monthsY)
    }
    for row in 0..<7 {
      let y = gridY + row * pitch
      fb.draw(CivilDay.weekdayNames[row], font: font, x: margin, y: y + 1)
      for column in 0..<grid.columns {
        guard let ms = grid.focusMs(column: column, row: row) else { continue }
        square(&fb, x: gridX + column * pitch, y: y, level: FocusShade.level(ms: ms))
      }
    }
    var x = margin
    for (level, text) in legend.enumerated() {
      square(&fb, x: x, y: legendY, level: level)
      x = fb.draw(text, font: font, x: x + cell + 3, y: legendY + 1) + 9
    }
    for (i, line) in summary.enumerated() {
      fb.draw(line, font: font, x: margin, y: summaryY + i * lineHeight)
    }
    return fb
  }

  /// The title above the heatmap.
  static func title(_ s: HistoryStats, _ grid: HeatmapGrid) -> String {
    "Focus minutes a day, \(s.heatmapStart) to \(grid.end)"
  }

  /// The legend's words, a shade level each.
  static let legend = ["none", "1+", "50+", "100+", "150+ min"]

  /// The lines under the heatmap: today, the week, the streak, breaks and eggs (the PNG's and
  /// the SVG's, `StatsSVG`).
  static func summary(_ s: HistoryStats) -> [String] {
    var summary: [String] = []
    if s.isEmpty { summary.append("No sessions yet") }
    summary.append("Today: \(focus(s.todayTally.focus))")
    summary.append("This week: \(focus(s.weekTally.focus))")
    summary.append(
      "Streak: \(StatsText.plural(s.currentStreak, "day"))\(s.streakIncludesToday || s.currentStreak == 0 ? "" : " to yesterday"), longest \(s.longestStreak)"
    )
    summary.append(
      "Breaks \(s.weekTally.breaks.sessions), egg timers \(s.weekTally.eggs.sessions) this week")
    let unsynced = s.unsyncedPlaced + s.unsyncedUnplaced
    if unsynced > 0 { summary.append("\(StatsText.plural(unsynced, "session")) before the clock was set") }
    return summary
  }

  /// The picture as PNG bytes, each pixel 3x3 with the panel's gaps.
  public static func png(_ s: HistoryStats) -> [UInt8] { PNGEncoder.encode(render(s), look: PanelLook(scale: 3)) }

  static func square(_ fb: inout Framebuffer, x: Int, y: Int, level: Int) {
    let side = squareSides[level]
    let inset = (cell - side) / 2
    fb.fillRect(x: x + inset, y: y + inset, width: side, height: side)
  }

  static func focus(_ c: HistoryStats.Count) -> String { "\(c.sessions) focus, \(c.minutes) min" }
}
