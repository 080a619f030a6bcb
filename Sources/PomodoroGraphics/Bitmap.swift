/// A small 1-bit image (a glyph, an icon frame), stored row by row.
///
/// Our fonts and icons are written in the source as rows of text, `#` (or any character other
/// than `.` and space) for a lit pixel, so that a reader sees the design: see `init(rows:)`.
public struct Bitmap: Equatable, Hashable, Sendable {
  public let width: Int
  public let height: Int
  /// Row-major pixels: `pixels[y * width + x]`.
  public var pixels: [Bool]

  /// A blank bitmap of the given size.
  public init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    self.pixels = [Bool](repeating: false, count: self.width * self.height)
  }

  /// A bitmap from rows of text: `.` and space are dark, anything else is lit. Rows shorter than
  /// the longest are padded with dark pixels.
  public init(rows: [String]) {
    let w = rows.map { $0.count }.max() ?? 0
    self.init(width: w, height: rows.count)
    for (y, row) in rows.enumerated() {
      for (x, ch) in row.enumerated() where ch != "." && ch != " " { pixels[y * w + x] = true }
    }
  }

  /// The pixel at (x, y); `false` outside.
  @inlinable public subscript(x: Int, y: Int) -> Bool {
    get { x >= 0 && y >= 0 && x < width && y < height ? pixels[y * width + x] : false }
    set { if x >= 0 && y >= 0 && x < width && y < height { pixels[y * width + x] = newValue } }
  }

  /// The bitmap rotated by `quarterTurns` x 90 degrees clockwise.
  public func rotatedQuarterTurns(_ quarterTurns: Int) -> Bitmap {
    let turns = ((quarterTurns % 4) + 4) % 4
    if turns == 0 { return self }
    var out = Bitmap(width: turns == 2 ? width : height, height: turns == 2 ? height : width)
    for y in 0..<height {
      for x in 0..<width where self[x, y] {
        switch turns {
        case 1: out[height - 1 - y, x] = true
        case 2: out[width - 1 - x, height - 1 - y] = true
        default: out[y, width - 1 - x] = true
        }
      }
    }
    return out
  }
}
