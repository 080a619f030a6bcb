import PomodoroCore

/// Plays a `BuzzerPattern` on a monotonic schedule. Pure: it says which level the buzzer has
/// at any instant and when that next changes; `drive(_:at:)` puts it on an `OutputLine`,
/// touching the line only when the level changes.
public struct BuzzerPlayer: Sendable {
  public private(set) var pattern: BuzzerPattern?
  public private(set) var startedAt: Instant = .zero
  /// The level last written by `drive`, nil before the first write.
  public private(set) var lineLevel: Bool?

  public init() {}

  /// Starts `pattern` from its first segment at `now`, replacing whatever played.
  public mutating func start(_ pattern: BuzzerPattern, at now: Instant) {
    self.pattern = pattern
    self.startedAt = now
  }

  /// Stops: the buzzer is off from now on.
  public mutating func stop() { pattern = nil }

  /// The buzzer's logical level at `now`.
  public func level(at now: Instant) -> Bool {
    guard let (segment, _) = locate(now) else { return false }
    return segment.on
  }

  /// The first instant after `now` at which the level changes; nil if it never does.
  public func nextChange(after now: Instant) -> Instant? {
    guard let pattern else { return nil }
    if now < startedAt { return level(at: startedAt) ? startedAt : nextChange(after: startedAt) }
    guard let (_, end) = locate(now) else { return nil }
    let current = level(at: now)
    // Walk segment ends until one changes the level; a full period without change means never.
    var t = end
    let limit = end + pattern.period + 1
    while t <= limit {
      if level(at: t) != current { return t }
      guard let (_, next) = locate(t) else { return nil }
      t = next
    }
    return nil
  }

  /// Sets `line` to the level at `now` if it differs from what was last written.
  public mutating func drive(_ line: OutputLine, at now: Instant) throws {
    let want = level(at: now)
    if lineLevel != want {
      try line.set(want)
      lineLevel = want
    }
  }

  /// Stops and drives the line off (for exit and acknowledgement).
  public mutating func silence(_ line: OutputLine) throws {
    stop()
    try line.set(false)
    lineLevel = false
  }

  /// The segment playing at `now` and the instant it ends; nil when silent (no pattern, before
  /// the start, or after the end of a one-shot pattern).
  private func locate(_ now: Instant) -> (BuzzerPattern.Segment, Instant)? {
    guard let pattern, now >= startedAt else { return nil }
    let period = pattern.period
    var offset = now - startedAt
    if offset >= period {
      guard pattern.repeats else { return nil }
      offset %= period
    }
    let passStart = now - offset
    var t: Nanoseconds = 0
    for segment in pattern.segments {
      t += segment.duration
      if offset < t { return (segment, passStart + t) }
    }
    return nil
  }
}
