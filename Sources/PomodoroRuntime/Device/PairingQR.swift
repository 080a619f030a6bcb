import CPomodoroQR
import PomodoroGraphics
import PomodoroSystem

/// The pairing screen's QR code: the page's address with `#pair=<code>` after it, encoded by
/// libqrencode (its shim, loaded the first time) at error correction level M, or L where M needs
/// a bigger code than the panel shows (`QRModules.largestShown`). Where it does not fit, or the
/// library is absent, the desk shows the digits alone and says why once.
public enum PairingQR {
  /// Whether libqrencode was compiled in.
  public static var available: Bool { pomo_qr_available() == 1 }

  /// The address a phone opens: `url` (`http://192.168.1.23:8080/`) with `#pair=<code>`.
  public static func link(url: String, code: String) -> String {
    (url.hasSuffix("/") ? url : url + "/") + "#pair=" + code
  }

  /// `text`'s modules at the smallest level-M code, else level L, of at most `largest` modules a
  /// side; the reason when there is none.
  public static func encode(_ text: String, largest: Int = QRModules.largestShown) -> Result<QRModules, Reason> {
    var error = [CChar](repeating: 0, count: 300)
    var out = [UInt8](repeating: 0, count: largest * largest)
    for level: Int32 in [1, 0] {
      let size = pomo_qr_encode(text, level, &out, out.count, &error, error.count)
      if size < 0 { return .failure(Reason(text: PomodoroSystem.text(ofCString: error))) }
      if size > 0, let modules = QRModules(size: Int(size), dark: out[0..<Int(size * size)].map { $0 != 0 }) {
        return .success(modules)
      }
    }
    return .failure(
      Reason(
        text: "\(text.utf8.count) bytes need a QR code of more than \(largest) modules, more than the panel shows"))
  }

  public struct Reason: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var description: String { text }
  }
}
