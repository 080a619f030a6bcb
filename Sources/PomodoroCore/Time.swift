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

  public var description: String { "t+\(nanoseconds / 1_000_000)ms" }
}

/// A span of time in nanoseconds. Plain Int64 keeps the core free of Foundation and cheap.
public typealias Nanoseconds = Int64

/// Constructors for spans, so that code reads `ms(150)` or `seconds(25 * 60)`.
@inlinable public func ms(_ v: Int64) -> Nanoseconds { v * 1_000_000 }
@inlinable public func seconds(_ v: Int64) -> Nanoseconds { v * 1_000_000_000 }
@inlinable public func minutes(_ v: Int64) -> Nanoseconds { v * 60_000_000_000 }
public let nanosecondsPerSecond: Int64 = 1_000_000_000

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
