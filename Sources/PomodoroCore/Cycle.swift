/// The focus/break cycle, alone and pure: what a completed session leads to.
///
/// Focus sessions are counted in the cycle as they reach zero; after the Nth a long break is
/// preselected, after any other a short break, after a break focus again. Egg presets stay as
/// they are and count nothing. A flow counts nothing either: it earns its own break (a short
/// break of its length over `flow_break_ratio`, at most the long break's length), so a flow of
/// two minutes does not bring the long break nearer, and the cycle's count waits for focus.
/// After that break flow is preselected again (the engine keeps which break a flow earned).
public struct Cycle: Equatable, Sendable {
  /// A long break after every Nth completed focus.
  public var longBreakEvery: Int

  public init(longBreakEvery: Int) { self.longBreakEvery = max(1, longBreakEvery) }

  /// The focus sessions done in the cycle once a session of `mode` has reached zero.
  public func focusDone(afterCompleting mode: Mode, _ done: Int) -> Int {
    switch mode.kind {
    case .focus: return done + 1
    case .rest, .egg, .flow: return done
    }
  }

  /// What to preselect when the alarm of a completed `mode` ends, and the cycle's count from then on.
  public func next(after mode: Mode, focusDone done: Int) -> (mode: Mode, focusDone: Int) {
    switch mode {
    case .focus: return (done >= longBreakEvery ? .longBreak : .shortBreak, done)
    case .shortBreak: return (.focus, done)
    case .longBreak: return (.focus, 0)
    case .soft, .medium, .hard: return (mode, done)  // Ready for the next batch of eggs.
    case .flow: return (.shortBreak, done)  // The break it earned (the engine sets its length).
    }
  }

  /// The cycle's count when a session of `mode` starts: a focus after a full cycle whose long
  /// break was skipped begins a new cycle.
  public func focusDone(atStartOf mode: Mode, _ done: Int) -> Int {
    switch mode.kind {
    case .focus: return done >= longBreakEvery ? 0 : done
    case .rest, .egg, .flow: return done
    }
  }

  /// A long cancel while idle skips to focus; skipping a long break starts the cycle anew.
  public func skipToFocus(from mode: Mode, focusDone done: Int) -> (mode: Mode, focusDone: Int) {
    (.focus, next(after: mode, focusDone: done).focusDone)
  }
}
