import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What this desk says on the room's topics, each on a topic of its own that only it may write:
/// its sessions (retained, with their expiry) and its member message (at each change and every
/// `RoomRoster.refresh`, with the expiry `RoomRoster.life`).
extension RoomBridge {
  /// The desk's own session, when it waited for the retained ones and is still the best.
  func publishOwn(_ now: Instant) {
    guard ownWaiting, settled(now) else { return }
    ownWaiting = false
    guard let (made, at) = precedence.origin,
      precedence.wins(made.key(at: at), at: now) || precedence.live(at: now) == made.key(at: at),
      made.session.state != .ended, var m = made.advanced(by: now - at)
    else { return }
    m.sentMs = wallMs()
    m.synced = roomClock.trusted(at: now)
    publish(m, at: now)
  }

  /// This desk's member message when it changed, and every `RoomRoster.refresh` (its expiry
  /// `RoomRoster.life`): a desk that stops refreshing leaves every roster.
  func publishMember(_ now: Instant) {
    guard let member, let topic = topics?.member(desk), let s = session, s.up else { return }
    let json = member.json
    guard json != publishedMember || nextMemberRefresh.map({ now >= $0 }) ?? true else { return }
    publishedMember = json
    nextMemberRefresh = now + RoomRoster.refresh
    s.publish(topic, json, retain: true, expiry: Int(wholeSeconds(RoomRoster.life)))
  }

  /// This desk's session on its own topic, retained with its expiry.
  func publish(_ made: RoomSessionMessage, at now: Instant) {
    guard let topic = topics?.session(desk), let s = session else { return }
    var m = made
    m.expiry = m.plannedExpiry
    precedence.published(m, at: now)
    s.publish(topic, m.json, retain: true, expiry: Int(m.expiry))
  }

  /// The device went away (stopped, hung) while the bridge runs: its member message is emptied,
  /// as the will would, so the room does not count a desk that does nothing; its next state
  /// puts it back. The room's connection stays.
  public func deviceGone() {
    member = nil
    guard let topic = topics?.member(desk), let s = session, s.up, publishedMember != "" else { return }
    publishedMember = ""
    s.publish(topic, "", retain: true)
  }
}
