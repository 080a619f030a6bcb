import PomodoroCore

/// Everything a screen shows, decided from the engine's state at one instant. Rendering a model
/// is a pure function (`renderScreen`), so screens can be tested and snapshotted from models.
public struct ScreenModel: Equatable, Sendable {
  /// The picture next to the time.
  public enum Icon: Equatable, Sendable {
    case none
    /// The tomato, `frame` 0..<4 of its spin (quarter turns).
    case tomato(frame: Int)
    case egg
    /// The bell, 0 swung left, 1 swung right.
    case bell(frame: Int)
    case pause
  }

  /// A dissolve from the screen of phase `from` into this one: `step` of `ScreenTiming.transitionSteps`.
  public struct Transition: Equatable, Sendable {
    public var from: Phase
    public var step: Int
    public init(from: Phase, step: Int) {
      self.from = from
      self.step = step
    }
  }

  public var phase: Phase
  /// The title line (the engine's, the egg modes' texts included).
  public var title: String
  /// The big time: "25:00", "1:05:00".
  public var timeText: String
  /// Progress bar: `elapsed` of `total` (any unit); no bar when total is 0.
  public var elapsed: Int64
  public var total: Int64
  public var icon: Icon
  /// Ringing: the title band is lit (inverted) in this half of the flash.
  public var flashOn: Bool
  public var transition: Transition?
  /// Completed focus sessions today, drawn as tomato dots.
  public var dots: Int
  /// Short mode name for the compact layout: "Focus", "Short", "Soft"...
  public var label: String
  /// Cycle position ("1/4") in focus mode.
  public var cycleText: String?
  /// What a press of the start/pause button does now: "Start", "Pause", "Resume", "Stop"
  /// (the engine's `startLabel`).
  public var startLabel: String
  /// Whether the cancel button does anything now (a timer exists).
  public var canCancel: Bool
  /// What the knob does now ("Turn: set  Push: mode"); nil when it does nothing.
  public var knobHint: String?
  /// Came back from a restart or power cut: show a note.
  public var restored: Bool
  /// What the cancel button is called: "Cancel", "End" in a flow.
  public var cancelLabel: String
  /// In a flow: the whole seconds of break it has earned so far, shown where the knob's hint
  /// would be (`earnedText`); nil elsewhere.
  public var earnedBreak: Int64?
  /// What the sessions are for (the label), shown under the title while idle, running or paused.
  public var sessionLabel: String?
  /// Today's completed focus toward the daily goal (`today` of `goal`), drawn instead of the
  /// tomatoes when there is a goal; nil without one.
  public var goal: Goal?
  /// A running focus's interruptions, as the technique writes them: `'2 -1` (internal,
  /// external); nil when none was marked.
  public var interruptionsText: String?
  /// The knob's label chooser (or profile chooser), open: its entries and the one chosen.
  public var chooser: Chooser?
  /// The picker's profile (issue 48), beside the title while idle; nil: the base settings. While
  /// the desk follows a room session at another desk's pace (`followsRoomPace`), `roomPace`.
  public var profileName: String?
  /// What the profile's place says while the pace is the room's (no profile name has brackets).
  public static let roomPace = "(room)"
  /// In a room whose bridge spoke (docs/room.md), while the desk follows the room or is idle:
  /// how many of its desks are in focus, "3 in focus", with "~" in front when this desk's wall
  /// clock is not trusted (it counts from the broker's message ages).
  public var roomText: String?

  /// Today's count toward the daily goal.
  public struct Goal: Equatable, Sendable {
    public var today: Int
    public var goal: Int
    public var met: Bool { today >= goal }
    public var text: String { "\(today)/\(goal)" }
    public init(today: Int, goal: Int) {
      self.today = today
      self.goal = goal
    }
  }

  /// A chooser's entries and the one the knob is on.
  public struct Chooser: Equatable, Sendable {
    public var entries: [String?]
    public var selected: Int
    /// What the entry nil says: "(no label)", or the profile chooser's "(base)".
    public var none: String
    public init(entries: [String?], selected: Int, none: String = Chooser.noLabel) {
      self.entries = entries
      self.selected = selected
      self.none = none
    }
    public static let noLabel = "(no label)"
    /// What an entry says: the label (or profile), or `none`.
    public func text(_ entry: String?) -> String { entry ?? none }
  }

  /// The knob's hint in the label chooser.
  public static let chooserHint = "Turn: pick  Push: set"
  /// The title while an interruption is acknowledged.
  public static let interruptionNoted = "Interruption noted"

  public init(
    phase: Phase, title: String, timeText: String, elapsed: Int64 = 0, total: Int64 = 0, icon: Icon = .none,
    flashOn: Bool = false, transition: Transition? = nil, dots: Int = 0, label: String = "",
    cycleText: String? = nil, startLabel: String = "", canCancel: Bool = false, knobHint: String? = nil,
    restored: Bool = false, cancelLabel: String = "Cancel", earnedBreak: Int64? = nil
  ) {
    self.phase = phase
    self.title = title
    self.timeText = timeText
    self.elapsed = elapsed
    self.total = total
    self.icon = icon
    self.flashOn = flashOn
    self.transition = transition
    self.dots = dots
    self.label = label
    self.cycleText = cycleText
    self.startLabel = startLabel
    self.canCancel = canCancel
    self.knobHint = knobHint
    self.restored = restored
    self.cancelLabel = cancelLabel
    self.earnedBreak = earnedBreak
  }

  /// "Break 5:00": the full layout's footer in a flow.
  public var earnedText: String? { earnedBreak.map { "Break \(formatShortClock($0))" } }
}

/// The screen's animation clock: all of it counts from the phase's start (`phaseSince`).
public enum ScreenTiming {
  /// One spin step of the tomato (a quarter turn): a half-turn per half second.
  public static let spinStep: Nanoseconds = ms(250)
  /// The spin steps fall half a step off the second boundaries of the remaining time, so that a
  /// tick (the time text changing) and a spin step never share a frame: each stays small.
  public static let spinOffset: Nanoseconds = ms(125)

  /// The tomato's frame (0..<4) with `remaining` time left: counted down the remaining time, so
  /// the spin carries on where it stopped after a pause.
  public static func spinFrame(remaining: Nanoseconds) -> Int {
    // Steps taken = whole steps between the start's grid and now; a step falls exactly when
    // remaining + offset reaches a multiple of the step (so the frame changes at that instant).
    let q = (remaining + spinOffset + spinStep - 1) / spinStep
    return Int(((1 - q) % 4 + 4) % 4)
  }

  /// The tomato's frame (0..<4) at `count`: a countdown's by its time left, a flow's by its
  /// count, on the same grid (the steps half a step off the time text's second boundaries).
  public static func spinFrame(_ count: Count) -> Int {
    switch count {
    case .down(let remaining, _): return spinFrame(remaining: remaining)
    case .up(let counted): return Int(((max(0, counted) + spinOffset) / spinStep) % 4)
    }
  }

  /// How long from `count` until the next spin step; nil when none is left before a countdown's
  /// deadline.
  public static func nextSpinStep(_ count: Count) -> Nanoseconds? {
    switch count {
    case .down(let remaining, _):
      let spin = nextSpinRemaining(remaining)
      return spin >= 0 ? remaining - spin : nil
    case .up(let counted):
      let c = max(0, counted)
      return ((c + spinOffset) / spinStep + 1) * spinStep - spinOffset - c
    }
  }

  /// The remaining time at which the next spin step falls (below `remaining`); negative when
  /// none is left before the deadline.
  public static func nextSpinRemaining(_ remaining: Nanoseconds) -> Nanoseconds {
    let u = remaining + spinOffset
    let k = u % spinStep == 0 ? u / spinStep - 1 : u / spinStep
    return k * spinStep - spinOffset
  }
  /// Each half of the ringing flash.
  public static let flashHalf: Nanoseconds = ms(500)
  /// The dissolve on every return to idle and on a start from idle.
  public static let transition: Nanoseconds = ms(500)
  public static let transitionSteps = 8
  public static var transitionStep: Nanoseconds { transition / Int64(transitionSteps) }
}

extension ScreenModel {
  /// The model of what the panel shows for `state` at `now`.
  public init(state: EngineState, now: Instant) {
    let age = max(0, now - state.phaseSince)
    let shown = state.shownSeconds(at: now)
    let icon: Icon
    switch (state.phase, state.mode.kind) {
    case (.idle, .egg), (.running, .egg): icon = .egg
    case (.idle, .focus), (.idle, .rest), (.idle, .flow): icon = .tomato(frame: 0)
    case (.running, .focus), (.running, .rest), (.running, .flow):
      icon = .tomato(frame: ScreenTiming.spinFrame(state.count(at: now)))
    case (.paused, _): icon = .pause
    case (.ringing, _): icon = .bell(frame: Int(age / ScreenTiming.flashHalf) % 2)
    }
    // Every return to idle dissolves (cancel, stop, the alarm timing out), and so does a start
    // from idle; running <-> paused and an automatic start after the alarm cut at once.
    var transition: Transition?
    let fades =
      (state.phase == .idle && state.previousPhase != .idle)
      || (state.phase == .running && state.previousPhase == .idle)
    if fades, age < ScreenTiming.transition {
      transition = Transition(from: state.previousPhase, step: Int(age / ScreenTiming.transitionStep))
    }
    let earned = state.hasTimer ? state.earnedBreak(at: now) : nil
    let bar = state.progress(at: now)
    self.init(
      phase: state.phase, title: state.title, timeText: formatClock(shown),
      elapsed: bar.0, total: bar.1, icon: icon,
      flashOn: state.phase == .ringing && (age / ScreenTiming.flashHalf) % 2 == 0,
      transition: transition, dots: state.completedToday, label: ScreenModel.shortLabel(state.mode),
      cycleText: state.cycleText, startLabel: state.startLabel, canCancel: state.hasTimer,
      knobHint: ScreenModel.knobHint(state.phase, mode: state.mode), restored: state.restored,
      cancelLabel: state.cancelLabel, earnedBreak: earned.map(wholeSeconds))
    if state.phase != .ringing { sessionLabel = state.label?.text }
    if state.settings.dailyGoal > 0 { goal = Goal(today: state.completedToday, goal: state.settings.dailyGoal) }
    if let marks = state.interruptions, marks.total > 0, state.mode.kind.isFocus {
      interruptionsText = [
        marks.internal > 0 ? "'\(marks.internal)" : nil, marks.external > 0 ? "-\(marks.external)" : nil,
      ]
      .compactMap { $0 }.joined(separator: " ")
    }
    if state.interruptionAcknowledged(at: now) != nil { title = ScreenModel.interruptionNoted }
    if let choice = state.labelChoice {
      chooser = Chooser(entries: state.labelChoices.map { $0?.text }, selected: choice)
      knobHint = ScreenModel.chooserHint
    }
    if let choice = state.profileChoice {
      chooser = Chooser(entries: state.profileChoices, selected: choice, none: Profile.baseName)
      knobHint = ScreenModel.chooserHint
    }
    if state.phase == .idle { profileName = state.profile }
    if state.followsRoomPace { profileName = ScreenModel.roomPace }
    roomText = ScreenModel.roomText(state, at: now)
  }

  /// `roomText` for `state` at `now`.
  public static func roomText(_ state: EngineState, at now: Instant) -> String? {
    guard let room = state.room, room.bridged(at: now), let view = room.view,
      room.following || state.phase == .idle, state.labelChoice == nil, state.profileChoice == nil
    else { return nil }
    let focusing = (state.roomMembers ?? []).filter(\.focusing).count
    return (view.clockTrusted ? "" : "~") + "\(focusing) in focus"
  }

  /// What the knob does in `phase`: it dials the duration and its push steps the mode while
  /// idle, is ignored while running, sets the remaining time while paused, and snoozes the
  /// alarm by a minute a clockwise detent while ringing. In a flow turning does nothing: the
  /// picker's hint says only what the push does.
  public static func knobHint(_ phase: Phase, mode: Mode = .focus) -> String? {
    switch mode.kind.counting {
    case .up: return phase == .idle ? "Push: mode" : nil
    case .down: break
    }
    switch phase {
    case .idle: return "Turn: set  Push: mode"
    case .running: return nil
    case .paused: return "Turn: set"
    case .ringing: return "Turn: +1 min"
    }
  }

  /// The mode's name in at most 5 letters, for the compact layout.
  public static func shortLabel(_ mode: Mode) -> String {
    switch mode {
    case .focus: return "Focus"
    case .shortBreak: return "Short"
    case .longBreak: return "Long"
    case .soft: return "Soft"
    case .medium: return "Med."
    case .hard: return "Hard"
    case .flow: return "Flow"
    }
  }
}

/// The next instant after `now` at which the picture changes for animation alone (a spin step,
/// a flash, a transition step), so that the event loop sleeps until then; nil when nothing
/// animates. Changes of the time text are the engine's `nextWake`, not this.
public func nextFrameTime(state: EngineState, now: Instant) -> Instant? {
  let age = max(0, now - state.phaseSince)
  func next(every period: Nanoseconds) -> Instant { state.phaseSince + (age / period + 1) * period }
  var candidates: [Instant] = []
  if ScreenModel(state: state, now: now).transition != nil {
    candidates.append(next(every: ScreenTiming.transitionStep))
  }
  switch (state.phase, state.mode.kind) {
  case (.running, .focus), (.running, .rest), (.running, .flow):
    // Wide H:MM:SS texts leave no room for the tomato (see the layout); then nothing spins.
    if state.shownSeconds(at: now) < wholeSeconds(hours(10)), let step = ScreenTiming.nextSpinStep(state.count(at: now))
    {
      candidates.append(now + step)
    }
  case (.ringing, _): candidates.append(next(every: ScreenTiming.flashHalf))
  case (.running, .egg), (.idle, _), (.paused, _): break
  }
  return candidates.min()
}
