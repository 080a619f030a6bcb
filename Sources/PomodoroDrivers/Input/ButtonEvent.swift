import PomodoroCore

/// What a debounced button reports.
public enum ButtonEvent: Equatable, Sendable {
  /// The contact closed and stayed closed: `at` is the instant it settled (its last edge).
  case pressed(at: Instant)
  /// The contact opened and stayed open: `at` is the instant it settled; `held` is how long it
  /// was pressed (from the settled press to the settled release).
  case released(at: Instant, held: Nanoseconds)
  /// Still pressed `longPress` after the press settled; reported once per press.
  case longPress(at: Instant)
}
