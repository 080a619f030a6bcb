import PomodoroCore

/// Debounces one button on edge timestamps, with no polling: a level counts once it has been
/// stable for `stableFor` (20 ms by default). Contact chatter, on press or on release, restarts
/// the wait, so it never yields a second press; a glitch shorter than `stableFor` yields nothing.
///
/// The shell feeds edges with `edge(active:at:)`, and wakes at `nextDeadline` to call
/// `advance(to:)`, which reports what settled by then. Reported instants are those at which the
/// contact settled, so they are earlier than the `now` they are reported at by `stableFor`.
public struct ButtonDebouncer: Sendable {
  public let stableFor: Nanoseconds
  public let longPressAfter: Nanoseconds

  /// The debounced level: `true` while the button is (confirmed) pressed.
  public private(set) var isPressed: Bool
  private var raw: Bool
  /// The last raw edge not yet confirmed stable, if any.
  private var pendingSince: Instant?
  private var pressedAt: Instant?
  private var longPressReported = false

  /// - Parameters:
  ///   - stableFor: how long a level must hold to count (default 20 ms).
  ///   - longPressAfter: how long a press must last to report `longPress` (default 1 s).
  ///   - initiallyPressed: the line's logical level at start (a button held at start-up is
  ///     taken as already pressed and reports no press).
  public init(stableFor: Nanoseconds = ms(20), longPressAfter: Nanoseconds = seconds(1), initiallyPressed: Bool = false)
  {
    self.stableFor = stableFor
    self.longPressAfter = longPressAfter
    self.isPressed = initiallyPressed
    self.raw = initiallyPressed
    self.longPressReported = initiallyPressed
  }

  /// When `advance(to:)` must next be called for something to be reported; nil when nothing
  /// can happen before the next edge.
  public var nextDeadline: Instant? {
    var deadline: Instant? = nil
    if let since = pendingSince { deadline = since + stableFor }
    if isPressed, !longPressReported, let at = pressedAt {
      let long = at + longPressAfter
      if deadline.map({ long < $0 }) ?? true { deadline = long }
    }
    return deadline
  }

  /// Feeds an edge: the logical level after it (`true` = pressed) and its timestamp. Reports
  /// whatever settled before this edge. Edges must come in time order.
  public mutating func edge(active: Bool, at time: Instant) -> [ButtonEvent] {
    let events = advance(to: time)
    // Even an edge to the level we already had (its opposite edge was missed) is a sign the
    // contact is moving: the wait starts again.
    raw = active
    pendingSince = time
    return events
  }

  /// Reports what settled up to `now`: press, release, long press, in time order.
  public mutating func advance(to now: Instant) -> [ButtonEvent] {
    var events: [ButtonEvent] = []
    if let since = pendingSince, now >= since + stableFor {
      pendingSince = nil
      if raw != isPressed {
        // A long press due before this release settled comes first.
        if isPressed, !longPressReported, let at = pressedAt, at + longPressAfter <= since {
          longPressReported = true
          events.append(.longPress(at: at + longPressAfter))
        }
        isPressed = raw
        if raw {
          pressedAt = since
          longPressReported = false
          events.append(.pressed(at: since))
        } else {
          let held = pressedAt.map { since - $0 } ?? 0
          pressedAt = nil
          events.append(.released(at: since, held: held))
        }
      }
    }
    if isPressed, pendingSince == nil || raw, !longPressReported, let at = pressedAt, now >= at + longPressAfter {
      longPressReported = true
      events.append(.longPress(at: at + longPressAfter))
    }
    return events
  }
}
