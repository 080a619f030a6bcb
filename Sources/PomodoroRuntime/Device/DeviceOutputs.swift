import PomodoroCore
import PomodoroGraphics
import PomodoroSystem

/// What the device shows and sounds beside the screen's frames: the panel's look (OLED care's
/// dimming, blanking and shift), the pairing code over the screen, the buzzer's line.
extension Device {
  /// Gives the panel the look OLED care wants now (on/off, contrast); the shift applies to the
  /// next frame.
  func refreshLook(at now: Instant) {
    let active = max(activeAt, state.phaseSince)
    var want = care.look(phase: state.phase, activeAt: active, origin: shiftOrigin, now: now, quietSince: quietSince)
    if want.on, let off = offSince {
      // Waking: the orbit stood still while the panel was off, and goes on from where it stopped.
      shiftOrigin = shiftOrigin + (now - off)
      offSince = nil
      want = care.look(phase: state.phase, activeAt: active, origin: shiftOrigin, now: now, quietSince: quietSince)
    } else if !want.on, offSince == nil {
      offSince = care.blanksAt(phase: state.phase, activeAt: active, quietSince: quietSince) ?? now
    }
    guard want != look else { return }
    if want.on != look.on || want.contrast != look.contrast {
      display.setLook(on: want.on, contrast: want.contrast, at: now)
    }
    look = want
    observer?.displayChanged(want, at: now)
  }

  /// Shows a pairing code over the timer's screen, or withdraws it (nil). A code is not a touch:
  /// it neither wakes nor keeps the panel lit (OLED care dims and blanks it as the timer's
  /// screen); a press that wakes the panel leaves it there to be read. With `url` (the page's
  /// address on the LAN) a 128 x 64 panel shows a QR code of it with the code beside the digits;
  /// where none can be made (libqrencode absent, an address too long) the digits alone, said once.
  public func showPairing(_ code: String?, url: String? = nil) {
    if let code {
      var qr: QRModules?
      if let url, config.height > 32, !pairing.shown(at: clock.now) || pairing.code != code {
        switch qrEncoder(PairingQR.link(url: url, code: code)) {
        case .success(let modules): qr = modules
        case .failure(let reason):
          if !qrRefusalSaid {
            log.warning("the pairing screen shows the code without a QR code: \(reason)")
            qrRefusalSaid = true
          }
        }
      }
      pairing.show(code, qr: qr, at: clock.now)
    } else {
      pairing.withdraw()
    }
  }

  func driveBuzzer(at now: Instant) {
    if let tone {
      driveTone(tone, at: now)
      return
    }
    let before = player.lineLevel
    do {
      try player.drive(parts.buzzer, at: now)
      buzzerFailed = false
    } catch {
      if !buzzerFailed { log.error("setting the buzzer line failed: \(HardwareAdvice.text(error))") }
      buzzerFailed = true
    }
    if let after = player.lineLevel, after != before { observer?.buzzerChanged(after, at: now) }
  }
}
