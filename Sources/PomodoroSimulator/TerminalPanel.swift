import PomodoroGraphics
import PomodoroRuntime
import PomodoroSystem

/// Draws a 1-bit picture with Unicode characters, one terminal row per 2 pixel rows (half
/// blocks) or per 4 pixel rows and 2 columns (braille, for small terminals).
public enum TerminalPanel {
  public enum Style: Equatable, Sendable {
    /// One column per pixel, two pixel rows per row: ▀ ▄ █ and space.
    case halfBlocks
    /// Two columns and four rows of pixels per character (U+2800...U+28FF).
    case braille

    /// Characters across and rows down for a `width` x `height` picture.
    public func cells(width: Int, height: Int) -> (columns: Int, rows: Int) {
      switch self {
      case .halfBlocks: return (width, (height + 1) / 2)
      case .braille: return ((width + 1) / 2, (height + 3) / 4)
      }
    }
  }

  /// The picture as text rows in `style`.
  public static func rows(_ image: Framebuffer, style: Style) -> [String] {
    switch style {
    case .halfBlocks: return halfBlocks(image)
    case .braille: return braille(image)
    }
  }

  /// Upper pixel and lower pixel of each cell: ▀ upper only, ▄ lower only, █ both.
  public static func halfBlocks(_ image: Framebuffer) -> [String] {
    stride(from: 0, to: image.height, by: 2).map { y in
      var row = String.UnicodeScalarView()
      for x in 0..<image.width {
        let upper = lit(image, x, y)
        let lower = lit(image, x, y + 1)
        row.append(upper ? (lower ? "\u{2588}" : "\u{2580}") : (lower ? "\u{2584}" : " "))
      }
      return String(row)
    }
  }

  /// Braille dots numbered as Unicode does: dots 1-3 and 7 down the left column, 4-6 and 8
  /// down the right; dot n is bit n-1 above U+2800.
  static let brailleBits: [[UInt32]] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]]

  public static func braille(_ image: Framebuffer) -> [String] {
    stride(from: 0, to: image.height, by: 4).map { y in
      var row = String.UnicodeScalarView()
      for x in stride(from: 0, to: image.width, by: 2) {
        var bits: UInt32 = 0
        for dy in 0..<4 {
          for dx in 0..<2 where lit(image, x + dx, y + dy) { bits |= brailleBits[dy][dx] }
        }
        row.append(Unicode.Scalar(0x2800 + bits)!)
      }
      return String(row)
    }
  }

  private static func lit(_ image: Framebuffer, _ x: Int, _ y: Int) -> Bool {
    image.contains(x, y) && image.pixel(x, y)
  }
}
