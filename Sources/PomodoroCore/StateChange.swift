/// What an engine step did, in a person's words: what hooks are run on (`pomodoro hooks`,
/// docs/hooks.md) and what the control socket's watch lines name (`changes`). Found from the
/// event, the state before and after, and the effects: never from a state alone, so a cancel
/// and a skip, or a flow ended and a countdown that rang, are told apart. In the order they
/// happened within the step.
public enum StateChange: String, CaseIterable, Sendable {
  /// A timer started (from the picker, or what follows an alarm with auto-start).
  case started
  case paused
  case resumed
  /// A session ended as it should: a countdown reached zero (its alarm rings next), or a flow
  /// was ended.
  case completed
  /// A session ended early.
  case cancelled
  /// A person (a press, ctl, the page) went on to the next mode: a timer ended early, an alarm
  /// stopped, or the picker moved on.
  case skipped
  /// The alarm started.
  case ringing
  /// The alarm stopped: a press, `ctl ack`, a snooze, a skip or its timeout.
  case acknowledged
  /// The label changed.
  case label
  /// An interruption was marked on the running focus.
  case interrupted
  /// In a room: this desk began or stopped following the room's session, or the room's members
  /// changed in number.
  case room

  /// The changes of one step: `event` took `before` to `after` with `effects`.
  public static func of(_ event: Event, from before: EngineState, to after: EngineState, effects: [Effect])
    -> [StateChange]
  {
    var changes: [StateChange] = []
    let (was, now) = (before.phase, after.phase)
    if event == .skip { changes.append(.skipped) }
    for case .record(let record) in effects where record.outcome == .cancelled && event != .skip {
      changes.append(.cancelled)
    }
    if was == .ringing && now != .ringing { changes.append(.acknowledged) }
    // A flow ends completed without an alarm: its record says so.
    for case .record(let record) in effects where record.outcome == .completed && was != .ringing && now != .ringing {
      changes.append(.completed)
    }
    if now == .ringing && was != .ringing { changes += [.completed, .ringing] }
    switch (was, now) {
    case (.running, .paused): changes.append(.paused)
    case (.paused, .running): changes.append(.resumed)
    case (.ringing, .running) where event != .skip && !isStart(event): changes.append(.resumed)  // a snooze
    case (.idle, .running), (.ringing, .running): changes.append(.started)
    default: break
    }
    if before.label != after.label { changes.append(.label) }
    if (after.interruptions?.total ?? 0) > (before.interruptions?.total ?? 0) && was != .idle {
      changes.append(.interrupted)
    }
    if before.room?.following != after.room?.following
      || before.room?.view?.others.count != after.room?.view?.others.count
    {
      changes.append(.room)
    }
    return changes
  }

  /// Whether `event` asks for a timer to start (a press of start, or what auto-start does).
  static func isStart(_ event: Event) -> Bool {
    switch event {
    case .press(.start), .longPress(.start), .tick: return true
    default: return false
    }
  }
}
