/// What survives a restart or a power cut: durations, not instants, because the monotonic
/// clock starts again from zero after a reboot.
public struct SavedTimer: Equatable, Sendable {
  public var phase: Phase
  public var mode: Mode
  public var duration: Nanoseconds
  public var remaining: Nanoseconds
  public var focusDoneInCycle: Int

  public init(phase: Phase, mode: Mode, duration: Nanoseconds, remaining: Nanoseconds, focusDoneInCycle: Int) {
    self.phase = phase
    self.mode = mode
    self.duration = duration
    self.remaining = remaining
    self.focusDoneInCycle = focusDoneInCycle
  }
}

extension EngineState {
  /// The state to save now.
  public func saved(at now: Instant) -> SavedTimer {
    SavedTimer(
      phase: phase, mode: mode, duration: duration, remaining: remaining(at: now), focusDoneInCycle: focusDoneInCycle)
  }

  /// The state after a restart: a timer that was running or paused comes back paused with the
  /// time it had (never running on by itself) and marked `restored`; a ringing one comes back
  /// idle with the next session preselected (its completion was already recorded).
  public init(restoring saved: SavedTimer, settings: EngineSettings, now: Instant) {
    self.init(settings: settings, now: now)
    mode = saved.mode
    duration = Dial.clamp(saved.duration)
    focusDoneInCycle = max(0, saved.focusDoneInCycle)
    switch saved.phase {
    case .idle:
      break
    case .running, .paused:
      phaseState = .paused(remaining: max(0, min(duration, saved.remaining)))
      restored = true
    case .ringing:
      var effects: [Effect] = []
      phaseState = .ringing
      Engine.acknowledge(&self, now: now, effects: &effects, allowAutoStart: false)
      previousPhase = .idle
    }
  }
}
