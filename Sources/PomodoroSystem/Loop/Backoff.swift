import PomodoroCore

/// How long to wait before the next try after a failure: `first`, doubling up to `last`; back to
/// `first` after a success. The one back-off: the display keeper's retries of an unplugged
/// panel, the bridge's of its broker and its device.
public struct Backoff: Sendable {
  public let first: Nanoseconds
  public let last: Nanoseconds
  public private(set) var current: Nanoseconds?

  public init(first: Nanoseconds, last: Nanoseconds) {
    self.first = first
    self.last = last
  }

  /// The wait before the next try, doubled from the one before.
  public mutating func next() -> Nanoseconds {
    let value = current.map { min(last, $0 * 2) } ?? first
    current = value
    return value
  }

  public mutating func reset() { current = nil }
}
