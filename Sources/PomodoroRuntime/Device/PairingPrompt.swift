import PomodoroCore
import PomodoroGraphics

/// The pairing code `pomodoro web` asked the desk to show (`{"cmd":"pair","code":"123456"}`, with
/// `"url"` the page's address, drawn as a QR code beside it on a 128 x 64 panel):
/// over the timer's screen for `lifetime`, until the page withdraws it (`{"cmd":"pair"}`) or a
/// button is pressed at the desk. The timer runs on underneath; the alarm still sounds. Asking
/// again for the code on the screen changes nothing (its end stays), and a code a press put away
/// is not shown again before its end: only a new code (a new pairing) comes back. A code is no
/// touch: the panel dims and blanks as OLED care says, over the code as over the timer.
public struct PairingPrompt: Sendable {
  public static let lifetime = minutes(2)
  public private(set) var code: String?
  public private(set) var until: Instant?
  /// The QR code of the page's address with the code, drawn beside it on a 128 x 64 panel.
  public private(set) var qr: QRModules?
  /// The code a press at the desk put away, and the end it had: not shown again before then.
  public private(set) var putAway: (code: String, until: Instant)?

  public init() {}

  /// Shows `code` with a QR code of the page's `url` where one is given and the panel is taller
  /// than 32 rows (made by `encoder` when the code is new or no longer shown); the reason when
  /// none could be made (the digits are shown alone).
  public mutating func show(
    _ code: String, url: String?, height: Int, at now: Instant,
    encoder: (String) -> Result<QRModules, PairingQR.Reason>
  ) -> PairingQR.Reason? {
    var qr: QRModules?
    var refused: PairingQR.Reason?
    if let url, height > 32, !shown(at: now) || self.code != code {
      switch encoder(PairingQR.link(url: url, code: code)) {
      case .success(let modules): qr = modules
      case .failure(let reason): refused = reason
      }
    }
    show(code, qr: qr, at: now)
    return refused
  }

  /// Shows `code` until `now + lifetime`; false (nothing changes) when it is the code shown now
  /// or the one a press put away before its end.
  @discardableResult
  public mutating func show(_ code: String, qr: QRModules? = nil, at now: Instant) -> Bool {
    if self.code == code && shown(at: now) { return false }
    if let away = putAway, away.code == code, now < away.until { return false }
    self.code = code
    self.qr = qr
    until = now + Self.lifetime
    return true
  }

  public mutating func withdraw() {
    code = nil
    until = nil
    qr = nil
  }

  /// A press at the desk takes the code away: it stays away for the rest of its time.
  public mutating func pressedAway(at now: Instant) {
    if let code, let until, now < until { putAway = (code, until) }
    withdraw()
  }

  /// Whether it is on the screen at `now` (it goes by itself at its end).
  public func shown(at now: Instant) -> Bool { code != nil && (until.map { now < $0 } ?? false) }

  /// The frame at `now` while it is shown, nil when the timer's screen is.
  public func frame(at now: Instant, height: Int) -> Framebuffer? {
    guard shown(at: now), let code, let until else { return nil }
    return PairingLayout.draw(code: code, secondsLeft: Int(shownSeconds(until - now)), height: height, qr: qr)
  }

  /// When the screen must change next: each second's count, and the end.
  public func nextFrame(after now: Instant) -> Instant? {
    guard shown(at: now), let until else { return nil }
    let left = until - now
    let intoSecond = left % nanosecondsPerSecond
    return now + (intoSecond == 0 ? nanosecondsPerSecond : intoSecond)
  }
}
