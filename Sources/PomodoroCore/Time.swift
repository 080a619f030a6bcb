/// Monotonic time, injected. The engine never reads a clock: the shell hands it `now`.
///
/// An `Instant` is nanoseconds on CLOCK_MONOTONIC (or on a virtual clock in tests). It has no
/// relation to the wall clock, which jumps when NTP syncs on a Pi without an RTC.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var nanoseconds: Int64

  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  public static let zero = Instant(nanoseconds: 0)

  public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

  public static func + (a: Instant, d: Nanoseconds) -> Instant { Instant(nanoseconds: a.nanoseconds + d) }
  public static func - (a: Instant, d: Nanoseconds) -> Instant { Instant(nanoseconds: a.nanoseconds - d) }
  public static func - (a: Instant, b: Instant) -> Nanoseconds { a.nanoseconds - b.nanoseconds }

  public var description: String { "t+\(wholeMilliseconds(nanoseconds))ms" }
}

/// A span of time in nanoseconds. Plain Int64 keeps the core free of Foundation and cheap.
public typealias Nanoseconds = Int64

/// Constructors for spans, so that code reads `ms(150)`, `microseconds(500)` or `seconds(25 * 60)`.
/// These and the conversions below are the only places that spell out the unit factors.
@inlinable public func microseconds(_ v: Int64) -> Nanoseconds { v * nanosecondsPerMicrosecond }
@inlinable public func ms(_ v: Int64) -> Nanoseconds { v * nanosecondsPerMillisecond }
@inlinable public func seconds(_ v: Int64) -> Nanoseconds { v * nanosecondsPerSecond }
@inlinable public func minutes(_ v: Int64) -> Nanoseconds { v * secondsPerMinute * nanosecondsPerSecond }
@inlinable public func hours(_ v: Int64) -> Nanoseconds { v * secondsPerHour * nanosecondsPerSecond }
public let secondsPerMinute: Int64 = 60
public let secondsPerHour: Int64 = 3_600
public let nanosecondsPerMicrosecond: Int64 = 1_000
public let nanosecondsPerMillisecond: Int64 = 1_000_000
public let nanosecondsPerSecond: Int64 = 1_000_000_000

/// Conversions from a span to whole units, truncating toward zero (as `/` does): for logs,
/// files and system calls that count in milliseconds or seconds.
@inlinable public func wholeMicroseconds(_ d: Nanoseconds) -> Int64 { d / nanosecondsPerMicrosecond }
@inlinable public func wholeMilliseconds(_ d: Nanoseconds) -> Int64 { d / nanosecondsPerMillisecond }
@inlinable public func wholeSeconds(_ d: Nanoseconds) -> Int64 { d / nanosecondsPerSecond }
/// Whole seconds rounded to the nearest (a half away from zero): a time shown to the second,
/// such as the wall-clock end of a running timer.
@inlinable public func wholeSecondsRounded(_ d: Nanoseconds) -> Int64 {
  let half = nanosecondsPerSecond / 2
  return (d >= 0 ? d + half : d - half) / nanosecondsPerSecond
}
/// Whole milliseconds rounded up, for a wait that must not end early (poll's timeout).
@inlinable public func wholeMillisecondsRoundedUp(_ d: Nanoseconds) -> Int64 {
  d <= 0 ? 0 : (d + nanosecondsPerMillisecond - 1) / nanosecondsPerMillisecond
}

/// A span of `days` (fractions allowed), for soak runs measured in virtual days.
@inlinable public func days(_ v: Double) -> Nanoseconds { Nanoseconds(v * 24 * Double(hours(1))) }

/// Anything that tells monotonic time: the system's CLOCK_MONOTONIC, or a virtual clock.
/// Modelled on Swift's `Clock`, reduced to what the device needs.
public protocol MonotonicClock: AnyObject {
  var now: Instant { get }
}

/// A clock that moves only when told to (a test's or a headless script's virtual time). The
/// loop that jumps from deadline to deadline needs only this, not the mock that provides it.
public protocol AdvanceableClock: MonotonicClock {
  /// Moves time forward to `instant`; never backwards.
  func advance(to instant: Instant)
}
