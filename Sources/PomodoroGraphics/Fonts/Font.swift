/// A bitmap font of our own: one `Bitmap` a character, all of one height, drawn left to right
/// with `spacing` dark columns between glyphs. Characters without a glyph draw as the font's
/// stand-in, a hollow box (`Font.standIn`), where it has one (the small font: a label's `é` or
/// `字` shows as a box, never a blank), else as `?` (or nothing when the font has neither).
public struct Font: Sendable {
  /// Rows of every glyph.
  public let height: Int
  /// Dark columns between two glyphs.
  public let spacing: Int
  private let glyphs: [Character: Bitmap]
  /// The glyph drawn for each printable ASCII character (0x20...0x7E), by code; the `?` fallback
  /// included. Most text on the panel is ASCII: this spares hashing a `Character` per glyph.
  private let ascii: [Bitmap?]

  /// A font from drawn glyphs: for each glyph a line `-- c` naming its character, then its rows
  /// (`#` lit, `.` dark), all glyphs with the same number of rows.
  public init(art: String, spacing: Int) {
    var glyphs: [Character: Bitmap] = [:]
    for (name, bitmap) in Art.parse(art) { glyphs[name.first ?? " "] = bitmap }
    self.glyphs = glyphs
    self.ascii = (0..<128).map { code in
      guard code >= 0x20 && code < 0x7F else { return nil }
      return glyphs[Character(Unicode.Scalar(UInt8(code)))] ?? glyphs[Font.standIn] ?? glyphs["?"]
    }
    self.spacing = spacing
    self.height = glyphs.values.map(\.height).max() ?? 0
  }

  /// The glyph drawn for `c`.
  public func glyph(_ c: Character) -> Bitmap? { glyphs[c] ?? glyphs[Font.standIn] ?? glyphs["?"] }

  /// The glyph a character without one of its own draws as, where the font has it.
  public static let standIn: Character = "\u{25A1}"

  /// Calls `body` with the glyph of each character of `text` that has one (or a `?`), in order.
  @inline(__always)
  func forEachGlyph(_ text: String, _ body: (Bitmap) -> Void) {
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
      // Printable ASCII: one character a byte.
      for code in text.utf8 { if let g = ascii[Int(code)] { body(g) } }
    } else {
      for c in text { if let g = glyph(c) { body(g) } }
    }
  }

  /// Width in pixels of `text` drawn in this font (no trailing spacing).
  public func width(_ text: String) -> Int {
    var w = 0
    var count = 0
    forEachGlyph(text) { g in
      w += g.width
      count += 1
    }
    return count == 0 ? 0 : w + spacing * (count - 1)
  }

  /// The longest prefix of `text` that fits in `maxWidth`, with "..." appended when cut.
  public func truncated(_ text: String, toWidth maxWidth: Int) -> String {
    if width(text) <= maxWidth { return text }
    var s = text
    while !s.isEmpty && width(s + "...") > maxWidth { s.removeLast() }
    while s.last == " " { s.removeLast() }
    return s + "..."
  }

  /// `text` broken at spaces into lines no wider than `maxWidth` (a word longer than the line
  /// is truncated).
  public func wrapped(_ text: String, toWidth maxWidth: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      let candidate = line.isEmpty ? String(word) : line + " " + word
      if width(candidate) <= maxWidth {
        line = candidate
      } else {
        if !line.isEmpty { lines.append(line) }
        line = truncated(String(word), toWidth: maxWidth)
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}

extension Framebuffer {
  /// Draws `text` in `font` with its top-left corner at (x, y) and returns the x after it.
  @discardableResult
  public mutating func draw(_ text: String, font: Font, x: Int, y: Int, mode: BlitMode = .or) -> Int {
    var cx = x
    font.forEachGlyph(text) { g in
      blit(g, x: cx, y: y, mode: mode)
      cx += g.width + font.spacing
    }
    return cx - font.spacing
  }

  /// Draws `text` centred horizontally on `centerX` (top at y) and returns its left edge.
  @discardableResult
  public mutating func draw(_ text: String, font: Font, centeredAt centerX: Int, y: Int, mode: BlitMode = .or) -> Int {
    let left = centerX - font.width(text) / 2
    draw(text, font: font, x: left, y: y, mode: mode)
    return left
  }
}
