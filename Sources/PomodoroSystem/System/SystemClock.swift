import PomodoroCore

/// The system's CLOCK_MONOTONIC: the clock libgpiod's edge timestamps use, never set, never
/// jumping with NTP. Works on macOS too (the simulator's real clock), with no libgpiod.
public final class SystemClock: MonotonicClock, Sendable {
  public init() {}

  public var now: Instant {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Instant(nanoseconds: seconds(Int64(ts.tv_sec)) + Int64(ts.tv_nsec))
  }
}
