/// The idle <-> running transition: an ordered (Bayer) dissolve from one picture to another.
/// Pixels only, no contrast change; what is equal in both pictures never flickers.
enum Dissolve {
  /// The 4 x 4 Bayer matrix: the order in which a cell's pixels switch over.
  static let bayer: [Int] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]

  /// `to` where the cell's threshold is below `level` (0...16), `from` elsewhere.
  static func mix(from: Framebuffer, to: Framebuffer, level: Int) -> Framebuffer {
    var out = from
    // Per row of a page, the mask of columns x with bayer[(y % 4) * 4 + x % 4] < level.
    for page in 0..<out.pages {
      for x in 0..<out.width {
        var mask: UInt8 = 0
        for bit in 0..<8 where bayer[((page * 8 + bit) % 4) * 4 + x % 4] < level { mask |= 1 << UInt8(bit) }
        let i = page * out.width + x
        out.bytes[i] = (from.bytes[i] & ~mask) | (to.bytes[i] & mask)
      }
    }
    return out
  }
}
