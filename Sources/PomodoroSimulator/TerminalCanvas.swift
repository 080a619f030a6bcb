import PomodoroRuntime

/// Remembers what is on the terminal and turns new rows into the escape sequences that redraw
/// only what changed: unchanged rows are skipped and a changed row is rewritten from its first
/// to its last changed cell (no flicker, little traffic over ssh). Rows hold single-width
/// characters only (ASCII, box drawing, blocks, braille).
public struct TerminalCanvas {
  private var shown: [String] = []
  private var columns = 0
  private var valid = false

  public init() {}

  /// Forgets what is shown: the next update clears the screen and draws every row (a resize).
  public mutating func invalidate() { valid = false }

  /// The output that turns the screen into `rows` (each at most `columns` characters wide),
  /// empty when nothing changed.
  public mutating func update(_ rows: [String], columns: Int) -> String {
    var out = ""
    if !valid || columns != self.columns {
      out = "\u{1B}[H\u{1B}[2J"
      shown = []
      self.columns = columns
      valid = true
    }
    for (index, row) in rows.enumerated() {
      guard index < shown.count else {
        out += move(index, 0) + row + erase(after: row.count)
        continue
      }
      guard shown[index] != row else { continue }
      let old = Array(shown[index])
      let new = Array(row)
      var first = 0
      while first < min(old.count, new.count), old[first] == new[first] { first += 1 }
      if old.count == new.count {
        var last = new.count - 1
        while last > first, old[last] == new[last] { last -= 1 }
        out += move(index, first) + String(new[first...last])
      } else {
        out += move(index, first) + String(new[first...]) + erase(after: new.count)
      }
    }
    for index in rows.count..<max(rows.count, shown.count) {
      out += move(index, 0) + "\u{1B}[K"
    }
    shown = rows
    return out
  }

  private func move(_ row: Int, _ column: Int) -> String { "\u{1B}[\(row + 1);\(column + 1)H" }

  /// Erases the rest of a row `count` cells long; a full-width row leaves the cursor pending a
  /// wrap, where erasing would eat its last cell.
  private func erase(after count: Int) -> String { count < columns ? "\u{1B}[K" : "" }
}
