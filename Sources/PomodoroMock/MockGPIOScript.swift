import PomodoroCore

/// One scheduled change of a mock line's physical level.
public struct ScriptedLevel: Equatable, Sendable {
  public var time: Instant
  /// Physical level: `true` = high.
  public var high: Bool

  public init(time: Instant, high: Bool) {
    self.time = time
    self.high = high
  }
}

/// Builds physical edge sequences as real contacts make them: clean, or with contact bounce.
public enum MockGPIOScript {
  /// The edges of one contact settling at `high` at `time`. With `bounce` > 0 the contact
  /// chatters first: an even number (2 to 8) of extra toggles at random instants within
  /// `bounce`, then the final level, so the last edge is at `time + bounce` at most.
  public static func settle(
    high: Bool, at time: Instant, bounce: Nanoseconds, rng: inout SplitMix64
  ) -> [ScriptedLevel] {
    guard bounce > 0 else { return [ScriptedLevel(time: time, high: high)] }
    let toggles = 2 * Int(rng.next() % 4 + 1)
    var offsets = (0..<toggles).map { _ in Int64(rng.next() % UInt64(bounce)) + 1 }
    offsets.sort()
    var edges = [ScriptedLevel(time: time, high: high)]
    var level = high
    for offset in offsets {
      level.toggle()
      // Strictly increasing instants, even when two random offsets collide.
      let t = max(time + offset, edges[edges.count - 1].time + 1)
      edges.append(ScriptedLevel(time: t, high: level))
    }
    return edges
  }

  /// Physical levels (a, b) of an active-low encoder in Gray state `state` (0 = rest, both high).
  public static func encoderLevels(state: Int) -> (a: Bool, b: Bool) {
    switch ((state % 4) + 4) % 4 {
    case 0: return (true, true)
    case 1: return (false, true)
    case 2: return (false, false)
    default: return (true, false)
    }
  }

  /// The Gray state of an active-low encoder's physical levels (inverse of `encoderLevels`).
  public static func encoderState(a: Bool, b: Bool) -> Int {
    switch (a, b) {
    case (true, true): return 0
    case (false, true): return 1
    case (false, false): return 2
    case (true, false): return 3
    }
  }
}
