import PomodoroCore
import PomodoroSystem

/// `pomodoro stats`' heatmap and streaks as SVG, for the page (`GET /api/stats.svg`): the same
/// numbers, title and lines as the PNG (`StatsPicture`), a square a day sized by its focus
/// minutes, in the page's colours (light and dark follow the phone: an `<img>` has no
/// `currentColor` of the page's). Pure: text in, text out; every text escaped.
public enum StatsSVG {
  static let cell = 12
  static let pitch = 15
  static let labelWidth = 30
  static let lineHeight = 18
  static let margin = 8

  public static func render(_ s: HistoryStats) -> String {
    let grid = HeatmapGrid(s)
    let title = StatsPicture.title(s, grid)
    let summary = StatsPicture.summary(s)
    let gridX = margin + labelWidth
    let monthsY = margin + lineHeight + 14
    let gridY = monthsY + 6
    let legendY = gridY + 7 * pitch + 10
    let summaryY = legendY + cell + lineHeight
    let width = max(gridX + grid.columns * pitch, 2 * margin + 320)
    let height = summaryY + (summary.count - 1) * lineHeight + margin
    var out = """
      <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)" \
      font-family="system-ui, sans-serif" font-size="12" role="img" aria-label="\(escape(title))">
      <style>text{fill:#888}.t{fill:#222;font-weight:600}.d0{fill:#8884}.d1{fill:#e8a0a0}\
      .d2{fill:#e06666}.d3{fill:#c0392b}.d4{fill:#8e1b10}@media(prefers-color-scheme:dark){text{fill:#aaa}\
      .t{fill:#eee}.d1{fill:#5c2a26}.d2{fill:#8e3b33}.d3{fill:#c0392b}.d4{fill:#ff6b57}}</style>
      <text class="t" x="\(margin)" y="\(margin + 12)">\(escape(title))</text>

      """
    for (column, name) in grid.monthLabels(minimumGap: 3) {
      out += "<text x=\"\(gridX + column * pitch)\" y=\"\(monthsY)\">\(escape(name))</text>\n"
    }
    for row in 0..<7 {
      let y = gridY + row * pitch
      if row % 2 == 0 {
        out += "<text x=\"\(margin)\" y=\"\(y + cell - 2)\">\(escape(CivilDay.weekdayNames[row]))</text>\n"
      }
      for column in 0..<grid.columns {
        guard let ms = grid.focusMs(column: column, row: row) else { continue }
        let day = grid.day(column: column, row: row)
        let minutes = (ms + msPerMinute / 2) / msPerMinute
        out += square(x: gridX + column * pitch, y: y, level: FocusShade.level(ms: ms), tip: "\(day): \(minutes) min")
      }
    }
    var x = margin
    for (level, text) in StatsPicture.legend.enumerated() {
      out += square(x: x, y: legendY, level: level, tip: nil)
      out += "<text x=\"\(x + cell + 4)\" y=\"\(legendY + cell - 2)\">\(escape(text))</text>\n"
      x += cell + 4 + 8 * text.count + 12
    }
    for (i, line) in summary.enumerated() {
      out += "<text class=\"t\" x=\"\(margin)\" y=\"\(summaryY + i * lineHeight)\">\(escape(line))</text>\n"
    }
    return out + "</svg>\n"
  }

  /// A day's square: its shade class, its side by level (a small dot for none), a tooltip.
  static func square(x: Int, y: Int, level: Int, tip: String?) -> String {
    let side = [4, 7, 9, 11, 12][level]
    let inset = (cell - side) / 2
    let body =
      "<rect class=\"d\(level)\" x=\"\(x + inset)\" y=\"\(y + inset)\" width=\"\(side)\" height=\"\(side)\" rx=\"2\""
    guard let tip else { return body + "/>\n" }
    return body + "><title>\(escape(tip))</title></rect>\n"
  }

  /// `text` safe inside SVG text and attributes.
  static func escape(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}
