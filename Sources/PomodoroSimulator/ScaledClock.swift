import PomodoroCore
import PomodoroRuntime

/// A monotonic clock that runs `rate` times as fast as a base clock (the simulator's
/// fast-forward). It starts equal to the base and never runs slower than it (rate >= 1), so
/// its instants are always at or after the base's: a deadline on this clock converts back to
/// the base clock with `baseInstant(for:)`.
///
/// `pinned(_:)` holds the reading still while a batch of work is scheduled at "now".
public final class ScaledClock: MonotonicClock {
  public let base: MonotonicClock
  /// How many nanoseconds of this clock pass per nanosecond of the base clock (1 or more).
  public private(set) var rate: Int64 = 1
  /// The instants at which the current rate began, on this clock and on the base clock.
  private var anchor: Instant
  private var baseAnchor: Instant
  private var pin: Instant?

  public init(base: MonotonicClock) {
    self.base = base
    baseAnchor = base.now
    anchor = baseAnchor
  }

  public var now: Instant { pin ?? reading(atBase: base.now) }

  /// Changes the rate from now on; the time read so far is kept (the clock never jumps).
  public func setRate(_ newRate: Int64) {
    precondition(newRate >= 1, "a scaled clock never runs slower than its base")
    let baseNow = base.now
    anchor = pin ?? reading(atBase: baseNow)
    baseAnchor = baseNow
    rate = newRate
  }

  /// The earliest base-clock instant at which this clock reads `instant` or later.
  public func baseInstant(for instant: Instant) -> Instant {
    let span = instant - anchor
    // Rounded up, so that waking at the base instant never finds this clock short of it.
    let baseSpan = span >= 0 ? (span + rate - 1) / rate : -((-span) / rate)
    return baseAnchor + baseSpan
  }

  /// Runs `body` with `now` held at one reading, so that everything it schedules "now" is at
  /// or after the clock's now when it is checked.
  public func pinned<T>(_ body: () throws -> T) rethrows -> T {
    let outer = pin
    pin = now
    defer { pin = outer }
    return try body()
  }

  private func reading(atBase baseNow: Instant) -> Instant { anchor + (baseNow - baseAnchor) * rate }
}
