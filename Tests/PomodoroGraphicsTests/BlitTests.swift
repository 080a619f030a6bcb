import PomodoroGraphics
import XCTest

/// `blit` works a page byte at a time; these compare it with the plain pixel-by-pixel meaning of
/// each mode, over random bitmaps at random places, half off the edges included.
final class BlitTests: XCTestCase {
  func testBlitMatchesThePixelByPixelMeaningOfEveryModeAnywhere() {
    var rng = SystemRandomNumberGenerator()
    for height in [64, 32] {
      for _ in 0..<300 {
        var picture = Framebuffer(width: 128, height: height)
        for i in picture.bytes.indices { picture.bytes[i] = UInt8.random(in: 0...255, using: &rng) }
        // Up to 70 rows: one column word (64 rows) and the taller bitmaps that take two.
        var bitmap = Bitmap(width: Int.random(in: 1...20, using: &rng), height: Int.random(in: 1...70, using: &rng))
        for y in 0..<bitmap.height {
          for x in 0..<bitmap.width { bitmap[x, y] = Bool.random(using: &rng) }
        }
        let x = Int.random(in: -24...132, using: &rng)
        let y = Int.random(in: -74...(height + 4), using: &rng)
        for mode in [Framebuffer.BlitMode.or, .clear, .xor, .copy] {
          var fast = picture
          fast.blit(bitmap, x: x, y: y, mode: mode)
          var expected = picture
          for by in 0..<bitmap.height {
            for bx in 0..<bitmap.width where expected.contains(x + bx, y + by) {
              let lit = bitmap[bx, by]
              let old = picture.pixel(x + bx, y + by)
              let new: Bool
              switch mode {
              case .or: new = old || lit
              case .clear: new = old && !lit
              case .xor: new = old != lit
              case .copy: new = lit
              }
              expected.setPixel(x + bx, y + by, new)
            }
          }
          XCTAssertEqual(fast, expected, "\(bitmap.width)x\(bitmap.height) at (\(x),\(y)), \(mode), 128x\(height)")
        }
      }
    }
  }

  func testTextDrawsTheSameGlyphsWhetherOrNotItIsPlainASCII() {
    for font in [Font.small, Font.bigDigits] {
      for text in ["25:00", "Focus 1/4", "caf\u{E9} 12", "a\r\nb", "\u{1F345} x3", "", "~ \t|"] {
        var glyphs: [Bitmap] = []
        for c in text { if let g = font.glyph(c) { glyphs.append(g) } }
        let expectedWidth = glyphs.isEmpty ? 0 : glyphs.map(\.width).reduce(0, +) + font.spacing * (glyphs.count - 1)
        XCTAssertEqual(font.width(text), expectedWidth, "width of \(text.debugDescription)")
        var expected = Framebuffer()
        var x = 3
        for g in glyphs {
          expected.blit(g, x: x, y: 5)
          x += g.width + font.spacing
        }
        var drawn = Framebuffer()
        drawn.draw(text, font: font, x: 3, y: 5)
        XCTAssertEqual(drawn, expected, "drawing \(text.debugDescription)")
      }
    }
  }
}
