/// A 1-bit picture laid out the way SSD1306/SH1106 display RAM is: in pages of 8 rows.
///
/// `bytes[page * width + x]` holds the 8 pixels of column `x` in rows `page * 8 ..< page * 8 + 8`,
/// bit 0 on top. A flush therefore copies bytes to the controller without any conversion.
/// Every drawing operation clips at the edges: coordinates outside the picture are ignored.
public struct Framebuffer: Equatable, Hashable, Sendable {
  /// Width in pixels (128 for the supported panels).
  public let width: Int
  /// Height in pixels: a multiple of 8 (64 or 32 for the supported panels).
  public let height: Int
  /// The pixels, page by page, column by column (see the type's documentation).
  public var bytes: [UInt8]

  /// A blank (all dark) picture. `height` is rounded up to a whole number of pages.
  public init(width: Int = 128, height: Int = 64) {
    precondition(width > 0 && height > 0, "Framebuffer needs a positive size, got \(width)x\(height)")
    self.width = width
    self.height = (height + 7) / 8 * 8
    self.bytes = [UInt8](repeating: 0, count: width * self.height / 8)
  }

  /// Number of 8-row pages.
  @inlinable public var pages: Int { height / 8 }

  /// Whether (x, y) lies inside the picture.
  @inlinable public func contains(_ x: Int, _ y: Int) -> Bool {
    x >= 0 && y >= 0 && x < width && y < height
  }

  /// The pixel at (x, y); `false` (dark) outside the picture.
  @inlinable public func pixel(_ x: Int, _ y: Int) -> Bool {
    guard contains(x, y) else { return false }
    return bytes[(y >> 3) * width + x] & (1 << UInt8(y & 7)) != 0
  }

  /// Sets the pixel at (x, y) lit (`on`) or dark; ignored outside the picture.
  @inlinable public mutating func setPixel(_ x: Int, _ y: Int, _ on: Bool = true) {
    guard contains(x, y) else { return }
    let index = (y >> 3) * width + x
    let bit = UInt8(1) << UInt8(y & 7)
    if on { bytes[index] |= bit } else { bytes[index] &= ~bit }
  }

  /// Flips the pixel at (x, y); ignored outside the picture.
  @inlinable public mutating func flipPixel(_ x: Int, _ y: Int) {
    guard contains(x, y) else { return }
    bytes[(y >> 3) * width + x] ^= UInt8(1) << UInt8(y & 7)
  }

  /// Fills the whole picture lit (`on`) or dark.
  public mutating func clear(_ on: Bool = false) {
    for i in bytes.indices { bytes[i] = on ? 0xFF : 0 }
  }

  /// Number of lit pixels.
  public var litCount: Int { bytes.reduce(0) { $0 + $1.nonzeroBitCount } }
}

extension Framebuffer: CustomStringConvertible {
  /// The picture as text, `#` for lit and `.` for dark, one line a row (handy in test failures).
  public var description: String {
    var out = ""
    for y in 0..<height {
      for x in 0..<width { out.append(pixel(x, y) ? "#" : ".") }
      out.append("\n")
    }
    return out
  }
}
