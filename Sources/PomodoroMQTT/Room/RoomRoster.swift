import PomodoroControl
import PomodoroCore

/// The other desks of a room, as one bridge has heard them (docs/room.md, "Who is in"): each
/// desk's last member message and when it was heard. Every desk republishes its own every
/// `refresh` with the Message Expiry Interval `life`; one not heard for `life` leaves the roster.
/// When the roster is full a newcomer takes the place of the one heard longest ago among those
/// heard only once (a desk that left without its will is heard once, from its retained message: a
/// ghost; a desk that is there refreshes, and once heard again it makes way only after every
/// ghost). So ghosts neither stay for ever nor keep a real desk out.
struct RoomRoster {
  /// The most other members kept.
  static let most = RoomView.mostOthers
  /// How often a desk publishes its member message again, changed or not.
  static let refresh = seconds(30)
  /// A member not heard for this long leaves (two refreshes lost and a margin); the expiry its
  /// message is published with, so the broker drops the message of a desk gone without its will.
  static let life = seconds(75)

  struct Entry {
    var member: RoomMember
    /// When its message was sent, as far as this desk can tell (its age from the expiry left).
    var heard: Instant
    /// Heard more than once: a desk that refreshes, not a ghost.
    var again = false
  }
  private(set) var entries: [String: Entry] = [:]

  /// When the member message came, from its expiry left: a message of ours left `life` with
  /// `expiryLeft` seconds to go was sent `life - expiryLeft` ago. One that says more than `life`
  /// left, or that came retained with no expiry, was not published by a desk's bridge: it is
  /// taken as `life` old (the first to make way, gone at the next look).
  static func sent(retained: Bool, expiryLeft: Int?, at now: Instant) -> Instant {
    guard let left = expiryLeft.map({ seconds(Int64($0)) }) else { return retained ? now - life : now }
    return left > life ? now - life : now - (life - left)
  }

  /// A member heard: in or updated; when the roster is full, the one heard longest ago makes
  /// way for it. Returns whether the roster changed and the desk that made way, if one did.
  mutating func heard(_ member: RoomMember, sent: Instant, at now: Instant) -> (changed: Bool, evicted: String?) {
    let desk = member.desk
    guard now - sent < Self.life else { return (false, nil) }
    var evicted: String?
    if entries[desk] == nil, entries.count >= Self.most,
      let oldest = entries.min(by: { Self.rank($0) < Self.rank($1) })
    {
      // A newcomer older than every desk kept, and than every ghost, waits for a place.
      guard !oldest.value.again || oldest.value.heard <= sent else { return (false, nil) }
      entries[oldest.key] = nil
      evicted = oldest.key
    }
    let changed = entries[desk]?.member != member || evicted != nil
    let again = entries[desk] != nil
    entries[desk] = Entry(member: member, heard: max(sent, entries[desk]?.heard ?? sent), again: again)
    return (changed, evicted)
  }

  /// The order in which members make way: ghosts (heard once) first, the one heard longest ago
  /// first, then by desk id.
  static func rank(_ e: (key: String, value: Entry)) -> (Int, Instant, String) {
    (e.value.again ? 1 : 0, e.value.heard, e.key)
  }

  /// A desk's member message emptied (it left, or its will): out.
  mutating func gone(_ desk: String) -> Bool { entries.removeValue(forKey: desk) != nil }

  /// Members not heard for `life` leave; whether any did.
  mutating func expire(at now: Instant) -> Bool {
    let stale = entries.filter { now - $0.value.heard >= Self.life }.map(\.key)
    for desk in stale { entries[desk] = nil }
    return !stale.isEmpty
  }

  /// When the next member leaves unless heard again.
  var nextExpiry: Instant? { entries.values.map { $0.heard + Self.life }.min() }

  /// The members, sorted by desk id byte by byte.
  var members: [RoomMember] {
    entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { entries[$0]?.member }
  }

  var count: Int { entries.count }
}
