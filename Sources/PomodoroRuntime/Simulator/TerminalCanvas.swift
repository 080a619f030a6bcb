/// Remembers what is on the terminal and turns new rows into the escape sequences that redraw
/// only the rows that changed (no flicker, little traffic over ssh).
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
    for (index, row) in rows.enumerated() where index >= shown.count || shown[index] != row {
      out += "\u{1B}[\(index + 1);1H" + row
      // A full-width row leaves the cursor pending a wrap: erasing there would eat its last cell.
      if row.count < columns { out += "\u{1B}[K" }
    }
    for index in rows.count..<max(rows.count, shown.count) {
      out += "\u{1B}[\(index + 1);1H\u{1B}[K"
    }
    shown = rows
    return out
  }
}
