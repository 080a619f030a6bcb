import PomodoroCore
import PomodoroGraphics

/// The pairing code `pomodoro web` asked the desk to show (`{"cmd":"pair","code":"123456"}`):
/// over the timer's screen for `lifetime`, until the page withdraws it (`{"cmd":"pair"}`) or a
/// button is pressed at the desk. The timer runs on underneath; the alarm still sounds.
public struct PairingPrompt: Sendable {
  public static let lifetime = minutes(2)
  public private(set) var code: String?
  public private(set) var until: Instant?

  public init() {}

  public mutating func show(_ code: String, at now: Instant) {
    self.code = code
    until = now + Self.lifetime
  }

  public mutating func withdraw() {
    code = nil
    until = nil
  }

  /// Whether it is on the screen at `now` (it goes by itself at its end).
  public func shown(at now: Instant) -> Bool { code != nil && (until.map { now < $0 } ?? false) }

  /// The frame at `now` while it is shown, nil when the timer's screen is.
  public func frame(at now: Instant, height: Int) -> Framebuffer? {
    guard shown(at: now), let code, let until else { return nil }
    return PairingLayout.draw(code: code, secondsLeft: Int(shownSeconds(until - now)), height: height)
  }

  /// When the screen must change next: each second's count, and the end.
  public func nextFrame(after now: Instant) -> Instant? {
    guard shown(at: now), let until else { return nil }
    let left = until - now
    let intoSecond = left % nanosecondsPerSecond
    return now + (intoSecond == 0 ? nanosecondsPerSecond : intoSecond)
  }
}
