import PomodoroGraphics
import XCTest

/// Decodes our own PNGs (chunks, CRCs, the zlib stream's stored blocks and Adler-32, the
/// palette and the pixels) and checks them against the framebuffer.
final class PNGEncoderTests: XCTestCase {
  private struct Decoded {
    var width = 0
    var height = 0
    var palette: [UInt8] = []
    var rows: [[UInt8]] = []  // unpacked palette indices
  }

  private func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
  }

  private func decode(_ png: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> Decoded {
    XCTAssertEqual(Array(png[0..<8]), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], file: file, line: line)
    var d = Decoded()
    var idat: [UInt8] = []
    var i = 8
    var types: [String] = []
    while i < png.count {
      let length = Int(be32(png, i))
      let typed = Array(png[(i + 4)..<(i + 8 + length)])
      let type = String(decoding: typed[0..<4], as: UTF8.self)
      types.append(type)
      XCTAssertEqual(be32(png, i + 8 + length), PNGEncoder.crc32(typed), "CRC of \(type)", file: file, line: line)
      let body = Array(typed[4...])
      switch type {
      case "IHDR":
        d.width = Int(be32(body, 0))
        d.height = Int(be32(body, 4))
        XCTAssertEqual(Array(body[8...]), [1, 3, 0, 0, 0], file: file, line: line)
      case "PLTE": d.palette = body
      case "IDAT": idat += body
      default: break
      }
      i += 12 + length
    }
    XCTAssertEqual(types, ["IHDR", "PLTE", "IDAT", "IEND"], file: file, line: line)
    // zlib: header, stored blocks, Adler-32 of the inflated data.
    XCTAssertEqual((UInt16(idat[0]) << 8 | UInt16(idat[1])) % 31, 0, "zlib header check bits")
    var raw: [UInt8] = []
    var p = 2
    var final = false
    while !final {
      final = idat[p] & 1 == 1
      XCTAssertEqual(idat[p] >> 1, 0, "stored block type", file: file, line: line)
      let len = Int(idat[p + 1]) | Int(idat[p + 2]) << 8
      let nlen = Int(idat[p + 3]) | Int(idat[p + 4]) << 8
      XCTAssertEqual(len ^ 0xFFFF, nlen, file: file, line: line)
      raw += idat[(p + 5)..<(p + 5 + len)]
      p += 5 + len
    }
    XCTAssertEqual(be32(idat, p), PNGEncoder.adler32(raw), "Adler-32", file: file, line: line)
    XCTAssertEqual(p + 4, idat.count)
    let rowBytes = (d.width + 7) / 8
    XCTAssertEqual(raw.count, d.height * (rowBytes + 1))
    for y in 0..<d.height {
      let row = raw[(y * (rowBytes + 1))..<((y + 1) * (rowBytes + 1))]
      XCTAssertEqual(row.first, 0, "filter type none")
      let bits = Array(row.dropFirst())
      d.rows.append((0..<d.width).map { x in (bits[x / 8] >> UInt8(7 - x % 8)) & 1 })
    }
    return d
  }

  private func sample() -> Framebuffer {
    var fb = Framebuffer()
    fb.line(from: (0, 0), to: (127, 63))
    fb.fillRect(x: 100, y: 5, width: 20, height: 9)
    fb.draw("Hi!", font: .small, x: 3, y: 40)
    return fb
  }

  func testPixelsAreScaledWithGapsAndPaletteCarriesTheContrast() throws {
    let fb = sample()
    let look = PanelLook(color: (200, 100, 50), scale: 3, pixelGaps: true, contrast: 0)
    let d = try decode(PNGEncoder.encode(fb, look: look))
    XCTAssertEqual(d.width, 384)
    XCTAssertEqual(d.height, 192)
    XCTAssertEqual(Array(d.palette[0..<3]), [0, 0, 0])
    let lit = look.litColor
    XCTAssertEqual(Array(d.palette[3..<6]), [lit.red, lit.green, lit.blue])
    XCTAssertLessThan(lit.red, 200, "contrast 0 dims the panel")
    XCTAssertGreaterThan(lit.red, 0)
    for y in 0..<192 {
      for x in 0..<384 {
        let expected: UInt8 = (x % 3 != 2 && y % 3 != 2 && fb.pixel(x / 3, y / 3)) ? 1 : 0
        if d.rows[y][x] != expected { return XCTFail("pixel (\(x),\(y))") }
      }
    }
  }

  func testFullContrastKeepsTheColourAndBigImagesSpanSeveralStoredBlocks() throws {
    let fb = sample()
    let look = PanelLook(color: (10, 20, 30), scale: 9, pixelGaps: false, contrast: 255)
    XCTAssertEqual(look.litColor.red, 10)
    XCTAssertEqual(look.litColor.blue, 30)
    let png = PNGEncoder.encode(fb, look: look)  // 1152 x 576: 83 KB of rows, two stored blocks
    let d = try decode(png)
    for y in stride(from: 0, to: d.height, by: 5) {
      for x in stride(from: 0, to: d.width, by: 7) where d.rows[y][x] != (fb.pixel(x / 9, y / 9) ? 1 : 0) {
        return XCTFail("pixel (\(x),\(y))")
      }
    }
  }

  func testChecksumsMatchKnownDefinitions() {
    // CRC-32 and Adler-32 by their textbook definitions, computed bit by bit here.
    let data = Array("The quick brown fox jumps over the lazy dog".utf8)
    var crc: UInt32 = 0xFFFF_FFFF
    for b in data {
      crc ^= UInt32(b)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    XCTAssertEqual(PNGEncoder.crc32(data), ~crc)
    let a = data.reduce(1) { ($0 + UInt32($1)) % 65_521 }
    let b = (1...data.count).reduce(UInt32(0)) { acc, n in
      (acc + (data[0..<n].reduce(1) { ($0 + UInt32($1)) % 65_521 })) % 65_521
    }
    XCTAssertEqual(PNGEncoder.adler32(data), b << 16 | a)
  }
}
