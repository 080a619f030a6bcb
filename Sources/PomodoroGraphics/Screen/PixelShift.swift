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
    if height <= 64 {
      // Column by column: the column's pages as one 64-bit word, shifted down by dy.
      let (width, pages) = (self.width, self.pages)
      bytes.withUnsafeBufferPointer { from in
        out.bytes.withUnsafeMutableBufferPointer { to in
          for x in max(0, dx)..<min(width, width + dx) {
            let source = x - dx
            var column: UInt64 = 0
            for page in 0..<pages { column |= UInt64(from[page * width + source]) << UInt64(page * 8) }
            column = dy >= 0 ? column << UInt64(dy) : column >> UInt64(-dy)
            for page in 0..<pages { to[page * width + x] = UInt8(truncatingIfNeeded: column >> UInt64(page * 8)) }
          }
        }
      }
    } else {
      for y in 0..<height {
        for x in 0..<width where pixel(x, y) { out.setPixel(x + dx, y + dy) }
      }
    }
    return out
  }
}
