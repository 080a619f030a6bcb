import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroSystem

/// Keeps the panel showing the latest frame through bus faults. A failed write marks the panel
/// down; the countdown and the buzzer carry on while it retries with back-off (1 s doubling to
/// 30 s), and when the panel answers again it is initialised afresh and repainted whole.
final class DisplayKeeper {
  let driver: OLEDDriver
  let location: String
  private let log: Log
  private(set) var healthy = false
  private(set) var retryAt: Instant?
  private var backoff = Backoff(first: seconds(1), last: seconds(30))

  init(driver: OLEDDriver, description: String, log: Log) {
    self.driver = driver
    self.location = description
    self.log = log
  }

  /// Brings the panel up; false (and logged) when it does not answer.
  @discardableResult
  func bringUp(at now: Instant) -> Bool {
    do {
      try driver.initialize()
      if retryAt != nil { log.notice("display \(location) answers again; repainted") }
      healthy = true
      retryAt = nil
      backoff.reset()
      log.forget("display-down")
      return true
    } catch {
      markDown(error, at: now)
      return false
    }
  }

  /// Shows `frame`, sending only what changed. Returns the wire bytes spent (0 when nothing
  /// changed or the panel is down).
  func show(_ frame: Framebuffer, at now: Instant) -> Int {
    guard retryIfDue(at: now) else { return 0 }
    do {
      return try driver.flush(frame)
    } catch {
      markDown(error, at: now)
      return 0
    }
  }

  /// Switches the panel on or off and sets its contrast (OLED care). The driver keeps both, so
  /// a panel brought up again after a fault gets them too.
  func setLook(on: Bool, contrast: UInt8, at now: Instant) {
    // Both are set even when the first write fails: the driver keeps them for the next
    // initialisation, so a panel blanked while unplugged comes back blank.
    var failure: Error?
    do { try driver.setContrast(contrast) } catch { failure = error }
    do { try driver.setDisplayOn(on) } catch { failure = failure ?? error }
    if let failure, healthy { markDown(failure, at: now) }
  }

  /// While the panel is down, brings it up if a retry is due (also while it is blanked, so the
  /// retry deadline moves on); true when it is up.
  @discardableResult
  func retryIfDue(at now: Instant) -> Bool {
    if healthy { return true }
    guard let retryAt, now >= retryAt else { return false }
    return bringUp(at: now)
  }

  /// The next instant a retry is due, while the panel is down.
  var nextRetry: Instant? { healthy ? nil : retryAt }

  /// Turns the panel off for exit (best effort: it may be gone).
  func park() {
    guard healthy else { return }
    try? driver.setDisplayOn(false)
  }

  private func markDown(_ error: Error, at now: Instant) {
    healthy = false
    driver.invalidate()
    let wait = backoff.next()
    retryAt = now + wait
    log.once(
      "display-down", .error,
      "display \(location) is not answering: \(HardwareAdvice.text(error)) The timer keeps running, retrying every \(wholeSeconds(wait))-\(wholeSeconds(backoff.last)) s"
    )
  }
}
