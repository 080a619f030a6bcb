/// OLED care: the whole picture moves by a pixel now and then along a small orbit, so that
/// what stays put (the title, the bar's outline, the footer) does not wear its pixels more than
/// their neighbours. The runtime owns the timing (`orbit(step:)` with a step every few minutes);
/// this is the pure part.
public enum PixelShift {
  /// How far the picture is moved: right by `dx`, down by `dy` (negative: left, up).
  public struct Offset: Equatable, Hashable, Sendable {
    public var dx: Int
    public var dy: Int
    public init(dx: Int, dy: Int) {
      self.dx = dx
      self.dy = dy
    }
    public static let zero = Offset(dx: 0, dy: 0)
  }

  /// The orbit: the 8 positions within one pixel of the centre, each one pixel from the last,
  /// starting and closing at the centre.
  public static let positions: [Offset] = [
    Offset(dx: 0, dy: 0), Offset(dx: 1, dy: 0), Offset(dx: 1, dy: 1), Offset(dx: 0, dy: 1),
    Offset(dx: -1, dy: 1), Offset(dx: -1, dy: 0), Offset(dx: -1, dy: -1), Offset(dx: 0, dy: -1),
  ]

  /// The position for `step` (any integer; the orbit repeats every 8 steps).
  public static func orbit(step: Int) -> Offset {
    positions[((step % positions.count) + positions.count) % positions.count]
  }
}

extension Framebuffer {
  /// The picture moved right by `dx` and down by `dy` pixels (negative: left, up): pixels moved
  /// past an edge are dropped, the edge they leave is dark.
  public func shifted(dx: Int, dy: Int) -> Framebuffer {
    var out = Framebuffer(width: width, height: height)
    guard abs(dx) < width, abs(dy) < height else { return out }
    let (width, pages) = (self.width, self.pages)
    // Columns x0..<x0 + count of each page take the source's columns x0 - dx...
    let x0 = max(0, dx)
    let count = width - abs(dx)
    bytes.withUnsafeBufferPointer { from in
      out.bytes.withUnsafeMutableBufferPointer { to in
        guard let from = from.baseAddress, let to = to.baseAddress else { return }
        for page in 0..<pages {
          // ...and its 8 rows come from source rows start..<start + 8: the bottom of source page
          // `low` and, unless start is a page's first row, the top of the page below it.
          let start = page * 8 - dy
          let low = start >> 3
          let offset = UInt8(start & 7)
          let destination = to + page * width + x0
          if low >= 0 && low < pages {
            let source = from + low * width + x0 - dx
            for i in 0..<count { destination[i] = source[i] >> offset }
          }
          if offset != 0 && low + 1 >= 0 && low + 1 < pages {
            let source = from + (low + 1) * width + x0 - dx
            for i in 0..<count { destination[i] |= source[i] << (8 - offset) }
          }
        }
      }
    }
    return out
  }
}
