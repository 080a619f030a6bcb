import PomodoroCore
import PomodoroGraphics
import PomodoroSystem

/// What the device shows and sounds beside the screen's frames: the panel's look (OLED care's
/// dimming, blanking and shift) and the pairing code over the screen.
extension Device {
  /// Gives the panel the look OLED care wants now (on/off, contrast); the shift applies to the
  /// next frame.
  func refreshLook(at now: Instant) {
    let before = look
    guard let want = panel.refresh(state, quietSince: presence.hushed(quiet.since, config), at: now) else { return }
    if want.on != before.on || want.contrast != before.contrast {
      display.setLook(on: want.on, contrast: want.contrast, at: now)
    }
    observer?.displayChanged(want, at: now)
  }

  /// Shows a pairing code over the timer's screen, or withdraws it (nil). A code is not a touch:
  /// it neither wakes nor keeps the panel lit (OLED care dims and blanks it as the timer's
  /// screen); a press that wakes the panel leaves it there to be read. With `url` (the page's
  /// address on the LAN) a 128 x 64 panel shows a QR code of it with the code beside the digits;
  /// where none can be made (libqrencode absent, an address too long) the digits alone, said once.
  public func showPairing(_ code: String?, url: String? = nil) {
    if let code {
      let refused = pairing.show(code, url: url, height: config.height, at: clock.now, encoder: qrEncoder)
      if let refused {
        log.once("pairing-qr", .warning, "the pairing screen shows the code without a QR code: \(refused)")
      }
    } else {
      pairing.withdraw()
    }
  }
}
