import PomodoroCore

/// The pairing screen: the 6-digit code `pomodoro web` asks the desk to show, to be typed on the
/// page, and how long it stays. 128 x 64: a lit title band "Pair a browser" (rows 0-10), the
/// code in the big digits (rows 16-43), "Type it on the page  M:SS" (rows 53-63). With a QR code
/// of the page's address (`qr`, at most `QRModules.largestShown` modules) the 128 x 64 screen is
/// the code's lit square on the left (64 x 64, 2 pixels a module, the modules dark: a phone's
/// camera reads dark on light) and on the right "Scan or type" (rows 0-8), the code in the
/// medium digits as two groups of three (rows 11-31 and 34-54) and M:SS (rows 55-63). 128 x 32:
/// "Type on the page  M:SS" (rows 0-8), the code in the medium digits (rows 10-30), never a QR
/// code (32 rows hold none a camera reads).
public enum PairingLayout {
  static let width = 128
  /// Pixels a module.
  static let moduleSize = 2

  /// The screen for `code` with `secondsLeft` until it goes, with `qr` beside it where it fits.
  public static func draw(code: String, secondsLeft: Int, height: Int = 64, qr: QRModules? = nil) -> Framebuffer {
    let left = formatShortClock(Int64(max(0, secondsLeft)))
    var fb = Framebuffer(width: width, height: height)
    if height <= 32 {
      fb.draw("Type on the page  \(left)", font: .small, centeredAt: width / 2, y: 0)
      fb.draw(code, font: .mediumDigits, centeredAt: width / 2, y: 10)
      return fb
    }
    if let qr, qr.size <= QRModules.largestShown {
      // The lit square, the modules cut out of it, centred: its quiet zone is what is left lit.
      let side = 64
      fb.fillRect(x: 0, y: 0, width: side, height: side)
      let offset = (side - qr.size * moduleSize) / 2
      for y in 0..<qr.size {
        for x in 0..<qr.size where qr.isDark(x, y) {
          fb.fillRect(
            x: offset + x * moduleSize, y: offset + y * moduleSize, width: moduleSize, height: moduleSize, false)
        }
      }
      let center = side + (width - side) / 2
      fb.draw("Scan or type", font: .small, centeredAt: center, y: 0)
      let digits = Array(code)
      let split = digits.count / 2
      fb.draw(String(digits[..<split]), font: .mediumDigits, centeredAt: center, y: 11)
      fb.draw(String(digits[split...]), font: .mediumDigits, centeredAt: center, y: 34)
      fb.draw(left, font: .small, centeredAt: center, y: 55)
      return fb
    }
    fb.fillRoundedRect(x: 0, y: 0, width: width, height: 11, radius: 3)
    fb.draw("Pair a browser", font: .small, centeredAt: width / 2, y: 1, mode: .clear)
    fb.draw(code, font: .bigDigits, centeredAt: width / 2, y: 16)
    fb.draw("Type it on the page  \(left)", font: .small, centeredAt: width / 2, y: 53)
    return fb
  }
}
