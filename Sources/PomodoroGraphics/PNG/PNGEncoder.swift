/// How a snapshot draws the panel: the colour of lit pixels, the zoom, the contrast setting.
public struct PanelLook: Equatable, Sendable {
  /// Colour of a lit pixel at full contrast (red, green, blue).
  public var color: (red: UInt8, green: UInt8, blue: UInt8)
  /// Each panel pixel becomes `scale` x `scale` image pixels.
  public var scale: Int
  /// Leave the last row and column of each scaled pixel dark, like the gaps of a real panel
  /// (only when scale >= 3).
  public var pixelGaps: Bool
  /// The controller's contrast register (0...255): a dimmer panel at low values.
  public var contrast: UInt8

  public init(
    color: (red: UInt8, green: UInt8, blue: UInt8) = (0xE6, 0xF2, 0xFF), scale: Int = 4, pixelGaps: Bool = true,
    contrast: UInt8 = 0xFF
  ) {
    self.color = color
    self.scale = max(1, scale)
    self.pixelGaps = pixelGaps
    self.contrast = contrast
  }

  public static func == (a: PanelLook, b: PanelLook) -> Bool {
    a.color == b.color && a.scale == b.scale && a.pixelGaps == b.pixelGaps && a.contrast == b.contrast
  }

  /// The lit colour with contrast applied: OLED brightness follows the drive current, so the
  /// colour scales from 30% at contrast 0 to 100% at 255.
  public var litColor: (red: UInt8, green: UInt8, blue: UInt8) {
    let gain: Int = 77 + Int(contrast) * 178 / 255
    func scaled(_ v: UInt8) -> UInt8 { UInt8(Int(v) * gain / 255) }
    return (scaled(color.red), scaled(color.green), scaled(color.blue))
  }
}

/// A PNG writer of our own: a 2-colour palette image (black and the panel colour), 1 bit a
/// pixel, compressed with stored (uncompressed) deflate blocks, so no zlib is needed.
public enum PNGEncoder {
  /// The PNG bytes of `fb` as the panel shows it (lit pixels in the panel colour on black).
  public static func encode(_ fb: Framebuffer, look: PanelLook = PanelLook()) -> [UInt8] {
    let s = look.scale
    let width = fb.width * s
    let height = fb.height * s
    let gap = look.pixelGaps && s >= 3
    // Rows: a filter byte (0, none) then the 1-bit pixels, most significant bit first.
    let rowBytes = (width + 7) / 8
    var raw = [UInt8](repeating: 0, count: height * (1 + rowBytes))
    for y in 0..<height {
      let py = y / s
      if gap && y % s == s - 1 { continue }
      let base = y * (1 + rowBytes) + 1
      for x in 0..<width {
        if gap && x % s == s - 1 { continue }
        if fb.pixel(x / s, py) { raw[base + (x >> 3)] |= 0x80 >> UInt8(x & 7) }
      }
    }
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(width))
    header.appendBigEndian(UInt32(height))
    header += [1, 3, 0, 0, 0]  // bit depth 1, palette colour, deflate, adaptive filters, no interlace
    appendChunk("IHDR", header, to: &png)
    let lit = look.litColor
    appendChunk("PLTE", [0, 0, 0, lit.red, lit.green, lit.blue], to: &png)
    appendChunk("IDAT", zlibStored(raw), to: &png)
    appendChunk("IEND", [], to: &png)
    return png
  }

  /// A zlib stream holding `data` in stored deflate blocks (at most 65,535 bytes each).
  public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var start = 0
    repeat {
      let end = min(start + 65_535, data.count)
      let length = UInt16(end - start)
      out.append(end == data.count ? 1 : 0)  // BFINAL, BTYPE 00
      out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
      out += data[start..<end]
      start = end
    } while start < data.count
    out.appendBigEndian(adler32(data))
    return out
  }

  /// CRC-32 (ISO 3309, the one PNG uses) of `bytes`.
  public static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }

  /// Adler-32 (the zlib checksum) of `bytes`.
  public static func adler32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in bytes {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    return b << 16 | a
  }

  private static let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
    png.appendBigEndian(UInt32(data.count))
    let typed = Array(type.utf8) + data
    png += typed
    png.appendBigEndian(crc32(typed))
  }
}

extension Array where Element == UInt8 {
  fileprivate mutating func appendBigEndian(_ v: UInt32) {
    append(UInt8(v >> 24))
    append(UInt8((v >> 16) & 0xFF))
    append(UInt8((v >> 8) & 0xFF))
    append(UInt8(v & 0xFF))
  }
}
