/// The engine's rules for a desk in a room (docs/room.md): what a room session heard does to
/// this desk's timer, and what a press on this desk does to the room. Pure, as the rest of the
/// engine: the shell hands in sessions already anchored on its monotonic clock and reads the
/// revisions this desk made from `RoomStanding.held`.
///
/// - A desk that is idle, or whose timer follows the room, runs the room's current phase: its
///   deadline is the room's, to the nanosecond of the anchor.
/// - A start on such a desk, while nothing runs in the room, starts a new plan (focus and the
///   break after it, or a break) as the next revision; while something runs, it joins it.
///   Pause, resume and skip on a following desk make the next revision of the same plan.
/// - Cancel takes this desk out of the room's current phase only; it follows again from the next
///   phase or at its next start. Turning the time of a following timer makes it the desk's own.
/// - A desk busy with a timer of its own joins at its next idle. Alarms, acknowledgements and
///   the history stay each desk's own; a record says when its session was the room's.
extension Engine {
  /// `.setRoom`: join a room as `identity`'s desk, change rooms, or leave (nil). A timer that
  /// followed the old room is the desk's own from now.
  static func setRoom(_ s: inout EngineState, _ identity: RoomIdentity?) {
    guard let identity else {
      s.room = nil
      return
    }
    if var room = s.room, room.name == identity.name {
      if room.desk != identity.desk, !identity.desk.isEmpty { room.desk = identity.desk }
      s.room = room
    } else {
      s.room = RoomStanding(name: identity.name, desk: identity.desk)
    }
  }

  /// `.roomSession`: a revision heard from the room, anchored. Older ones (and the same one
  /// again) change nothing, unless what this desk holds has expired; an expired one is not taken.
  static func hear(_ s: inout EngineState, _ heard: RoomHeld, now: Instant) {
    guard var room = s.room, !heard.expired(at: now) else { return }
    if let held = room.held, !held.expired(at: now), !heard.supersedes(held) { return }
    room.held = heard
    s.room = room
  }

  /// After any event on a desk in a room: what this desk did to the room (a start, a pause, a
  /// resume, a skip, a cancel, a turn), then the desk brought in line with the room.
  static func roomAfter(
    _ event: Event, before: EngineState, _ s: inout EngineState, now: Instant, effects: inout [Effect]
  ) {
    guard var room = s.room else { return }
    // A session held past its expiry is forgotten: a following timer is the desk's own from now.
    if let held = room.held, held.expired(at: now) {
      room.held = nil
      room.followed = nil
      room.left = nil
    }
    switch event {
    case .press, .longPress, .skip, .extend, .turn:
      act(event, before: before, &s, &room, now: now, effects: &effects)
    case .tick, .setCompletedToday, .select, .setDuration, .configure, .setLabel, .setProfile, .interrupt,
      .setRecentLabels,
      .setRoom, .roomSession, .roomView, .setPresent:
      break
    }
    s.room = room
    follow(&s, now: now, effects: &effects)
  }

  /// A desk's own action, seen as the change it made to its timer.
  static func act(
    _ event: Event, before: EngineState, _ s: inout EngineState, _ room: inout RoomStanding, now: Instant,
    effects: inout [Effect]
  ) {
    let hadTimer = before.phase == .running || before.phase == .paused
    // An alarm acknowledged: the room's phase is over for this desk.
    if before.phase == .ringing && s.phase != .ringing { room.followed = nil }
    let live = room.held.map { $0.phase(at: now) != nil } ?? false
    // A new timer of a mode the room shares, on this desk (its start, or an auto-start).
    if s.phase == .running, !hadTimer, room.followed == nil, s.session?.completed == false,
      RoomSession.shares(s.mode), !room.desk.isEmpty
    {
      if live {
        // Something runs in the room: a start joins it.
        s.focusDoneInCycle = before.focusDoneInCycle
        enter(&s, .idle(lastDetentAt: nil), at: now, effects: &effects)
        room.left = nil
      } else if let length = s.duration {
        let revision = RoomSession.next(after: room.held?.session.revision ?? room.lastRevision)
        var plan = [RoomSession.Phase(mode: s.mode, length: length)]
        if s.mode.kind == .focus {
          let after = s.settings.cycle.next(after: s.mode, focusDone: s.focusDoneInCycle + 1).mode
          plan.append(RoomSession.Phase(mode: after, length: s.settings.preset(after) ?? length))
        }
        let session = RoomSession(
          revision: revision, origin: room.desk, plan: plan, phase: 0, state: .running, elapsed: 0)
        room.held = RoomHeld(session: session, anchor: now)
        room.followed = RoomStanding.PhaseKey(planRevision: revision, index: 0)
        room.planned = revision
        room.left = nil
      }
      return
    }
    guard let key = room.followed, let held = room.held, hadTimer else { return }
    let phase = held.session.plan[min(key.index, held.session.plan.count - 1)]
    func revise(_ change: (inout RoomSession) -> Void) {
      var next = held.said(at: now)
      next.revision = RoomSession.next(after: next.revision)
      next.origin = room.desk
      change(&next)
      room.held = RoomHeld(session: next, anchor: now)
    }
    switch (before.phase, s.phase) {
    case (.running, .paused) where s.duration == before.duration,
      (.paused, .running) where s.duration == before.duration:
      // A pause or a resume: the same phase, as this desk holds it now.
      let left = s.remaining(at: now) ?? 0
      revise {
        $0.phase = key.index
        $0.state = s.phase == .paused ? .paused : .running
        $0.elapsed = max(0, phase.length - left)
      }
    case (.running, .idle), (.paused, .idle):
      room.followed = nil
      if case .skip = event {
        // Skip acts for the room: its next phase, from now (or the end of the plan).
        revise {
          if key.index + 1 < $0.plan.count {
            $0.phase = key.index + 1
            $0.state = .running
          } else {
            $0.phase = key.index
            $0.state = .ended
          }
          $0.elapsed = 0
        }
      } else {
        room.left = key  // Cancel: out of this phase only.
      }
    case (.running, .running), (.paused, .paused), (.running, .paused), (.paused, .running):
      // The time turned or extended: the desk's own timer from now.
      if s.duration != before.duration || s.remaining(at: now) != before.remaining(at: now) {
        room.followed = nil
        room.left = key
      }
    case (_, .ringing), (.idle, _), (.ringing, _):
      break
    }
  }

  /// The desk brought in line with the room's session at `now`: a following timer to the room's
  /// deadline (or pause); one the room moved on from ended as a skip ends it (completed when its
  /// phase ran out); an idle desk into the room's current phase unless it cancelled out of it.
  static func follow(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    guard var room = s.room, let held = room.held else { return }
    let roomNow = held.at(now)
    if let key = room.followed, s.phase == .running || s.phase == .paused {
      let samePlan = key.planRevision == held.session.planRevision
      if let index = roomNow.index, held.session.plan[index].mode == s.mode, !samePlan || index == key.index {
        align(&s, roomNow, held.session.plan[index].length, now: now, effects: &effects)
        room.followed = RoomStanding.PhaseKey(planRevision: held.session.planRevision, index: index)
        s.room = room
        return
      }
      // The room went past this desk's phase. Ran out (the revision is at or before it and
      // still running): complete at its end; else a desk skipped or a new plan came: end it
      // as a skip would.
      if samePlan, held.session.state == .running, held.session.phase <= key.index,
        case .running(let session, _, _, _) = s.phaseState
      {
        let end = phaseEnd(held, index: key.index)
        if end <= now {
          complete(&s, session, at: end, effects: &effects)
          s.room = room
          return
        }
      }
      skip(&s, now: now, effects: &effects)
      room.followed = nil
    } else if room.followed != nil, s.phase == .idle {
      room.followed = nil
    }
    s.room = room
    guard s.phase == .idle, let index = roomNow.index else { return }
    let key = RoomStanding.PhaseKey(planRevision: held.session.planRevision, index: index)
    guard key != room.left else { return }
    let phase = held.session.plan[index]
    select(&s, phase.mode)
    s.duration = phase.length
    s.origin = .dialed
    s.labelChoice = nil
    s.profileChoice = nil
    s.focusDoneInCycle = s.settings.cycle.focusDone(atStartOf: phase.mode, s.focusDoneInCycle)
    switch roomNow {
    case .running(_, let deadline):
      enter(
        &s, .running(Session(), .deadline(deadline), lastPersistAt: now, snoozedAt: nil), at: now, effects: &effects)
    case .paused(_, let remaining):
      enter(&s, .paused(Session(), .remaining(remaining), lastDetentAt: nil), at: now, effects: &effects)
    case .ended: return
    }
    room.followed = key
    room.left = nil
    s.room = room
  }

  /// A following timer set to the room's deadline or pause (nothing when it is there already).
  static func align(
    _ s: inout EngineState, _ to: RoomHeld.Now, _ length: Nanoseconds, now: Instant, effects: inout [Effect]
  ) {
    guard let session = s.session else { return }
    let next: PhaseState
    switch (to, s.phaseState) {
    case (.running(_, let deadline), .running(_, .deadline(let current), let persisted, let snoozed)):
      guard deadline != current || s.duration != length else { return }
      s.phaseState = .running(session, .deadline(deadline), lastPersistAt: persisted, snoozedAt: snoozed)
      s.duration = length
      effects.append(.persist)
      return
    case (.paused(_, let remaining), .paused(_, .remaining(let current), let detent)):
      guard remaining != current || s.duration != length else { return }
      s.phaseState = .paused(session, .remaining(remaining), lastDetentAt: detent)
      s.duration = length
      effects.append(.persist)
      return
    case (.running(_, let deadline), _):
      next = .running(session, .deadline(deadline), lastPersistAt: now, snoozedAt: nil)
    case (.paused(_, let remaining), _): next = .paused(session, .remaining(remaining), lastDetentAt: nil)
    case (.ended, _): return
    }
    s.duration = length
    enter(&s, next, at: now, effects: &effects)
  }

  /// When phase `index` of a running plan ends.
  static func phaseEnd(_ held: RoomHeld, index: Int) -> Instant {
    var end = held.anchor - held.session.elapsed
    var i = held.session.phase
    while i <= index && i < held.session.plan.count {
      end = end + held.session.plan[i].length
      i += 1
    }
    return end
  }

  /// An idle desk wakes when the room's running phase ends (to follow the next one).
  static func roomWake(_ s: EngineState, now: Instant) -> Instant? {
    guard s.phase == .idle, let held = s.room?.held, case .running(_, let deadline) = held.at(now) else { return nil }
    return deadline
  }
}

/// Which room a desk is in, and the id it makes its revisions under.
public struct RoomIdentity: Equatable, Sendable {
  public var name: String
  public var desk: String
  public init(name: String, desk: String) {
    self.name = name
    self.desk = desk
  }
}
