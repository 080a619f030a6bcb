import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// What the device sounds (docs/sound.md): the alarm of the mode that rang, the click and the
/// focus's tick, through the fitted buzzer's `Voice`. Each change is a deadline of the one loop.
package struct DeviceSound {
  private var voice: any Voice
  /// When the focus's next tick is due, as the last step found it.
  private var tickAt: Instant?
  /// The last write failed (said once until one succeeds).
  private var failing = false

  /// The passive buzzer where the config asks for it and the parts have one, else the active.
  package init(parts: DeviceParts, kind: BuzzerKind) {
    if kind == .passive, let tone = parts.tone {
      self.init(ToneVoice(tone))
    } else {
      self.init(LineVoice(parts.buzzer))
    }
  }

  package init(_ voice: any Voice) { self.voice = voice }

  /// Whether the alarm sounds (the click and the tick never play over it).
  package var alarmSounding: Bool { voice.alarmSounding }

  /// The alarm of `mode`, from `start` until `stopAlarm`.
  package mutating func alarm(_ mode: Mode, tunes config: DeviceConfig, at start: Instant) {
    let tune: Tune
    switch mode.kind {
    case .focus, .flow: tune = config.alarmTune
    case .rest: tune = config.breakTune
    case .egg: tune = config.eggTune
    }
    voice.alarm(tune, at: start)
  }

  package mutating func stopAlarm() { voice.stop() }

  /// The click, never over the alarm.
  package mutating func click(at now: Instant) {
    if !alarmSounding { voice.click(at: now) }
  }

  /// Sounds the tick when one fell due since the last step (never over the alarm or a click, nor
  /// in quiet hours), and notes when the next is due.
  package mutating func tickIfDue(_ state: EngineState, tick: Tick, quiet: Bool, at now: Instant) {
    defer { tickAt = Self.nextTick(state, tick: tick, after: now) }
    guard let due = tickAt, now >= due, Self.focusElapsed(state, at: now) != nil, !quiet, !alarmSounding else {
      return
    }
    voice.tick(due: due, now: now)
  }

  /// When what sounds changes next, or the next tick is due.
  package func nextChange(after now: Instant) -> Instant? {
    [voice.nextChange(after: now), tickAt].compactMap { $0 }.min()
  }

  /// Puts what sounds now on the buzzer; what changed, for the observer. A failed write is said
  /// once (until one succeeds); the timer keeps time meanwhile.
  package mutating func drive(volume: Int, at now: Instant, log: Log) -> [VoiceChange] {
    do {
      let changes = try voice.drive(volume: volume, at: now)
      failing = false
      return changes
    } catch {
      if !failing { log.error(voice.failure(error)) }
      failing = true
      return []
    }
  }

  /// Silent at once (start, exit).
  package mutating func silence() { try? voice.silence() }

  /// The focus's time so far while it runs (a countdown's total less its time left, a flow's
  /// count); nil in any other phase or mode.
  package static func focusElapsed(_ state: EngineState, at now: Instant) -> Nanoseconds? {
    guard state.phase == .running, state.mode.kind.isFocus else { return nil }
    switch state.count(at: now) {
    case .up(let counted): return counted
    case .down(let remaining, let total): return remaining > 0 ? total - remaining : nil
    }
  }

  /// The next instant after `now` a tick is due (`tick`: each whole second of a running focus;
  /// `fade`, up to its first minute); nil when none is.
  package static func nextTick(_ state: EngineState, tick: Tick, after now: Instant) -> Instant? {
    guard tick != .off, let elapsed = focusElapsed(state, at: now) else { return nil }
    let next = elapsed + (seconds(1) - elapsed % seconds(1))
    if tick == .fade && next > seconds(60) { return nil }
    if case .down(let remaining, _) = state.count(at: now), next - elapsed >= remaining { return nil }
    return now + (next - elapsed)
  }
}
