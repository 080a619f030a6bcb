/// The home-screen icon of the web page: the panel's tomato (`Icons.tomatoFrames[0]`), its
/// stem and leaves green and its body red, scaled up whole pixels on a plain square that a
/// phone may round or mask (the tomato stays inside the middle 70%, a maskable icon's safe zone).
public enum AppIcon {
  /// The colours: background, tomato, leaves.
  public static let palette: [(red: UInt8, green: UInt8, blue: UInt8)] = [
    (0x1F, 0x1B, 0x1A), (0xE5, 0x48, 0x3B), (0x4C, 0xAF, 0x50),
  ]
  /// Rows of the tomato's art that are its stem and leaves.
  static let leafRows = 0..<5

  /// The icon, `size` x `size` pixels, as PNG bytes.
  public static func png(size: Int) -> [UInt8] {
    let art = Icons.tomatoFrames[0]
    let scale = max(1, size * 7 / 10 / art.width)
    let left = (size - art.width * scale) / 2
    let top = (size - art.height * scale) / 2
    return PNGEncoder.encodeIndexed(width: size, height: size, palette: palette) { x, y in
      let ax = (x - left) >= 0 ? (x - left) / scale : -1
      let ay = (y - top) >= 0 ? (y - top) / scale : -1
      guard ax >= 0, ay >= 0, ax < art.width, ay < art.height, art[ax, ay] else { return 0 }
      return leafRows.contains(ay) ? 2 : 1
    }
  }
}

extension PNGEncoder {
  /// A palette image of at most 4 colours (2 bits a pixel), `pixel(x, y)` the index of each.
  public static func encodeIndexed(
    width: Int, height: Int, palette: [(red: UInt8, green: UInt8, blue: UInt8)], pixel: (Int, Int) -> Int
  ) -> [UInt8] {
    precondition(palette.count <= 4, "2 bits a pixel: at most 4 colours")
    let rowBytes = (width * 2 + 7) / 8
    var raw = [UInt8](repeating: 0, count: height * (1 + rowBytes))
    for y in 0..<height {
      let base = y * (1 + rowBytes) + 1
      for x in 0..<width {
        let index = UInt8(pixel(x, y) & 3)
        raw[base + x / 4] |= index << UInt8(6 - 2 * (x % 4))
      }
    }
    var header: [UInt8] = []
    for v in [UInt32(width), UInt32(height)] { header += bigEndian(v) }
    header += [2, 3, 0, 0, 0]  // bit depth 2, palette colour, deflate, adaptive filters, no interlace
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    for (type, data) in [
      ("IHDR", header), ("PLTE", palette.flatMap { [$0.red, $0.green, $0.blue] }), ("IDAT", zlibStored(raw)),
      ("IEND", []),
    ] {
      let typed = Array(type.utf8) + data
      png += bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }
    return png
  }

  private static func bigEndian(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
  }
}
