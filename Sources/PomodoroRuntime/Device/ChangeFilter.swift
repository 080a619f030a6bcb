import PomodoroCore

/// Which of the engine's new states are news, and to whom. A new phase, mode, dialed length or
/// label is a change: the journal says it, and every observer hears it
/// (`DeviceObserver.stateChanged`). What else the state's fields show and may change alone (the
/// interruptions, today's count, the goal, the recent labels, the room, presence, the profile) is said only to those who
/// show the whole state: the control socket's watchers, the page and the bridge
/// (`DeviceObserver.stateShown`), not the journal nor the transcript. Pure.
package struct ChangeFilter {
  package enum News: Equatable {
    case changed
    case shown
  }

  private var observed: (Phase, Mode, Nanoseconds?, SessionLabel?)?
  private var shown: (Interruptions?, Int, Int, [SessionLabel], RoomStanding?, Seen)?

  /// Presence and the profile, as one of `shown`'s (a tuple compares up to six).
  private struct Seen: Equatable {
    var present: Bool?
    var profile: String?
    var profiles: [Profile]
  }

  package init() {}

  /// What `state` is news as, after the states seen before it; nil: none.
  package mutating func news(_ state: EngineState) -> News? {
    let observed = (state.phase, state.mode, state.duration, state.label)
    let shown = (
      state.interruptions, state.completedToday, state.settings.dailyGoal, state.recentLabels, state.room,
      Seen(present: state.present, profile: state.profile, profiles: state.base.profiles)
    )
    if self.observed.map({ $0 != observed }) ?? true {
      self.observed = observed
      self.shown = shown
      return .changed
    }
    guard self.shown.map({ $0 != shown }) ?? true else { return nil }
    self.shown = shown
    return .shown
  }
}
