/// A small 1-bit image (a glyph, an icon frame), stored row by row.
///
/// Our fonts and icons are written in the source as rows of text, `#` (or any character other
/// than `.` and space) for a lit pixel, so that a reader sees the design: see `init(rows:)`.
public struct Bitmap: Equatable, Hashable, Sendable {
  public let width: Int
  public let height: Int
  /// Column-major bits, the framebuffer's own layout turned into words: column x's rows are the
  /// bits of `columns[x * wordsPerColumn ..< (x + 1) * wordsPerColumn]`, bit r of word k being
  /// row 64k + r. A blit then moves a column's 8 rows of a page in one shift, not pixel by pixel.
  private var columns: [UInt64]
  private let wordsPerColumn: Int

  /// A blank bitmap of the given size.
  public init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    wordsPerColumn = (self.height + 63) / 64
    columns = [UInt64](repeating: 0, count: self.width * wordsPerColumn)
  }

  /// A bitmap from rows of text: `.` and space are dark, anything else is lit. Rows shorter than
  /// the longest are padded with dark pixels.
  public init(rows: [String]) {
    let w = rows.map { $0.count }.max() ?? 0
    self.init(width: w, height: rows.count)
    for (y, row) in rows.enumerated() {
      for (x, ch) in row.enumerated() where ch != "." && ch != " " { self[x, y] = true }
    }
  }

  /// The pixel at (x, y); `false` outside.
  public subscript(x: Int, y: Int) -> Bool {
    get {
      guard x >= 0 && y >= 0 && x < width && y < height else { return false }
      return columns[x * wordsPerColumn + y >> 6] >> UInt64(y & 63) & 1 != 0
    }
    set {
      guard x >= 0 && y >= 0 && x < width && y < height else { return }
      let bit = UInt64(1) << UInt64(y & 63)
      if newValue {
        columns[x * wordsPerColumn + y >> 6] |= bit
      } else {
        columns[x * wordsPerColumn + y >> 6] &= ~bit
      }
    }
  }

  /// Rows `row` to `row + 7` of column `x` as one byte, bit 0 the first (rows outside the bitmap
  /// dark): what a page of the framebuffer takes from this column.
  @inline(__always) func byte(column x: Int, fromRow row: Int) -> UInt8 {
    if wordsPerColumn == 1 {
      let word = columns[x]
      return UInt8(truncatingIfNeeded: row >= 0 ? word >> UInt64(row) : word << UInt64(-row))
    }
    var out: UInt8 = 0
    for i in 0..<8 where self[x, row + i] { out |= 1 << UInt8(i) }
    return out
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
