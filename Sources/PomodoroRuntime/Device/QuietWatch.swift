import PomodoroConfig
import PomodoroCore
import PomodoroSystem

/// Whether quiet hours (`quiet_hours`) hold, looked at from the wall clock's local time only
/// when due: at the next boundary (a deadline of the loop, never polled), a minute after the
/// last look while the loop runs anyway, and at once after the config or the clock changed.
/// Pure but for the wall clock it is handed.
package struct QuietWatch: Equatable {
  /// Since when quiet hours hold; nil: not now.
  package private(set) var since: Instant?
  /// The next boundary, found at the last look: the loop's deadline.
  package private(set) var boundary: Instant?
  /// When the wall clock was last looked at; nil: at the next `check`.
  private var checkedAt: Instant?

  package init() {}

  /// What a look found that the journal says.
  package enum Change: Equatable {
    case began(QuietHours)
    case ended(QuietHours)
    /// `quiet_hours` was turned off while they held.
    case turnedOff
  }

  /// Looks at the wall clock if a look is due; says whether quiet hours began or ended.
  package mutating func check(_ hours: QuietHours?, at now: Instant, wallClock: () -> WallTime) -> Change? {
    guard let hours else {
      let held = since != nil
      since = nil
      boundary = nil
      return held ? .turnedOff : nil
    }
    let due = checkedAt.map { now - $0 >= seconds(60) } ?? true
    guard due || boundary.map({ now >= $0 }) ?? true else { return nil }
    checkedAt = now
    let wall = wallClock()
    let (quiet, next) = hours.at(wall)
    boundary = now + seconds(max(1, next - wall.epochSeconds))
    if quiet && since == nil {
      since = now
      return .began(hours)
    } else if !quiet && since != nil {
      since = nil
      return .ended(hours)
    }
    return nil
  }

  /// The config or the wall clock changed: look again at the next `check`.
  package mutating func lookAgain() { checkedAt = nil }

  /// The journal's line for a change, with how the panel looks meanwhile.
  package static func text(_ change: Change, panel: QuietPanel) -> String {
    switch change {
    case .began(let hours):
      return "quiet hours \(hours.text) begin: the picker's panel \(panel == .off ? "goes dark" : "dims"), no click"
    case .ended(let hours): return "quiet hours \(hours.text) end"
    case .turnedOff: return "quiet hours end (quiet_hours is off)"
    }
  }
}
