import PomodoroCore

/// A clock that moves only when told to: tests and headless scripts advance it.
public final class VirtualClock: AdvanceableClock {
  public private(set) var now: Instant

  public init(start: Instant = .zero) { self.now = start }

  /// Moves time forward to `instant`; never backwards.
  public func advance(to instant: Instant) {
    if instant > now { now = instant }
  }

  public func advance(by span: Nanoseconds) { advance(to: now + span) }
}
