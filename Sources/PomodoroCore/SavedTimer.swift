/// What survives a restart or a power cut: durations, not instants, because the monotonic
/// clock starts again from zero after a reboot.
public struct SavedTimer: Equatable, Sendable {
  public var phase: Phase
  public var mode: Mode
  /// Where the timer stood: a countdown's time left and its total (extensions included; while
  /// idle, the picker's duration), or a flow's time counted.
  public var count: Count
  public var focusDoneInCycle: Int
  /// The time added after the timer first reached zero (snoozes); more than 0 only for a timer
  /// that has reached zero once, so the original plan is `total - extended`.
  public var extended: Nanoseconds
  /// Where a countdown's duration came from (`EngineState.origin`; the break a flow earned: flow
  /// follows it); nil for a flow, and when the file does not say, as 0.2.0's did not for the
  /// other two (the restore guesses).
  public var origin: DurationOrigin?
  /// The label of the sessions (nil: none) and the recent labels, newest first.
  public var label: SessionLabel?
  public var recentLabels: [SessionLabel]
  /// The timer's interruptions so far (none while idle).
  public var interruptions: Interruptions
  /// The room phase the timer followed (nil: the timer, if any, was the desk's own): after a
  /// restart it follows the room again once the bridge says the session (docs/room.md).
  public var room: Followed?
  /// The profile in use (nil: the base settings; a file that does not say, as before profiles
  /// came, means the base).
  public var profile: String?

  /// A room's phase by name: the room, its plan's first revision and the phase's index.
  public struct Followed: Equatable, Sendable {
    public var room: String
    public var planRevision: Int64
    public var index: Int
    public init(room: String, planRevision: Int64, index: Int) {
      self.room = room
      self.planRevision = planRevision
      self.index = index
    }
  }

  public init(
    phase: Phase, mode: Mode, count: Count, focusDoneInCycle: Int, extended: Nanoseconds = 0,
    origin: DurationOrigin? = nil, label: SessionLabel? = nil, recentLabels: [SessionLabel] = [],
    interruptions: Interruptions = Interruptions(), room: Followed? = nil, profile: String? = nil
  ) {
    self.phase = phase
    self.mode = mode
    self.count = count
    self.focusDoneInCycle = focusDoneInCycle
    self.extended = extended
    self.origin = origin
    self.label = label
    self.recentLabels = recentLabels
    self.interruptions = interruptions
    self.room = room
    self.profile = profile
  }

  /// A countdown's total; nil for a flow's count.
  public var duration: Nanoseconds? {
    switch count {
    case .down(_, let total): return total
    case .up: return nil
    }
  }

  /// A countdown's time left; nil for a flow's count.
  public var remaining: Nanoseconds? {
    switch count {
    case .down(let remaining, _): return remaining
    case .up: return nil
    }
  }

  /// A countdown's: `duration` its total, `remaining` its time left.
  public init(
    phase: Phase, mode: Mode, duration: Nanoseconds, remaining: Nanoseconds, focusDoneInCycle: Int,
    extended: Nanoseconds = 0, origin: DurationOrigin? = nil
  ) {
    self.init(
      phase: phase, mode: mode, count: .down(remaining: remaining, total: duration), focusDoneInCycle: focusDoneInCycle,
      extended: extended, origin: origin)
  }
}

extension EngineState {
  /// The state to save now.
  public func saved(at now: Instant) -> SavedTimer {
    let count = count(at: now)
    let origin: DurationOrigin?
    switch count {
    case .down: origin = self.origin
    case .up: origin = nil  // A flow's time comes from nowhere: it has no duration.
    }
    return SavedTimer(
      phase: phase, mode: mode, count: count, focusDoneInCycle: focusDoneInCycle, extended: session?.extended ?? 0,
      origin: origin, label: label, recentLabels: recentLabels,
      interruptions: session?.interruptions ?? Interruptions(),
      room: room.flatMap { r in
        r.followed.map { SavedTimer.Followed(room: r.name, planRevision: $0.planRevision, index: $0.index) }
      }, profile: profile)
  }

  /// The state after a restart, without the record `Engine.restore` also gives for a timer that
  /// was ringing: the shell should call `Engine.restore`.
  public init(restoring saved: SavedTimer, settings: EngineSettings, now: Instant) {
    self = Engine.restore(saved, settings: settings, now: now).0
  }
}

extension Engine {
  /// The state after a restart, and its effects. A timer that was running or paused comes back
  /// paused with the time it had (never running on by itself) and marked `restored`; a ringing
  /// one ends there: its session is recorded (completed, at `now`) and the device comes back
  /// idle with the next session preselected; the effects then say so (`.alarm(false)`,
  /// `.record`, `.persist`: saving at once keeps a second restart from recording it again).
  public static func restore(_ saved: SavedTimer, settings: EngineSettings, now: Instant) -> (EngineState, [Effect]) {
    var s = EngineState(settings: settings, now: now)
    // The profile saved, while the settings still define it (else the base: the shell says so).
    choose(&s, profile: saved.profile)
    let settings = s.settings
    s.mode = saved.mode
    s.label = saved.label
    s.recentLabels = Array(saved.recentLabels.prefix(SessionLabel.recentLimit))
    // A crafted or damaged file's count is held to the cycle (never `9223372036854775807/4`).
    s.focusDoneInCycle = min(max(0, saved.focusDoneInCycle), settings.cycle.longBreakEvery)
    let timer: Bool
    switch saved.phase {
    case .idle: timer = false
    case .running, .paused, .ringing: timer = true
    }
    let held: Held
    var extended: Nanoseconds = 0
    switch (saved.mode.kind.counting, saved.count) {
    case (.down, .down(let remaining, let total)):
      // A timer's total may pass the dial's top (turned up while paused), an idle duration not.
      let duration = min(timer ? longestTotal : Dial.longest, max(Dial.shortest, total))
      s.duration = duration
      extended = max(0, min(duration - Dial.shortest, saved.extended))
      held = .remaining(max(0, min(duration, Dial.longest, remaining)))
      s.origin = origin(saved, duration: duration, timer: timer, settings: settings)
    case (.down, .up):
      // A count in a countdown's mode (a crafted file): the mode's preset, nothing run.
      s.duration = settings.preset(saved.mode)
      held = s.fresh
    case (.up, let count):
      // A flow has no duration: whatever a file says, it comes back with its count.
      s.duration = nil
      let counted: Nanoseconds
      switch count {
      case .up(let c): counted = c
      case .down: counted = 0
      }
      held = .counted(max(0, min(longestFlow, counted)))
    }
    // A picker at the preset of a profile no longer defined shows the base's preset.
    if saved.phase == .idle, saved.origin == .preset, saved.profile != s.profile, let preset = settings.preset(s.mode) {
      s.duration = preset
      s.origin = .preset
    }
    var effects: [Effect] = []
    switch saved.phase {
    case .idle:
      break
    case .running, .paused:
      let session = Session(extended: extended, completed: extended > 0, interruptions: saved.interruptions)
      s.phaseState = .paused(session, held, lastDetentAt: nil)
      s.restored = true
      // A timer that followed a room: the desk is in that room again (joining it by the config
      // keeps this), and the timer follows the room's session as soon as it is heard.
      if let followed = saved.room, RoomNames.isRoom(followed.room), followed.planRevision > 0, followed.index >= 0 {
        var room = RoomStanding(name: followed.room, desk: "")
        room.followed = RoomStanding.PhaseKey(planRevision: followed.planRevision, index: followed.index)
        s.room = room
      }
    case .ringing:
      s.phaseState = .ringing(Session(extended: extended, completed: true, interruptions: saved.interruptions))
      acknowledge(&s, now: now, effects: &effects, allowAutoStart: false)
      s.previousPhase = .idle
    }
    return (s, effects)
  }

  /// A restored countdown's origin: the file's, when it says (the break a flow earned only for a
  /// break); a file that does not (0.2.0's, but for the earned break) is guessed: an idle picker
  /// at its mode's preset follows the preset, a timer or another time is kept as dialed.
  static func origin(_ saved: SavedTimer, duration: Nanoseconds, timer: Bool, settings: EngineSettings)
    -> DurationOrigin
  {
    switch (saved.origin, saved.mode.kind) {
    case (.earned, .rest): return .earned
    case (.earned, .focus), (.earned, .egg), (.earned, .flow): return .dialed
    case (.dialed, _): return .dialed
    case (.preset, _): return duration == settings.preset(saved.mode) ? .preset : .dialed
    case (nil, _): return !timer && duration == settings.preset(saved.mode) ? .preset : .dialed
    }
  }
}
