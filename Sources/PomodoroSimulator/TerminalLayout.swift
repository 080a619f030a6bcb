import PomodoroGraphics
import PomodoroRuntime
import PomodoroSystem

/// The size of a terminal in character cells.
public struct TerminalSize: Equatable, Sendable {
  public var columns: Int
  public var rows: Int

  public init(columns: Int, rows: Int) {
    self.columns = columns
    self.rows = rows
  }
}

/// Everything the interactive simulator shows, before it is laid out.
public struct SimulatorView: Equatable {
  /// The panel as a person sees it (the emulated controller's visible image).
  public var image: Framebuffer
  /// Written into the panel's frame: "SSD1306 128x64".
  public var label: String
  /// `running  focus 1/4  24:59`.
  public var status: String
  public var buzzing = false
  /// The passive buzzer's note sounding (like C6), shown in the buzzer's mark.
  public var note: String?
  public var fastForward = false
  /// The latest warning from the device's log, if any.
  public var message: String?

  public init(image: Framebuffer, label: String, status: String) {
    self.image = image
    self.label = label
    self.status = status
  }
}

/// Lays the simulator out as plain text rows: the framed panel with the buzzer and
/// fast-forward beside it, the status line under it, then the keys. Half blocks when the
/// terminal has room, braille when it does not; every row is clipped to the terminal's width.
public enum TerminalLayout {
  public static let keyLines = [
    "Left/Right j/k turn   Shift or J/K spin   Enter/e push",
    "Space start/pause   c/Backspace cancel   f 60x   p away/here   q quit",
  ]
  static let buzzerMark = "  ((( BZZZ )))"
  static let fastForwardMark = "  >> 60x"
  /// Columns kept beside the frame for the marks.
  static let sideColumns = 14

  /// Half blocks if the whole layout fits in `size`, else braille.
  public static func style(forImageWidth width: Int, height: Int, in size: TerminalSize) -> TerminalPanel.Style {
    let cells = TerminalPanel.Style.halfBlocks.cells(width: width, height: height)
    let fits = cells.columns + 2 <= size.columns && cells.rows + 3 + keyLines.count <= size.rows
    return fits ? .halfBlocks : .braille
  }

  /// The rows to show in a terminal of `size`.
  public static func rows(_ view: SimulatorView, in size: TerminalSize) -> [String] {
    let style = style(forImageWidth: view.image.width, height: view.image.height, in: size)
    return rows(view, panel: TerminalPanel.rows(view.image, style: style), style: style, in: size)
  }

  /// As `rows(_:in:)`, with the panel already drawn in `style` (the simulator keeps it while
  /// the picture does not change).
  static func rows(_ view: SimulatorView, panel: [String], style: TerminalPanel.Style, in size: TerminalSize)
    -> [String]
  {
    let inner = style.cells(width: view.image.width, height: view.image.height).columns
    var label = "\u{2500} \(view.label) "
    if label.count > inner { label = "" }
    var rows = ["\u{256D}" + label + String(repeating: "\u{2500}", count: inner - label.count) + "\u{256E}"]
    let buzz = view.note.map { "  ((( \($0) )))" } ?? buzzerMark
    let marks = [view.buzzing ? buzz : nil, view.fastForward ? fastForwardMark : nil]
    let beside = inner + 2 + sideColumns <= size.columns
    for (index, line) in panel.enumerated() {
      let side = beside && (index == 1 || index == 3) ? marks[index / 2] ?? "" : ""
      rows.append("\u{2502}" + line + "\u{2502}" + side)
    }
    // No room beside the frame: the marks go into its bottom edge.
    var bottom = beside ? "" : marks.compactMap { $0 }.map { $0.dropFirst(2) + " " }.joined()
    if !bottom.isEmpty { bottom = "\u{2500} " + bottom }
    if bottom.count > inner { bottom = "" }
    rows.append("\u{2570}" + bottom + String(repeating: "\u{2500}", count: inner - bottom.count) + "\u{256F}")
    var under = [view.status] + keyLines
    if let message = view.message, rows.count + under.count < size.rows { under.append(message) }
    if rows.count + under.count > size.rows {
      // Too small even for braille: the status line first, then as much panel as fits.
      rows = [view.status, "(the terminal is \(size.columns)x\(size.rows); the panel needs more room)"] + rows
    } else {
      rows += under
    }
    return rows.prefix(max(0, size.rows)).map { clip($0, to: size.columns) }
  }

  static func clip(_ row: String, to columns: Int) -> String {
    row.count <= columns ? row : String(row.prefix(max(0, columns)))
  }
}
