import PomodoroCore

/// The pairing screen: the 6-digit code `pomodoro web` asks the desk to show, to be typed on the
/// page, and how long it stays. 128 x 64: a lit title band "Pair a browser" (rows 0-10), the
/// code in the big digits (rows 16-43), "Type it on the page  M:SS" (rows 53-63). 128 x 32:
/// "Type on the page  M:SS" (rows 0-8), the code in the medium digits (rows 10-30).
public enum PairingLayout {
  static let width = 128

  /// The screen for `code` with `secondsLeft` until it goes.
  public static func draw(code: String, secondsLeft: Int, height: Int = 64) -> Framebuffer {
    let left = formatShortClock(Int64(max(0, secondsLeft)))
    var fb = Framebuffer(width: width, height: height)
    if height <= 32 {
      fb.draw("Type on the page  \(left)", font: .small, centeredAt: width / 2, y: 0)
      fb.draw(code, font: .mediumDigits, centeredAt: width / 2, y: 10)
      return fb
    }
    fb.fillRoundedRect(x: 0, y: 0, width: width, height: 11, radius: 3)
    fb.draw("Pair a browser", font: .small, centeredAt: width / 2, y: 1, mode: .clear)
    fb.draw(code, font: .bigDigits, centeredAt: width / 2, y: 16)
    fb.draw("Type it on the page  \(left)", font: .small, centeredAt: width / 2, y: 53)
    return fb
  }
}
