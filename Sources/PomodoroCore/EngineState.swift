/// The whole state of the timer. A value: the engine makes a new one for every event.
public struct EngineState: Equatable, Sendable {
  /// The settings in effect: `base` with the chosen profile over it.
  public internal(set) var settings: EngineSettings
  /// The owner's settings as configured, profiles and all (`Event.configure`).
  public internal(set) var base: EngineSettings
  /// The profile chosen (one of `base.profiles`), nil: the base settings.
  public internal(set) var profile: String?
  /// While idle, the knob's profile chooser is open on this entry of `profileChoices`; nil: closed.
  public internal(set) var profileChoice: Int?
  /// The phase with what only it knows (a countdown's deadline or a flow's start, what a pause
  /// holds, dial timing).
  var phaseState: PhaseState
  /// The phase before the current one, for the screen's transitions.
  public internal(set) var previousPhase: Phase
  /// When the current phase began (for a ringing phase: exactly the deadline).
  public internal(set) var phaseSince: Instant
  public internal(set) var mode: Mode
  /// A countdown's length: the dialed duration, or the total of the timer that runs (extensions
  /// included). Nil in a flow, which counts up and has none.
  public internal(set) var duration: Nanoseconds?
  /// Completed focus sessions in the current cycle (a long break follows the Nth).
  public internal(set) var focusDoneInCycle: Int
  /// Completed focus sessions today (the shell sets it from the history).
  public internal(set) var completedToday: Int
  /// True after coming back from a restart or a power cut, until the next button.
  public internal(set) var restored: Bool
  /// Where `duration` came from: the mode's preset, the knob or a command, or the break a flow
  /// earned. Choosing a mode makes it the preset again.
  public internal(set) var origin: DurationOrigin
  /// What the sessions are for, until changed: the running one's (if any) and the next ones'.
  public internal(set) var label: SessionLabel?
  /// The labels set most recently, newest first (at most `SessionLabel.recentLimit`): the knob's
  /// label chooser and the page's suggestions.
  public internal(set) var recentLabels: [SessionLabel]
  /// While idle, the knob's label chooser is open on this entry of `labelChoices`; nil: the
  /// picker shows the modes.
  public internal(set) var labelChoice: Int?
  /// The last interruption marked and when: the panel acknowledges it for a short while.
  public internal(set) var lastInterruption: InterruptionMark?
  /// The room the desk is in (docs/room.md), nil: none.
  public internal(set) var room: RoomStanding?
  /// Whether the presence sensor sees someone (false: away), nil: the desk has none. Shown, never
  /// saved: the shell says it again after a restart.
  public internal(set) var present: Bool?

  /// An interruption and the instant it was marked.
  public struct InterruptionMark: Equatable, Sendable {
    public var kind: Interruption
    public var at: Instant
  }

  /// What the profile chooser offers: the profiles, then the base (nil).
  public var profileChoices: [String?] { base.profiles.map(\.name) + [nil] }

  /// The profile's names in the config's order.
  public var profileNames: [String] { base.profiles.map(\.name) }

  /// What the label chooser offers: the recent labels, then no label (nil).
  public var labelChoices: [SessionLabel?] { recentLabels.map { $0 } + [nil] }

  /// The running (or paused, or ringing) session's interruptions; nil without a timer.
  public var interruptions: Interruptions? { session?.interruptions }

  /// How long the panel acknowledges an interruption.
  public static let interruptionShown: Nanoseconds = seconds(2)

  /// The interruption to acknowledge at `now` (marked within `interruptionShown`), if any.
  public func interruptionAcknowledged(at now: Instant) -> Interruption? {
    guard let last = lastInterruption, now >= last.at, now - last.at < Self.interruptionShown, hasTimer else {
      return nil
    }
    return last.kind
  }

  /// The daily goal reached: today's completed focus at or past the goal (never when it is off).
  public var goalMet: Bool { settings.dailyGoal > 0 && completedToday >= settings.dailyGoal }

  /// The short break preselected (or running) is the one a flow earned: flow follows it, not
  /// focus.
  public var breakAfterFlow: Bool {
    switch origin {
    case .earned: return true
    case .preset, .dialed: return false
    }
  }
  /// The duration was set by hand (the knob, a command's duration or extension) or is the break
  /// a flow earned, not the mode's preset as chosen: a new preset (`Event.configure`) leaves it
  /// alone, and Cancel comes back to it. False while the picker shows the preset (and in a flow).
  public var durationDialed: Bool {
    switch origin {
    case .preset: return false
    case .dialed, .earned: return true
    }
  }

  /// What the timer is doing.
  public var phase: Phase { phaseState.phase }

  /// A fresh device: idle, focus preselected.
  public init(settings: EngineSettings = EngineSettings(), now: Instant) {
    let profile = settings.profile(named: settings.profile)
    self.settings = settings.applying(profile)
    base = settings
    self.profile = profile?.name
    profileChoice = nil
    phaseState = .idle(lastDetentAt: nil)
    previousPhase = .idle
    phaseSince = now
    mode = .focus
    duration = self.settings.preset(.focus)
    focusDoneInCycle = 0
    completedToday = 0
    restored = false
    origin = .preset
    label = nil
    recentLabels = []
    labelChoice = nil
    lastInterruption = nil
    room = nil
    present = nil
  }

  /// Where the timer stands at `now`: a countdown's time left and length, or a flow's time
  /// counted.
  public func count(at now: Instant) -> Count {
    guard let duration else { return .up(counted: counted(at: now)) }
    let left: Nanoseconds
    switch phaseState {
    case .idle: left = duration
    case .running(_, .deadline(let deadline), _, _): left = max(0, min(duration, deadline - now))
    case .paused(_, .remaining(let remaining), _): left = remaining
    case .ringing: left = 0
    // A count up in a countdown's mode cannot be made; read as nothing run.
    case .running(_, .start, _, _), .paused(_, .counted, _): left = duration
    }
    return .down(remaining: left, total: duration)
  }

  /// A flow's time counted: nothing while idle, the ceiling (`Engine.longestFlow`) while ringing.
  func counted(at now: Instant) -> Nanoseconds {
    switch phaseState {
    case .idle: return 0
    case .running(_, .start(let start), _, _): return max(0, min(Engine.longestFlow, now - start))
    case .paused(_, .counted(let counted), _): return counted
    case .ringing: return Engine.longestFlow
    // A countdown in a flow cannot be made; read as nothing counted.
    case .running(_, .deadline, _, _), .paused(_, .remaining, _): return 0
    }
  }

  /// A countdown's time left: its dialed duration while idle, zero while ringing; nil in a flow
  /// (it counts up, to no end).
  public func remaining(at now: Instant) -> Nanoseconds? {
    switch count(at: now) {
    case .down(let remaining, _): return remaining
    case .up: return nil
    }
  }

  /// Time counted so far: a countdown's total minus what is left, a flow's count.
  public func elapsed(at now: Instant) -> Nanoseconds {
    switch count(at: now) {
    case .down(let remaining, let total): return total - remaining
    case .up(let counted): return counted
    }
  }

  /// The whole seconds on screen: remaining rounded up; in flow, the time counted rounded down
  /// (00:00 for its first second).
  public func shownSeconds(at now: Instant) -> Int64 {
    switch count(at: now) {
    case .up(let counted): return wholeSeconds(counted)
    case .down(let remaining, _): return PomodoroCore.shownSeconds(remaining)
    }
  }

  /// In flow, the break ending it now would preselect (0 within its first minute); nil in
  /// every other mode.
  public func earnedBreak(at now: Instant) -> Nanoseconds? {
    switch mode.kind {
    case .flow: return settings.earnedBreak(elapsed(at: now))
    case .focus, .rest, .egg: return nil
    }
  }

  /// What a pause keeps (and a start or a resume runs from) at `now`: a countdown's time left, a
  /// flow's count.
  func held(at now: Instant) -> Held {
    switch count(at: now) {
    case .down(let remaining, _): return .remaining(remaining)
    case .up(let counted): return .counted(counted)
    }
  }

  /// What a new timer of the picker's mode runs from: its duration, or a count from zero.
  var fresh: Held { duration.map(Held.remaining) ?? .counted(0) }

  /// The time text on screen: "25:00", "1:05:00".
  public func clockText(at now: Instant) -> String { formatClock(shownSeconds(at: now)) }

  /// The timer that exists while running, paused or ringing.
  var session: Session? {
    switch phaseState {
    case .idle: return nil
    case .running(let session, _, _, _), .paused(let session, _, _), .ringing(let session): return session
    }
  }

  /// While ringing: when the alarm stops by itself (nil: it rings until stopped).
  var alarmTimesOutAt: Instant? {
    settings.alarmTimeout(for: mode).map { phaseSince + $0 }
  }

  /// A timer exists (cancel is meaningful).
  public var hasTimer: Bool { phase == .running || phase == .paused }

  /// The focus session's place in the cycle, "1/4", or nil outside focus.
  public var cycleText: String? {
    switch mode.kind {
    case .focus: break
    case .rest, .egg, .flow: return nil
    }
    let n = settings.longBreakEvery
    // Once this focus has reached zero (ringing, or snoozed) it is counted already.
    let counted = session?.completed ?? false
    let position = counted ? focusDoneInCycle : (focusDoneInCycle >= n ? 1 : focusDoneInCycle + 1)
    return "\(max(1, position))/\(n)"
  }

  /// The title line, following phase and mode: a pomodoro mode names itself and its place in the
  /// cycle ("Focus 2/4"), the break a flow earned "Earned break", "Focus done!", "Flow done!" or
  /// "Break over!" when it rings; an egg preset asks,
  /// answers and warns ("How do you like your eggs?", "So you like it Soft huh?", "Alright, don't
  /// choke on them!").
  public var title: String {
    if labelChoice != nil { return "Label for what next?" }
    if profileChoice != nil { return "Which profile?" }
    switch (mode.kind, phase) {
    case (.egg, .idle): return "How do you like your eggs?"
    case (.egg, .running), (.egg, .paused): return "So you like it \(mode.displayName) huh?"
    case (.egg, .ringing): return "Alright, don't choke on them!"
    case (.focus, .ringing): return "Focus done!"
    case (.flow, .ringing): return "Flow done!"
    case (.rest, .ringing): return "Break over!"
    case (.focus, _): return cycleText.map { "\(mode.displayName) \($0)" } ?? mode.displayName
    case (.rest, _): return breakAfterFlow ? "Earned break" : mode.displayName
    case (.flow, _): return mode.displayName
    }
  }

  /// The start/pause button's label, following the state: Start, Pause, Resume, and Stop while ringing.
  public var startLabel: String {
    if labelChoice != nil || profileChoice != nil { return "Start" }
    switch phase {
    case .idle: return "Start"
    case .running: return "Pause"
    case .paused: return "Resume"
    case .ringing: return "Stop"
    }
  }

  /// What the cancel button does to the timer: "Cancel", and "End" in a flow (ending one after
  /// its first minute completes it).
  public var cancelLabel: String {
    switch mode.kind {
    case .flow: return "End"
    case .focus, .rest, .egg: return "Cancel"
    }
  }

  /// One line of plain text for screen readers, scripts and systemd's STATUS=:
  /// `running  focus 1/4  24:59`; a flow says what it has earned: `running  flow  12:34, break
  /// 2:00 earned`.
  public func statusLine(at now: Instant) -> String {
    PomodoroCore.statusLine(
      phase: phase, mode: mode.rawValue, cycle: cycleText, time: clockText(at: now),
      earnedSeconds: earnedBreak(at: now).map(wholeSeconds), sayLeft: false)
  }
}

/// One timer from its start to its end (cancelled, or its alarm acknowledged or timed out),
/// across pauses, ringing and snoozes. A countdown's `duration` is its total, extensions included.
struct Session: Equatable, Sendable {
  /// Time added after it first reached zero: snoozes, and dialing while paused after one.
  var extended: Nanoseconds = 0
  /// It has reached zero: a focus is counted, and it ends completed whatever follows.
  var completed = false
  /// The interruptions marked while it ran.
  var interruptions = Interruptions()
}

/// Where a timer stands: a countdown's time left and its length, or a flow's time counted (a
/// flow has no length and nothing left: it counts up until it is ended).
public enum Count: Equatable, Sendable {
  case down(remaining: Nanoseconds, total: Nanoseconds)
  case up(counted: Nanoseconds)
}

/// How a running timer stands against the clock: a countdown reaches zero at its deadline, a
/// flow has counted the time since its start (a resume moves the start past the pause).
enum Running: Equatable, Sendable {
  case deadline(Instant)
  case start(Instant)
}

/// What a paused timer holds, to the nanosecond: a countdown's time left, a flow's time counted.
enum Held: Equatable, Sendable {
  case remaining(Nanoseconds)
  case counted(Nanoseconds)
}

/// The phases with the data that means something in that phase only.
enum PhaseState: Equatable, Sendable {
  /// Choosing; `lastDetentAt` times the dial's acceleration.
  case idle(lastDetentAt: Instant?)
  /// Counting down to a deadline or up from a start; `lastPersistAt` is when the state was last
  /// saved; `snoozedAt`, the last detent of the spin that snoozed it (nil when not snoozing).
  case running(Session, Running, lastPersistAt: Instant, snoozedAt: Instant?)
  /// Stopped with what it held; `lastDetentAt` times the dial.
  case paused(Session, Held, lastDetentAt: Instant?)
  /// Reached zero at `phaseSince`; the alarm sounds.
  case ringing(Session)

  var phase: Phase {
    switch self {
    case .idle: return .idle
    case .running: return .running
    case .paused: return .paused
    case .ringing: return .ringing
    }
  }
}
