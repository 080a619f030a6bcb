/// What happens to the device. Each is handed to the engine with the instant it happened.
public enum Event: Equatable, Sendable {
  /// Encoder detents: +1 clockwise, -1 counter-clockwise (more for a batch).
  case turn(Int)
  /// A short press (a click) of a button.
  case press(Button)
  /// A button held for the long-press time.
  case longPress(Button)
  /// Time passed: the shell was woken at the instant the engine asked for.
  case tick
  /// The shell counted today's completed focus sessions (at start-up, at midnight).
  case setCompletedToday(Int)
  /// A command from outside (the control socket): leave the current mode for the one that
  /// follows it in the cycle (egg presets: the next preset); a timer is ended as a cancel
  /// would, a ringing alarm as an acknowledgement would, without auto-start.
  case skip
  /// A command: add time to the timer (running or paused), or snooze a ringing alarm by it.
  /// Ignored while idle. The total stays within the dial's range.
  case extend(Nanoseconds)
  /// A command: preselect a mode with its preset duration. Idle only; ignored otherwise.
  case select(Mode)
  /// A command: set the dialed duration, clamped to the dial's range. Idle only.
  case setDuration(Nanoseconds)
  /// The owner's settings changed (SIGHUP): they apply from now on. A timer keeps its length;
  /// the idle picker takes the new preset of the mode it shows unless its time was dialed
  /// (`EngineState.durationDialed`).
  case configure(EngineSettings)
  /// A command: the label of the session running (if any) and of those that follow, until
  /// changed; nil clears it. A label set is remembered first among the recent ones.
  case setLabel(SessionLabel?)
  /// A command: the profile named (one of the settings' `profiles`; nil: the base settings) from
  /// now on. A timer keeps its length; the idle picker follows the new preset unless dialed. A
  /// name the settings do not define changes nothing.
  case setProfile(String?)
  /// A command (or the knob's push while a focus runs): an interruption of the running focus,
  /// counted on its session; the timer runs on. Ignored without a running focus.
  case interrupt(Interruption)
  /// The shell restored the recent labels (the state file): the label chooser's list.
  case setRecentLabels([SessionLabel])
  /// The desk is in a room as a desk id (its bridge said so), or in none (nil).
  case setRoom(RoomIdentity?)
  /// A room session heard (through the bridge), anchored on this desk's monotonic clock: the
  /// instant its `elapsed` held, and when it expires. An older revision than the one held changes
  /// nothing (an expired one is no longer held).
  case roomSession(RoomHeld)
  /// What the bridge says of the room now (its members, the broker, the clock).
  case roomView(RoomView)
  /// The presence sensor's word: someone is there (true) or away (false); nil: no sensor. Shown
  /// only: pausing when away is a press the shell feeds (`pause_when_away`).
  case setPresent(Bool?)
}

/// What the engine asks the shell to do. The shell redraws after every step anyway.
public enum Effect: Equatable, Sendable {
  /// Start (true) or stop (false) the alarm pattern on the buzzer.
  case alarm(Bool)
  /// Save the timer state (phase changes, and every 10 s while running).
  case persist
  /// Append a session to the history (once per session, when it ends).
  case record(SessionRecord)
}

/// One session, for the history: recorded once, when it ends for good (cancelled, or its alarm
/// acknowledged or timed out), with any time added by snoozing.
public struct SessionRecord: Equatable, Sendable {
  public enum Outcome: String, CaseIterable, Sendable {
    case completed
    case cancelled
  }
  public var mode: Mode
  public var outcome: Outcome
  /// The duration the timer was set to.
  public var planned: Nanoseconds
  /// The time it actually counted down, pauses excluded, extensions included.
  public var actual: Nanoseconds
  /// The time added after it first reached zero (snoozes), 0 when none.
  public var extended: Nanoseconds
  /// When it stopped counting (monotonic; the shell adds the wall clock): the instant it last
  /// reached zero, or was cancelled.
  public var endedAt: Instant
  /// What the session was for (the label when it ended), nil when none was set.
  public var label: SessionLabel?
  /// The interruptions marked while it ran (focus kinds only).
  public var interruptions: Interruptions
  /// The room whose session it was (the desk followed the room's phase), nil: its own.
  public var room: String?
  /// The profile in use when it ended (issue 48), nil: the base settings.
  public var profile: String?

  /// Whether a session of `mode` that ended with `outcome` is completed focus: completed, of a
  /// kind that is focus (`ModeKind.isFocus`: focus and flow). The one meaning of "completed
  /// focus" (docs/history.md): the engine's `completedToday`, the history's count of today,
  /// the statistics.
  public static func isCompletedFocus(_ mode: Mode, _ outcome: Outcome) -> Bool {
    switch outcome {
    case .completed: return mode.kind.isFocus
    case .cancelled: return false
    }
  }

  public init(
    mode: Mode, outcome: Outcome, planned: Nanoseconds, actual: Nanoseconds, extended: Nanoseconds = 0,
    endedAt: Instant, label: SessionLabel? = nil, interruptions: Interruptions = Interruptions(),
    room: String? = nil, profile: String? = nil
  ) {
    self.mode = mode
    self.outcome = outcome
    self.planned = planned
    self.actual = actual
    self.extended = extended
    self.endedAt = endedAt
    self.label = label
    self.interruptions = interruptions
    self.room = room
    self.profile = profile
  }
}
