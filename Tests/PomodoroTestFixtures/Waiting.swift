// Compiled in debug builds only (`swift test`), like every file of this module: it uses
// XCTest, which a release build (`swift build -c release` builds every target) may not have.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation
  import XCTest

  /// A wait that ran out, naming what it waited for (and, in `what`, what it saw last).
  public struct WaitTimeout: Error, CustomStringConvertible {
    public var what: String
    public var limit: TimeInterval
    public var description: String { "gave up after \(limit) s waiting for \(what)" }
  }

  /// The tests' waits: every test that waits for something it cannot be told of (a file, a
  /// process, a broker's retained message, a log line) waits here, for the event, never for a
  /// time. The limit is generous (CI shares two busy cores): a wait returns as soon as its event
  /// comes, so the limit is only how long a broken test hangs before it says what never came.
  public enum Waiting {
    /// How long a wait goes on before it fails.
    public static let limit: TimeInterval = 30
    /// How often a condition is asked again.
    public static let interval: TimeInterval = 0.01
  }

  /// Asks `produce` now and every `interval` until it gives a value, which it returns; throws
  /// `WaitTimeout` naming `what` (read when it gives up: it may say what was seen last) after
  /// `limit` seconds.
  @discardableResult
  public func waitFor<T>(
    _ what: @autoclosure () -> String, limit: TimeInterval = Waiting.limit,
    every interval: TimeInterval = Waiting.interval,
    _ produce: () throws -> T?
  ) throws -> T {
    let end = Date().addingTimeInterval(limit)
    while true {
      if let value = try produce() { return value }
      guard Date() < end else { throw WaitTimeout(what: what(), limit: limit) }
      usleep(UInt32(interval * 1_000_000))  // the poll interval of the one poll loop
    }
  }

  /// Asks `condition` now and every `interval` until it holds; throws `WaitTimeout` naming
  /// `what` after `limit` seconds.
  public func waitUntil(
    _ what: @autoclosure () -> String, limit: TimeInterval = Waiting.limit,
    every interval: TimeInterval = Waiting.interval,
    _ condition: () throws -> Bool
  ) throws {
    let _: Void = try waitFor(what(), limit: limit, every: interval) { try condition() ? () : nil }
  }

  /// Waits until `thread` has ended (after it was told to stop); a test failure naming `what` if
  /// it has not within `limit` seconds. For a `defer` or a `stop()`, which cannot throw.
  public func join(_ thread: Thread?, _ what: String, limit: TimeInterval = Waiting.limit) {
    guard let thread else { return }
    do { try waitUntil("\(what) to end", limit: limit, every: 0.001) { thread.isFinished } } catch {
      XCTFail("\(error)")
    }
  }

  /// A flag one thread sets and others read or wait for.
  public final class StopBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var flag = false
    public init() {}
    public var stopped: Bool { condition.withLock { flag } }
    public func stop() {
      condition.withLock {
        flag = true
        condition.broadcast()
      }
    }
    /// Waits until stopped, at most `seconds`; whether it was.
    @discardableResult
    public func wait(upTo seconds: TimeInterval) -> Bool {
      let end = Date().addingTimeInterval(seconds)
      return condition.withLock {
        while !flag { if !condition.wait(until: end) { return flag } }
        return true
      }
    }
  }
#endif
