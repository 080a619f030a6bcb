/// The timer engine: a pure state machine, `(state, event, now) -> (state, effects)`.
///
/// Time is handed in, never read. A countdown counts to its deadline, so the alarm is due at
/// exactly start + duration + time spent paused, whatever the number and timing of pauses
/// (a pause keeps the sub-second remainder); a flow counts up from its start (a resume moves the
/// start past the pause). `nextWake` tells the shell the next instant it
/// must be woken, so that nothing polls.
///
/// Every (event, phase) pair is spelled out, without wildcards: a new event, button or phase
/// does not compile until it is given a meaning.
public enum Engine {
  /// While running, the state is saved at least this often.
  public static let persistInterval: Nanoseconds = seconds(10)
  /// After a snooze, clockwise detents go on adding time while each comes within this long of
  /// the previous one (one spin of the knob); after a rest a running timer ignores the knob.
  public static let snoozeTurnWindow: Nanoseconds = seconds(1)
  /// A session's total (time counted plus time left) at most: twice the dial's top, so that
  /// turning while paused sets up to 23:59:59 left whatever has run (up to a day of it), while
  /// the total stays bounded however often a timer is paused and turned up again. Snoozes and
  /// extensions still stop at the dial's top; the time left never passes it.
  public static let longestTotal: Nanoseconds = 2 * Dial.longest
  /// A flow counts up to a day at most: left running, it stops there and rings.
  public static let longestFlow: Nanoseconds = hours(24)

  /// Applies `event`, which happened at `now`, to `state`.
  public static func step(_ state: EngineState, _ event: Event, now: Instant) -> (EngineState, [Effect]) {
    var s = state
    var effects: [Effect] = []
    // Time first: a deadline or an alarm timeout that passed before `now` takes effect at
    // its own instant, before the event is applied.
    catchUp(&s, now: now, effects: &effects)

    switch event {
    case .tick:
      tick(&s, now: now, effects: &effects)
    case .setCompletedToday(let n):
      s.completedToday = max(0, n)
    case .turn(let detents):
      turn(&s, detents: detents, now: now, effects: &effects)
    case .press(let button):
      press(&s, meaning(of: button, long: false, in: s.phase), now: now, effects: &effects)
    case .longPress(let button):
      press(&s, meaning(of: button, long: true, in: s.phase), now: now, effects: &effects)
    case .skip:
      skip(&s, now: now, effects: &effects)
    case .extend(let by):
      extend(&s, by: by, now: now, effects: &effects)
    case .select(let mode):
      choose(&s, mode: mode, duration: nil)
    case .setDuration(let duration):
      choose(&s, mode: nil, duration: duration)
    case .configure(let settings):
      configure(&s, settings)
    case .setLabel(let label):
      s.label = label
      if let label { s.recentLabels = SessionLabel.remembering(label, in: s.recentLabels) }
      s.labelChoice = nil
      effects.append(.persist)
    case .setRecentLabels(let labels):
      s.recentLabels = labels.reduce([]) { kept, label in
        kept.count < SessionLabel.recentLimit && !kept.contains(label) ? kept + [label] : kept
      }
      s.labelChoice = nil
    case .setProfile(let name):
      guard name == nil || s.base.profile(named: name) != nil else { break }
      s.profileChoice = nil
      choose(&s, profile: name)
      effects.append(.persist)
    case .interrupt(let kind):
      interrupt(&s, kind, now: now, effects: &effects)
    case .setRoom(let identity):
      setRoom(&s, identity)
    case .roomSession(let held):
      hear(&s, held, now: now)
    case .roomView(let view):
      if s.room != nil {
        s.room?.view = view
        s.room?.viewAt = now
      }
    case .setPresent(let present):
      s.present = present
    }
    if s.room != nil { roomAfter(event, before: state, &s, now: now, effects: &effects) }
    return (s, effects)
  }

  /// The next instant the shell must wake the engine with `.tick`, or nil when nothing is due.
  /// While running: the instant the shown second changes (or the deadline), so the display
  /// changes exactly when the second does. While ringing: the alarm's timeout, if it has one.
  public static func nextWake(_ s: EngineState, now: Instant) -> Instant? {
    switch s.phaseState {
    case .running(_, .deadline(let deadline), _, _):
      // Remaining r shows ceil(r) seconds, and one second less once r <= (shown - 1) s.
      let remaining = deadline - now
      if remaining <= 0 { return now }
      return deadline - (shownSeconds(remaining) - 1) * nanosecondsPerSecond
    case .running(_, .start(let start), _, _):
      // A flow shows the whole seconds counted, one more at each whole second.
      let end = start + longestFlow
      if now >= end { return now }
      let counted = now - start
      return min(end, now + nanosecondsPerSecond - counted % nanosecondsPerSecond)
    case .ringing:
      return s.alarmTimesOutAt
    case .idle:
      return roomWake(s, now: now)
    case .paused:
      return nil
    }
  }

  // MARK: - Buttons

  /// True when `button` means the same, short or long, in `state`'s phase: acknowledge while
  /// ringing; start/pause/resume; cancel of a running or paused timer; the ignored encoder under
  /// a timer. The input layer should then send `.press(button)` at the settled press-down and
  /// swallow the rest of that press (its release and its long-press mark), so that the device
  /// acts at once (a long press while ringing silences at press-down, not at the 1 s mark).
  /// False where it must wait to tell them apart: idle's encoder push (next mode, or the
  /// preset again) and idle's cancel (nothing, or skip to focus).
  public static func actsAtPressDown(_ button: Button, in state: EngineState) -> Bool {
    meaning(of: button, long: false, in: state.phase) == meaning(of: button, long: true, in: state.phase)
  }

  /// What a press of a button means in a phase.
  enum PressMeaning: Equatable {
    /// Silence the alarm and preselect what comes next.
    case acknowledge
    case start, pause, resume, cancel
    /// Step to the next mode (encoder push while idle).
    case nextMode
    /// Dial the mode's preset again (long encoder push while idle).
    case restorePreset
    /// Preselect focus (long cancel while idle).
    case skipToFocus
    /// Nothing to do but clear the "restored" note (cancel while idle).
    case clearNote
    /// Ignored (the mode and its preset cannot change under a timer).
    case ignore
    /// Mark an internal interruption of a running focus (the knob's push; the timer runs on).
    case markInterruption
  }

  /// The one table of what every button means in every phase, short and long.
  static func meaning(of button: Button, long: Bool, in phase: Phase) -> PressMeaning {
    switch (button, phase) {
    case (.start, .ringing), (.cancel, .ringing), (.encoder, .ringing): return .acknowledge
    case (.start, .idle): return .start
    case (.start, .running): return .pause
    case (.start, .paused): return .resume
    case (.cancel, .running), (.cancel, .paused): return .cancel
    case (.cancel, .idle): return long ? .skipToFocus : .clearNote
    case (.encoder, .idle): return long ? .restorePreset : .nextMode
    case (.encoder, .running): return .markInterruption
    case (.encoder, .paused): return .ignore
    }
  }

  static func press(_ s: inout EngineState, _ meaning: PressMeaning, now: Instant, effects: inout [Effect]) {
    if let choice = s.labelChoice {
      chooseLabel(&s, choice, meaning, now: now, effects: &effects)
      return
    }
    if let choice = s.profileChoice {
      chooseProfile(&s, choice, meaning, now: now, effects: &effects)
      return
    }
    switch meaning {
    case .acknowledge:
      acknowledge(&s, now: now, effects: &effects, allowAutoStart: true)
    case .start:
      start(&s, Session(), s.fresh, now: now, effects: &effects)
    case .pause:
      guard let session = s.session else { return }
      enter(&s, .paused(session, s.held(at: now), lastDetentAt: nil), at: now, effects: &effects)
    case .resume:
      guard let session = s.session else { return }
      start(&s, session, s.held(at: now), now: now, effects: &effects)
    case .cancel:
      switch s.mode.kind {
      case .flow: endFlow(&s, now: now, effects: &effects)
      case .focus, .rest, .egg: cancel(&s, now: now, effects: &effects)
      }
    case .nextMode:
      s.restored = false
      // Past the last mode of the cycle, the label chooser, when there are labels to choose;
      // then the profile chooser, when there are profiles.
      let modes = s.settings.modes
      if modes.last == s.mode, !s.recentLabels.isEmpty {
        s.labelChoice = s.labelChoices.firstIndex(of: s.label) ?? 0
        return
      }
      if modes.last == s.mode, openProfileChooser(&s) { return }
      select(&s, s.mode.next(in: modes))
    case .restorePreset:
      s.restored = false
      s.duration = s.settings.preset(s.mode)
      s.origin = .preset
    case .skipToFocus:
      // Skips a preselected break; after a long break the cycle starts anew.
      s.restored = false
      let (mode, done) = s.settings.cycle.skipToFocus(from: s.mode, focusDone: s.focusDoneInCycle)
      s.focusDoneInCycle = done
      select(&s, mode)
    case .clearNote:
      s.restored = false  // Nothing to cancel; harmless.
    case .ignore:
      break
    case .markInterruption:
      interrupt(&s, .internal, now: now, effects: &effects)
    }
  }

  /// A press while the label chooser is open: the knob's push (short or long) takes the label
  /// chosen and goes on to the cycle's first mode, as the push past the last mode would; Start
  /// takes it and starts that mode; Cancel closes the chooser and changes nothing.
  static func chooseLabel(
    _ s: inout EngineState, _ choice: Int, _ meaning: PressMeaning, now: Instant, effects: inout [Effect]
  ) {
    s.labelChoice = nil
    switch meaning {
    case .nextMode, .restorePreset, .start:
      let choices = s.labelChoices
      let label = choices[min(max(0, choice), choices.count - 1)]
      s.label = label
      if let label { s.recentLabels = SessionLabel.remembering(label, in: s.recentLabels) }
      effects.append(.persist)
      // The push goes on to the profile chooser when there are profiles.
      if meaning != .start, openProfileChooser(&s) { return }
      select(&s, s.mode.next(in: s.settings.modes))
      if meaning == .start { start(&s, Session(), s.fresh, now: now, effects: &effects) }
    case .clearNote, .skipToFocus, .acknowledge, .pause, .resume, .cancel, .ignore, .markInterruption:
      break
    }
  }

  /// Opens the profile chooser on the profile in use, when there are profiles; false otherwise.
  static func openProfileChooser(_ s: inout EngineState) -> Bool {
    guard !s.base.profiles.isEmpty else { return false }
    s.profileChoice = s.profileChoices.firstIndex(of: s.profile) ?? 0
    return true
  }

  /// A press while the profile chooser is open, as in the label chooser: the knob's push takes
  /// the profile chosen and goes on to the cycle's first mode; Start takes it and starts that
  /// mode; Cancel closes the chooser and changes nothing.
  static func chooseProfile(
    _ s: inout EngineState, _ choice: Int, _ meaning: PressMeaning, now: Instant, effects: inout [Effect]
  ) {
    s.profileChoice = nil
    switch meaning {
    case .nextMode, .restorePreset, .start:
      let choices = s.profileChoices
      choose(&s, profile: choices[min(max(0, choice), choices.count - 1)])
      select(&s, s.mode.next(in: s.settings.modes))
      effects.append(.persist)
      if meaning == .start { start(&s, Session(), s.fresh, now: now, effects: &effects) }
    case .clearNote, .skipToFocus, .acknowledge, .pause, .resume, .cancel, .ignore, .markInterruption:
      break
    }
  }

  /// The profile `name` (one `base` defines, else the base) in effect from now on: a timer keeps
  /// its length, the idle picker follows the new preset unless dialed, the cycle's count stays.
  static func choose(_ s: inout EngineState, profile name: String?) {
    let profile = s.base.profile(named: name)
    s.profile = profile?.name
    s.settings = s.base.applying(profile)
    if case .idle = s.phaseState, !s.durationDialed { s.duration = s.settings.preset(s.mode) }
  }

  /// An interruption of the running focus (focus or flow), counted on its session; the timer
  /// runs on. Anything else (no timer, a break, an egg, a pause) ignores it.
  static func interrupt(_ s: inout EngineState, _ kind: Interruption, now: Instant, effects: inout [Effect]) {
    guard case .running(var session, let running, _, let snoozedAt) = s.phaseState, s.mode.kind.isFocus else {
      return
    }
    session.interruptions.mark(kind)
    s.phaseState = .running(session, running, lastPersistAt: now, snoozedAt: snoozedAt)
    s.lastInterruption = EngineState.InterruptionMark(kind: kind, at: now)
    effects.append(.persist)
  }

  /// The record of the session ending now: what the state knows of it (its mode, label and
  /// interruptions) with what the caller measured.
  static func record(
    _ s: EngineState, _ outcome: SessionRecord.Outcome, planned: Nanoseconds, actual: Nanoseconds,
    extended: Nanoseconds = 0, endedAt: Instant
  ) -> Effect {
    .record(
      SessionRecord(
        mode: s.mode, outcome: outcome, planned: planned, actual: actual, extended: extended, endedAt: endedAt,
        label: s.label, interruptions: s.session?.interruptions ?? Interruptions(),
        room: s.room?.following == true ? s.room?.name : nil, profile: s.profile))
  }

  /// The cancel button under a countdown: the session ends (recorded cancelled, or completed
  /// when it had reached zero and was snoozed) and the picker comes back.
  static func cancel(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    guard let session = s.session, let duration = s.duration else { return }
    // A timer that reached zero before (and was snoozed) ends completed, with what it counted.
    effects.append(
      record(
        s, session.completed ? .completed : .cancelled, planned: duration - session.extended,
        actual: s.elapsed(at: now), extended: session.extended, endedAt: now))
    // Back to the dialed duration (one turned up while paused past the dial's top: the top),
    // or to the mode's preset as it is now when the timer ran the preset.
    s.duration = s.durationDialed ? Dial.clamp(duration - session.extended) : s.settings.preset(s.mode)
    enter(&s, .idle(lastDetentAt: nil), at: now, effects: &effects)
  }

  // MARK: - Time and the knob

  static func tick(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    switch s.phaseState {
    case .running(let session, let running, let lastPersistAt, let snoozedAt):
      if now - lastPersistAt >= persistInterval {
        s.phaseState = .running(session, running, lastPersistAt: now, snoozedAt: snoozedAt)
        effects.append(.persist)
      }
    case .idle, .paused, .ringing:
      break  // Nothing is saved periodically; deadlines and timeouts were caught up already.
    }
  }

  /// The knob: dials the duration while idle and the time left while paused; snoozes while
  /// ringing (clockwise only) and goes on snoozing for the rest of that spin; a running timer
  /// otherwise ignores it, so that a bumped knob cannot change it.
  static func turn(_ s: inout EngineState, detents: Int, now: Instant, effects: inout [Effect]) {
    // The label chooser: one entry a detent, stopping at either end.
    if let choice = s.labelChoice {
      s.labelChoice = min(max(0, choice + detents), s.labelChoices.count - 1)
      return
    }
    // The profile chooser: the same.
    if let choice = s.profileChoice {
      s.profileChoice = min(max(0, choice + detents), s.profileChoices.count - 1)
      return
    }
    // A flow has no duration to dial and no zero to snooze: the knob does nothing in it.
    guard var duration = s.duration else { return }
    switch s.phaseState {
    case .idle(let lastDetentAt):
      s.restored = false
      let multiplier = Dial.multiplier(sincePrevious: lastDetentAt.map { now - $0 })
      for _ in 0..<abs(detents) {
        duration = Dial.step(duration, direction: detents.signum(), multiplier: multiplier)
      }
      s.duration = duration
      if detents != 0 { s.origin = .dialed }
      s.phaseState = .idle(lastDetentAt: now)
    case .paused(_, .counted, _), .running(_, .start, _, _):
      return  // A count up in a countdown's mode cannot be made.
    case .paused(var session, .remaining(let remaining), let lastDetentAt):
      s.restored = false
      let multiplier = Dial.multiplier(sincePrevious: lastDetentAt.map { now - $0 })
      // 0:05 to 23:59:59 left, as dialed, whatever has run (the total stays within `longestTotal`).
      let ceiling = max(remaining, min(Dial.longest, longestTotal - s.elapsed(at: now)))
      var left = remaining
      for _ in 0..<abs(detents) {
        left = min(ceiling, Dial.step(left, direction: detents.signum(), multiplier: multiplier))
      }
      s.duration = duration + left - remaining
      if session.completed { session.extended += left - remaining }
      if detents != 0 { s.origin = .dialed }
      s.phaseState = .paused(session, .remaining(left), lastDetentAt: now)
      effects.append(.persist)
    case .ringing(let session):
      // Snooze: clockwise adds time and counts on at once; counter-clockwise is ignored.
      guard detents > 0 else { return }
      snooze(&s, session, from: now, adding: Int64(detents) * minutes(1), spin: true, now: now, effects: &effects)
    case .running(let session, .deadline(let deadline), _, let snoozedAt):
      // Only the spin that snoozed goes on adding; any other turn leaves a running timer alone.
      guard detents > 0, let snoozedAt, now - snoozedAt < snoozeTurnWindow else { return }
      let multiplier = Dial.multiplier(sincePrevious: now - snoozedAt)
      snooze(
        &s, session, from: deadline, adding: Int64(detents) * multiplier * minutes(1), spin: true, now: now,
        effects: &effects)
    }
  }

  /// Adds `amount` (a minute per detent times the dial's acceleration, or a command's
  /// extension) to the session's total, counting to `from` plus that; the total stays within
  /// the dial's range. `spin`: later detents of the same spin go on adding.
  static func snooze(
    _ s: inout EngineState, _ session: Session, from: Instant, adding amount: Nanoseconds, spin: Bool, now: Instant,
    effects: inout [Effect]
  ) {
    guard let duration = s.duration else { return }  // A flow has no zero to snooze past.
    let added = min(Dial.longest - duration, amount)
    guard added > 0 else { return }
    var session = session
    session.extended += added
    s.duration = duration + added
    if s.phase == .ringing { effects.append(.alarm(false)) }
    enter(
      &s, .running(session, .deadline(from + added), lastPersistAt: now, snoozedAt: spin ? now : nil), at: now,
      effects: &effects)
  }

  // MARK: - Commands (the control socket)

  /// `.extend`: more time on a running or paused timer; a snooze of that length while ringing;
  /// nothing while idle. Time added after the first zero counts as extended.
  static func extend(_ s: inout EngineState, by amount: Nanoseconds, now: Instant, effects: inout [Effect]) {
    guard let duration = s.duration else { return }  // A flow has no end to move.
    let added = min(Dial.longest - duration, max(0, amount))
    switch s.phaseState {
    case .idle, .running(_, .start, _, _), .paused(_, .counted, _):
      return  // Nothing to extend; the dial sets the duration.
    case .running(var session, .deadline(let deadline), _, _):
      guard added > 0 else { return }
      s.restored = false
      s.duration = duration + added
      s.origin = .dialed
      if session.completed { session.extended += added }
      s.phaseState = .running(session, .deadline(deadline + added), lastPersistAt: now, snoozedAt: nil)
      effects.append(.persist)
    case .paused(var session, .remaining(let remaining), let lastDetentAt):
      guard added > 0 else { return }
      s.restored = false
      s.duration = duration + added
      s.origin = .dialed
      if session.completed { session.extended += added }
      s.phaseState = .paused(session, .remaining(remaining + added), lastDetentAt: lastDetentAt)
      effects.append(.persist)
    case .ringing(let session):
      snooze(&s, session, from: now, adding: added, spin: false, now: now, effects: &effects)
    }
  }

  /// `.skip`: to the mode that follows the current one; a timer ends as a cancel ends it, an
  /// alarm as an acknowledgement does (never auto-starting what follows).
  static func skip(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    switch s.phaseState {
    case .idle:
      s.restored = false
      s.labelChoice = nil
      s.profileChoice = nil
      switch s.mode.kind {
      case .egg:
        select(&s, s.mode.next(in: [.soft, .medium, .hard, .focus]))
      case .focus, .rest, .flow:
        let (mode, done) = next(after: s)
        select(&s, mode)
        s.focusDoneInCycle = done
      }
    case .running, .paused:
      let kind = s.mode.kind
      press(&s, .cancel, now: now, effects: &effects)
      switch kind {
      // A flow ended on the break it earned is there already; one ended within its first minute
      // goes on from its picker.
      case .flow where s.breakAfterFlow: return
      case .focus, .rest, .egg, .flow: skip(&s, now: now, effects: &effects)
      }
    case .ringing:
      acknowledge(&s, now: now, effects: &effects, allowAutoStart: false)
    }
  }

  /// `.select` and `.setDuration`: only while idle (the mode and the time cannot change under
  /// a timer; the engine ignores them there).
  static func choose(_ s: inout EngineState, mode: Mode?, duration: Nanoseconds?) {
    switch s.phaseState {
    case .idle:
      s.restored = false
      s.labelChoice = nil
      s.profileChoice = nil
      if let mode { select(&s, mode) }
      // A flow has no duration to set: it counts up.
      switch (duration, s.mode.kind) {
      case (.some(let duration), .focus), (.some(let duration), .rest), (.some(let duration), .egg):
        s.duration = min(Dial.longest, max(Dial.shortest, duration))
        s.origin = .dialed
      case (.some, .flow), (nil, _): break
      }
      s.phaseState = .idle(lastDetentAt: nil)
    case .running, .paused, .ringing:
      return
    }
  }

  // MARK: - Transitions

  static func catchUp(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    if case .running(let session, let running, _, _) = s.phaseState {
      let end: Instant
      switch running {
      case .deadline(let deadline): end = deadline
      case .start(let start): end = start + longestFlow
      }
      if now >= end { complete(&s, session, at: end, effects: &effects) }
    }
    if case .ringing = s.phaseState, let timeout = s.alarmTimesOutAt, now >= timeout {
      acknowledge(&s, now: timeout, effects: &effects, allowAutoStart: false)
    }
  }

  /// Runs `session` (a new one, or a paused one resumed) from what it holds: a countdown to
  /// its time left, a flow on from its count.
  static func start(_ s: inout EngineState, _ session: Session, _ held: Held, now: Instant, effects: inout [Effect]) {
    s.restored = false
    if !session.completed {
      s.focusDoneInCycle = s.settings.cycle.focusDone(atStartOf: s.mode, s.focusDoneInCycle)
    }
    let running: Running
    switch held {
    case .remaining(let remaining): running = .deadline(now + remaining)
    case .counted(let counted): running = .start(now - counted)
    }
    enter(&s, .running(session, running, lastPersistAt: now, snoozedAt: nil), at: now, effects: &effects)
  }

  /// A session reached its end (a countdown's zero, or a flow ended after its first minute or at
  /// its ceiling): the cycle's count, and today's for completed focus (`ModeKind.isFocus`).
  static func countCompleted(_ s: inout EngineState) {
    s.focusDoneInCycle = s.settings.cycle.focusDone(afterCompleting: s.mode, s.focusDoneInCycle)
    if SessionRecord.isCompletedFocus(s.mode, .completed) { s.completedToday += 1 }
  }

  /// The deadline (or a flow's ceiling) passed: ring, at that instant itself, not when the shell
  /// noticed. A focus counts the first time it reaches zero (not again after a snooze).
  static func complete(_ s: inout EngineState, _ session: Session, at deadline: Instant, effects: inout [Effect]) {
    var session = session
    if !session.completed {
      countCompleted(&s)
      session.completed = true
    }
    enter(&s, .ringing(session), at: deadline, effects: &effects)
    effects.append(.alarm(true))
  }

  /// The alarm was acknowledged (or timed out): the session ends and is recorded, completed
  /// when it last reached zero (`phaseSince`), with its extensions; what comes next is preselected.
  static func acknowledge(_ s: inout EngineState, now: Instant, effects: inout [Effect], allowAutoStart: Bool) {
    effects.append(.alarm(false))
    let extended = s.session?.extended ?? 0
    let kind = s.mode.kind
    // A countdown counted its total; a flow planned nothing and counted up to its ceiling.
    let planned: Nanoseconds
    let actual: Nanoseconds
    switch s.count(at: s.phaseSince) {
    case .down(_, let total): (planned, actual) = (total - extended, total)
    case .up(let counted): (planned, actual) = (0, counted)
    }
    effects.append(
      record(s, .completed, planned: planned, actual: actual, extended: extended, endedAt: s.phaseSince))
    let (mode, done) = next(after: s)
    s.focusDoneInCycle = done
    select(&s, mode)
    switch kind {
    case .flow:
      s.duration = s.settings.earnedBreak(actual)
      s.origin = .earned
    case .focus, .rest, .egg: break
    }
    if allowAutoStart && s.settings.autoStart {
      start(&s, Session(), s.fresh, now: now, effects: &effects)
    } else {
      enter(&s, .idle(lastDetentAt: nil), at: now, effects: &effects)
    }
  }

  /// The cancel button in a flow ends it: after its first minute a completed session (planned
  /// 0, actual the time counted) that preselects the break it earned; within it, a cancelled one,
  /// back to the flow's picker.
  static func endFlow(_ s: inout EngineState, now: Instant, effects: inout [Effect]) {
    guard s.session != nil else { return }
    let counted = s.elapsed(at: now)
    let earned = s.settings.earnedBreak(counted)
    effects.append(record(s, earned > 0 ? .completed : .cancelled, planned: 0, actual: counted, endedAt: now))
    if earned > 0 {
      countCompleted(&s)
      let (mode, done) = s.settings.cycle.next(after: s.mode, focusDone: s.focusDoneInCycle)
      s.focusDoneInCycle = done
      select(&s, mode)
      s.duration = earned
      s.origin = .earned
    } else {
      select(&s, s.mode)
    }
    enter(&s, .idle(lastDetentAt: nil), at: now, effects: &effects)
  }

  /// What the cycle preselects after `s`'s session, and its count: after the break a flow
  /// earned, flow again.
  static func next(after s: EngineState) -> (mode: Mode, focusDone: Int) {
    let next = s.settings.cycle.next(after: s.mode, focusDone: s.focusDoneInCycle)
    return s.breakAfterFlow ? (.flow, next.focusDone) : next
  }

  static func select(_ s: inout EngineState, _ mode: Mode) {
    s.mode = mode
    s.duration = s.settings.preset(mode)
    s.origin = .preset
  }

  /// `.configure`: new settings from now on. A timer keeps its length (a new preset is the next
  /// session's); the idle picker shows the new preset of its mode at once unless its time was
  /// dialed or earned, so that Start runs it.
  /// The profile chosen stays while the settings define it (the base otherwise); a change of
  /// the profile chosen at start (`profile`) chooses that one.
  static func configure(_ s: inout EngineState, _ settings: EngineSettings) {
    let chosen = settings.profile != s.base.profile ? settings.profile : s.profile
    s.base = settings
    if s.profileChoice != nil { s.profileChoice = nil }
    choose(&s, profile: chosen)
  }

  static func enter(_ s: inout EngineState, _ next: PhaseState, at: Instant, effects: inout [Effect]) {
    if s.phase != next.phase { s.previousPhase = s.phase }
    if next.phase == .idle { s.lastInterruption = nil }
    s.phaseState = next
    s.phaseSince = at
    effects.append(.persist)
  }
}
