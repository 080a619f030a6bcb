/// Drawing primitives on `Framebuffer`. All of them clip at the picture's edges.
extension Framebuffer {
  /// Clips the rectangle (x, y, w, h) to the picture; nil when nothing is left.
  @inlinable func clipped(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
    let x0 = max(x, 0)
    let y0 = max(y, 0)
    let x1 = min(x + w, width)
    let y1 = min(y + h, height)
    guard x0 < x1, y0 < y1 else { return nil }
    return (x0, y0, x1, y1)
  }

  /// Applies `op` to every byte of the rectangle with the page's row mask.
  @inlinable mutating func forEachMaskedByte(
    _ x: Int, _ y: Int, _ w: Int, _ h: Int, _ op: (inout UInt8, UInt8) -> Void
  ) {
    guard let r = clipped(x, y, w, h) else { return }
    for page in (r.y0 >> 3)...((r.y1 - 1) >> 3) {
      let top = max(r.y0 - page * 8, 0)
      let bottom = min(r.y1 - page * 8, 8)  // exclusive
      let mask = UInt8(truncatingIfNeeded: (0xFF << top) & (0xFF >> (8 - bottom)))
      let base = page * width
      bytes.withUnsafeMutableBufferPointer { bytes in
        for column in r.x0..<r.x1 { op(&bytes[base + column], mask) }
      }
    }
  }

  /// Fills the rectangle at (x, y) of size w x h lit (`on`) or dark.
  public mutating func fillRect(x: Int, y: Int, width w: Int, height h: Int, _ on: Bool = true) {
    if on {
      forEachMaskedByte(x, y, w, h) { $0 |= $1 }
    } else {
      forEachMaskedByte(x, y, w, h) { $0 &= ~$1 }
    }
  }

  /// Inverts every pixel of the rectangle at (x, y) of size w x h.
  public mutating func invert(x: Int, y: Int, width w: Int, height h: Int) {
    forEachMaskedByte(x, y, w, h) { $0 ^= $1 }
  }

  /// Draws the 1-pixel outline of the rectangle at (x, y) of size w x h.
  public mutating func strokeRect(x: Int, y: Int, width w: Int, height h: Int, _ on: Bool = true) {
    guard w > 0, h > 0 else { return }
    fillRect(x: x, y: y, width: w, height: 1, on)
    fillRect(x: x, y: y + h - 1, width: w, height: 1, on)
    fillRect(x: x, y: y, width: 1, height: h, on)
    fillRect(x: x + w - 1, y: y, width: 1, height: h, on)
  }

  /// Fills a rectangle whose corners are rounded with `radius` (a pill when radius = h / 2).
  public mutating func fillRoundedRect(x: Int, y: Int, width w: Int, height h: Int, radius: Int, _ on: Bool = true) {
    let r = max(0, min(radius, min(w, h) / 2))
    // The rows between the corners in one fill; the corners' rows one by one, each inset.
    fillRect(x: x, y: y + r, width: w, height: h - 2 * r, on)
    for row in 0..<h where row < r || row >= h - r {
      // Distance of this row's pixel centre from the corner circle's centre, in half pixels.
      let dy2 = row < r ? 2 * (r - row) - 1 : (row >= h - r ? 2 * (row - (h - r)) + 1 : 0)
      var inset = 0
      if dy2 > 0 {
        // First column whose centre lies inside the circle of radius r.
        while inset < r {
          let dx2 = 2 * (r - inset) - 1
          if dx2 * dx2 + dy2 * dy2 <= 4 * r * r + 2 { break }
          inset += 1
        }
      }
      fillRect(x: x + inset, y: y + row, width: w - 2 * inset, height: 1, on)
    }
  }

  /// Draws a straight line from p0 to p1, both ends included (Bresenham).
  public mutating func line(from p0: (x: Int, y: Int), to p1: (x: Int, y: Int), _ on: Bool = true) {
    var x = p0.x
    var y = p0.y
    let dx = abs(p1.x - x)
    let dy = -abs(p1.y - y)
    let sx = x < p1.x ? 1 : -1
    let sy = y < p1.y ? 1 : -1
    var err = dx + dy
    while true {
      setPixel(x, y, on)
      if x == p1.x && y == p1.y { break }
      let e2 = 2 * err
      if e2 >= dy {
        err += dy
        x += sx
      }
      if e2 <= dx {
        err += dx
        y += sy
      }
    }
  }

  /// How `blit` combines a bitmap's lit pixels with the picture.
  public enum BlitMode: Sendable {
    /// Lit pixels of the bitmap light the picture; dark ones leave it alone (transparent).
    case or
    /// Lit pixels of the bitmap darken the picture (drawing in black on a lit area).
    case clear
    /// Lit pixels of the bitmap flip the picture.
    case xor
    /// The bitmap replaces the picture in its rectangle, dark pixels included.
    case copy
  }

  /// Draws `bitmap` with its top-left corner at (x, y).
  ///
  /// Page by page, a byte at a time: the eight rows of a bitmap column that fall in a page come
  /// out of its column word in one shift and are combined with the picture's byte under the
  /// page's row mask.
  public mutating func blit(_ bitmap: Bitmap, x: Int, y: Int, mode: BlitMode = .or) {
    guard let r = clipped(x, y, bitmap.width, bitmap.height) else { return }
    let width = self.width
    let firstPage = r.y0 >> 3
    let lastPage = (r.y1 - 1) >> 3
    bytes.withUnsafeMutableBufferPointer { picture in
      for page in firstPage...lastPage {
        let top = page << 3
        // The rows of this page inside the clip, as a mask over the page's byte (the bits outside
        // the bitmap come out dark; .copy keeps the picture there).
        let mask = (UInt8(0xFF) << UInt8(max(r.y0, top) - top)) & (UInt8(0xFF) >> UInt8(top + 8 - min(r.y1, top + 8)))
        var index = page * width + r.x0
        for px in r.x0..<r.x1 {
          let bits = bitmap.byte(column: px - x, fromRow: top - y)
          switch mode {
          case .or: picture[index] |= bits
          case .clear: picture[index] &= ~bits
          case .xor: picture[index] ^= bits
          case .copy: picture[index] = (picture[index] & ~mask) | bits
          }
          index += 1
        }
      }
    }
  }

  /// The picture turned by 180 degrees (what a panel mounted upside down shows).
  public func rotated180() -> Framebuffer {
    var out = Framebuffer(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width where pixel(x, y) { out.setPixel(width - 1 - x, height - 1 - y) }
    }
    return out
  }
}
