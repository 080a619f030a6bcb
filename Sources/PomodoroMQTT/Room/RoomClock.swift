import PomodoroCore

/// How old a room's session message is when the bridge hears it, and whether the desk's own
/// wall clock can be trusted (docs/room.md, "The clock rule"). Pure: the shell hands it the
/// monotonic now, its wall clock in ms and whether systemd-timesyncd's flag is there.
///
/// - The expiry-age A = the payload's `expiry` less the Message Expiry Interval the broker
///   forwarded (`expiry_left`), in whole seconds: the true age lies in (A-1, A+1) s. It needs
///   no clock at all.
/// - The wall-age W = own wall now - the sender's `sent_ms`: finer, but only worth anything when
///   both clocks are right. It is used when the own clock is trusted, the sender said `synced`
///   and W lies within [A-1 s, A+1 s]; else A.
/// - No expiry forwarded (a broker that does not): W when it may be used (own clock trusted,
///   sender synced), else 0 (a live message is fresh; a retained one's age is unknown: said once).
/// - The own clock is trusted when the flag is there and no message of a synced sender
///   disagreed with its expiry-age by more than 2 s in the last 10 minutes.
public struct RoomClock: Equatable, Sendable {
  /// systemd-timesyncd's mark of a synchronised clock.
  public static let defaultFlag = "/run/systemd/timesync/synchronized"
  /// The environment variable that moves the flag, for tests.
  public static let flagVariable = "POMODORO_TIMESYNC_FLAG"
  /// How far a synced sender's wall-age may stray from the expiry-age before the own clock is
  /// doubted.
  public static let disagreement: Int64 = 2000
  /// How long a disagreement keeps the own clock untrusted.
  public static let distrust = seconds(600)

  /// How an age was found.
  public enum Source: Equatable, Sendable {
    /// From the broker's expiry left (A).
    case expiry
    /// From the two wall clocks (W).
    case wall
    /// Neither could be used: a retained message without an expiry on an untrusted clock (0).
    case unknown
    /// A live message without an expiry on an untrusted clock: taken as fresh (0).
    case live
  }

  /// An age in ms and how it was found.
  public struct Age: Equatable, Sendable {
    public var ms: Int64
    public var source: Source
  }

  /// Whether systemd-timesyncd's flag is there (the shell looks).
  public var flag: Bool
  /// When a synced sender last disagreed with the expiry-age (monotonic).
  public var disagreedAt: Instant?

  public init(flag: Bool, disagreedAt: Instant? = nil) {
    self.flag = flag
    self.disagreedAt = disagreedAt
  }

  /// The path of the flag: `POMODORO_TIMESYNC_FLAG` when set and not empty, else systemd's.
  public static func flagPath(environment: [String: String]) -> String {
    environment[flagVariable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultFlag
  }

  /// Whether the own wall clock is trusted at `now`.
  public func trusted(at now: Instant) -> Bool {
    guard flag else { return false }
    guard let at = disagreedAt else { return true }
    return now - at >= Self.distrust
  }

  /// The age of a message heard at `now` (own wall clock `wallMs`): published with `expiry`
  /// seconds (the payload's field), delivered with `expiryLeft` (nil: none forwarded), sent at
  /// the sender's `sentMs` (wall, ms) which it trusts when `synced`. A synced sender that
  /// disagrees with the expiry-age makes the own clock untrusted for 10 minutes. Never negative,
  /// never more than `expiry`.
  public mutating func age(
    expiry: Int64, expiryLeft: Int?, sentMs: Int64, synced: Bool, retained: Bool, wallMs: Int64, at now: Instant
  ) -> Age {
    // Bounded first: hostile numbers (a sent_ms of -2^63, an expiry of 2^62) must not trap.
    let expiry = min(max(0, expiry), 1 << 32)
    let cap = expiry * 1000
    let (w, overflow) = wallMs.subtractingReportingOverflow(sentMs)
    let wall: Int64? = overflow ? nil : w
    guard let expiryLeft else {
      if let wall, synced, trusted(at: now) { return Age(ms: min(max(0, wall), cap), source: .wall) }
      return Age(ms: 0, source: retained ? .unknown : .live)
    }
    let a = min(max(0, expiry - Int64(expiryLeft)), expiry) * 1000
    // |W - A| in ms, the largest when it does not fit.
    let gap = wall.map { $0.subtractingReportingOverflow(a) }.map {
      $0.overflow ? UInt64.max : $0.partialValue.magnitude
    }
    if synced, (gap ?? .max) > UInt64(Self.disagreement) { disagreedAt = now }
    if synced, let wall, let gap, trusted(at: now), gap <= 1000 {
      return Age(ms: min(max(0, wall), cap), source: .wall)
    }
    return Age(ms: a, source: .expiry)
  }
}
