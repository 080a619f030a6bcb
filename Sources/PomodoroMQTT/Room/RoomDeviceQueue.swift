import PomodoroControl
import PomodoroCore

/// What waits to go from the room bridge to its device (docs/room.md): the best session heard, at
/// most `passRate` lines a second (a flood is coalesced to the best of what waits, so it never
/// stalls the device's buttons), and the bridge's view of the room at each change, at most every
/// `statusGap`, and every `heartbeat` (the device counts the bridge gone after 60 s).
struct RoomDeviceQueue {
  /// The most `room_session` lines a second.
  static let passRate: Int64 = 20
  /// `room_status` at least this often.
  static let heartbeat = seconds(20)
  /// The least time between two `room_status` lines for changes (a flood of members).
  static let statusGap = ms(250)

  private(set) var waiting: RoomPrecedence.Heard?
  private(set) var nextPass: Instant
  private(set) var lastStatus: RoomView?
  private(set) var lastStatusAt: Instant?
  private(set) var statusDue: Instant?
  private(set) var nextHeartbeat: Instant

  init(at now: Instant) {
    nextPass = now
    nextHeartbeat = now
  }

  /// Keeps the best of what waits.
  mutating func queue(_ heard: RoomPrecedence.Heard) {
    if let w = waiting, w.key.supersedes(heard.key) { return }
    waiting = heard
  }

  /// The session line due at `now`, if one is (it is then no longer waiting).
  mutating func pass(at now: Instant) -> ControlCommand? {
    guard let w = waiting, now >= nextPass else { return nil }
    waiting = nil
    nextPass = now + seconds(1) / Self.passRate
    return .roomSession(w.message, age: ms(w.age(at: now)), at: now)
  }

  /// The view changed (or may have): a `room_status` is due, `statusGap` after the last at the
  /// soonest.
  mutating func statusChanged(at now: Instant) {
    let soonest = (lastStatusAt ?? now - Self.statusGap) + Self.statusGap
    statusDue = min(statusDue ?? soonest, max(now, soonest))
  }

  /// The connection came (back): said at once.
  mutating func statusNow(at now: Instant) { statusDue = now }

  /// Whether `view` differs from the last said.
  func differs(_ view: RoomView) -> Bool { lastStatus != view }

  /// Whether a `room_status` is due at `now`.
  func statusIsDue(at now: Instant) -> Bool { now >= nextHeartbeat || statusDue.map { now >= $0 } ?? false }

  /// `view` went to the device (`sent`), or could not (tried again in a second).
  mutating func said(_ view: RoomView, sent: Bool, at now: Instant) {
    guard sent else {
      statusDue = now + seconds(1)
      return
    }
    lastStatus = view
    lastStatusAt = now
    statusDue = nil
    nextHeartbeat = now + Self.heartbeat
  }

  /// A new room (or none): nothing waits, a status is due at once.
  mutating func reset(at now: Instant) {
    waiting = nil
    lastStatus = nil
    statusDue = now
  }

  var deadline: Instant? { [waiting.map { _ in nextPass }, statusDue, nextHeartbeat].compactMap { $0 }.min() }
}
