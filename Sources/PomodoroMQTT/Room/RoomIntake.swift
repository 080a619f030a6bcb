import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What the room bridge hears on the room's topics: each desk's session (its author the topic's
/// desk), each desk's member message, and the first wire's session topic (a desk of an earlier
/// release). Everything is a stranger's input: bounded, parsed into the engine's types, refused
/// with a rate-limited line that names the topic, the field and what it must be.
extension RoomBridge {
  func heard(_ message: MQTTMessage) {
    let now = clock.now
    guard let room, let topics else { return }
    switch topics.which(message.topic) {
    case .session(let author): heardSession(message, author: author, room: room, at: now)
    case .member(let other): heardMember(message, desk: other, at: now)
    case .earlierRelease:
      if message.length > 0 {
        refuse("session", RoomSessionMessage.earlierRelease, topic: message.topic, at: now, key: "earlier")
      }
    case nil: break
    }
  }

  /// Says why a message was refused, at most 5 a minute of each kind (`key`: a kind of its own).
  /// Refusals are a flood's mark, and a broker drops what it cannot send a client in time, a real
  /// session among the flood's: the sessions are asked for again (their retained copies) a second
  /// after the first refusal, and so on while refusals come.
  func refuse(_ kind: String, _ why: String, topic: String, at now: Instant, key: String? = nil) {
    if askAgainAt == nil { askAgainAt = now + Self.askAgain }
    limiter.say(
      "room-" + (key ?? kind), .warning, "ignored a \(kind) message on \(topic): \(why)",
      what: "refused \(kind) messages on \(topic)", at: now)
  }

  func heardSession(_ message: MQTTMessage, author: String, room: String, at now: Instant) {
    let topic = message.topic
    guard message.length > 0 else { return }  // A desk's session cleared.
    guard message.length <= RoomSessionMessage.limit else {
      return refuse(
        "session", "\(message.length) bytes, over the \(RoomSessionMessage.limit)-byte limit", topic: topic, at: now)
    }
    let m: RoomSessionMessage
    switch RoomSessionMessage.parse(message.text, by: author) {
    case .failure(let why): return refuse("session", why.message, topic: topic, at: now)
    case .success(let parsed): m = parsed
    }
    let age = roomClock.age(
      expiry: m.expiry, expiryLeft: message.expiryLeft, sentMs: m.sentMs, synced: m.synced,
      retained: message.retained, wallMs: wallMs(), at: now)
    if age.source == .unknown {
      log.once(
        "room-age", .warning,
        "room \(room): a retained session came without MQTT 5's message expiry and this desk's clock is not trusted: its age is taken as 0 (a broker that forwards the expiry, or a synchronised clock, fixes it)"
      )
    }
    let heard = RoomPrecedence.Heard(message: m, ageMs: age.ms, at: now)
    guard now < heard.expires else { return }
    precedence.heard(heard, own: desk, at: now)
    queue.queue(heard)
    pass(now)
  }

  func heardMember(_ message: MQTTMessage, desk other: String, at now: Instant) {
    let topic = message.topic
    guard other != desk else { return }
    guard RoomNames.isDesk(other) else {
      return refuse("member", "the desk id is not \(RoomNames.rule)", topic: topic, at: now)
    }
    guard message.length > 0 else {
      if roster.gone(other) { queue.statusChanged(at: now) }
      return
    }
    guard message.length <= RoomMember.limit else {
      return refuse("member", "\(message.length) bytes, over the \(RoomMember.limit)-byte limit", topic: topic, at: now)
    }
    switch RoomMember.parse(message.text, desk: other) {
    case .failure(let why): refuse("member", why.message, topic: topic, at: now)
    case .success(let m):
      let sent = RoomRoster.sent(retained: message.retained, expiryLeft: message.expiryLeft, at: now)
      let (changed, evicted) = roster.heard(m, sent: sent, at: now)
      if let evicted {
        limiter.say(
          "room-full", .notice,
          "the room has \(RoomRoster.most) other desks: \(evicted), heard longest ago, made way for \(other)",
          what: "desks that made way in a full room", at: now)
      }
      if changed { queue.statusChanged(at: now) }
    }
  }
}
