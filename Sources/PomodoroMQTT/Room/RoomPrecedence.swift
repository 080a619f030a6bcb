import PomodoroControl
import PomodoroCore

/// What one bridge knows of a room's sessions (docs/room.md, "Which session wins"): the best
/// revision heard or published and when it expires, the best heard from other desks (to tell a
/// desk that lags), and the session this desk made. Every entry ends with its message's expiry:
/// a session nobody renews stops counting, a forged one too. `RoomSession.orders` is the one
/// rule; revisions are serial numbers, so this desk's next press always supersedes what it holds.
struct RoomPrecedence {
  struct Heard {
    var message: RoomSessionMessage
    var ageMs: Int64
    var at: Instant
    /// When its `elapsed` held, on this desk's clock, and when it expires.
    var anchor: Instant { at - ms(ageMs) }
    var expires: Instant { anchor + seconds(message.expiry) }
    var key: RoomRevision { message.key(at: anchor) }
    func age(at now: Instant) -> Int64 { ageMs + wholeMilliseconds(now - at) }
  }

  /// The best revision heard or published, and when it expires.
  private(set) var best: (key: RoomRevision, expires: Instant)?
  /// The best message heard from other desks.
  private(set) var bestHeard: Heard?
  /// The session this desk made and published, and when its `elapsed_ms` was true.
  var origin: (message: RoomSessionMessage, at: Instant)?

  /// `best` unless it has expired at `now`.
  func live(at now: Instant) -> RoomRevision? { best.flatMap { now < $0.expires ? $0.key : nil } }

  /// Whether `key` wins over the best held at `now` (anything does when none is held).
  func wins(_ key: RoomRevision, at now: Instant) -> Bool { live(at: now).map { key.supersedes($0) } ?? true }

  /// A session heard on the room's topics (any desk's, this one's echo too).
  mutating func heard(_ heard: Heard, own desk: String, at now: Instant) {
    let key = heard.key
    if wins(key, at: now) { best = (key, heard.expires) }
    if key.by != desk, bestHeard.map({ now >= $0.expires || key == $0.key || key.supersedes($0.key) }) ?? true {
      bestHeard = heard
    }
  }

  /// What this desk made, published now: the best from now until it expires.
  mutating func published(_ m: RoomSessionMessage, at now: Instant) {
    origin = (m, now)
    best = (m.key(at: now), now + seconds(m.expiry))
  }

  /// The best heard from others, when it is the best this bridge holds, still running or paused
  /// and unexpired, and the device holds another (`held`): the device is told of it again (its
  /// engine judges, by the same rule).
  func better(than held: RoomRevision?, at now: Instant) -> Heard? {
    guard let heard = bestHeard, now < heard.expires, heard.message.session.state != .ended,
      live(at: now) == heard.key, held != heard.key
    else { return nil }
    return heard
  }

  /// Why this desk's new revision `key` lost (it is not newer than the best held), for the log.
  func loss(of key: RoomRevision, at now: Instant) -> String? {
    guard let best = live(at: now), !key.supersedes(best) else { return nil }
    return "revision \(key.rev) lost to \(best.by)'s revision \(best.rev), heard before it reached the room"
  }
}
