import PomodoroConfig
import PomodoroCore
import PomodoroDrivers

/// What the device sounds (docs/sound.md): the alarm, the click and the focus's tick, on the
/// active buzzer's line (`BuzzerPlayer`) or, with `buzzer_kind = passive` and a PWM, as notes
/// (`MelodyPlayer`) at the `volume`'s duty. Each change is a deadline of the one loop.
extension Device {
  /// The passive buzzer's output, when the config asks for it and the parts have one.
  var tone: ToneOutput? { config.buzzerKind == .passive ? parts.tone : nil }

  /// The click: 15 ms of C8 (4186 Hz, near a piezo's loudest).
  static let clickTune = Tune(name: "click", notes: [Tune.Note(midi: 108, duration: ms(15))], source: "click")
  /// The tick: 4 ms of C8, at the lowest volume.
  static let tickTune = Tune(name: "tick", notes: [Tune.Note(midi: 108, duration: ms(4))], source: "tick")
  /// The active buzzer's tick: one 2 ms beep.
  static let tickPattern = BuzzerPattern(segments: [.init(on: true, duration: ms(2))], repeats: false)

  /// Whether the alarm sounds (the click and the tick never play over it).
  var alarmSounding: Bool { player.pattern?.repeats == true || (melody.playing && melody.gap != nil) }

  /// The tune for the alarm of the mode that rang.
  func tune(for mode: Mode) -> Tune {
    switch mode.kind {
    case .focus, .flow: return config.alarmTune
    case .rest: return config.breakTune
    case .egg: return config.eggTune
    }
  }

  func startAlarm(at start: Instant) {
    if tone != nil {
      melody.start(tune(for: state.mode), gap: MelodyPlayer.alarmGap, at: start)
    } else {
      player.start(.alarm, at: start)
    }
  }

  func startClick(at now: Instant) {
    if tone != nil {
      melody.start(Self.clickTune, gap: nil, at: now)
    } else {
      player.start(.click, at: now)
    }
  }

  /// The focus's time so far while it runs (a countdown's total less its time left, a flow's
  /// count); nil in any other phase or mode.
  func focusElapsed(at now: Instant) -> Nanoseconds? {
    guard state.phase == .running, state.mode.kind.isFocus else { return nil }
    switch state.count(at: now) {
    case .up(let counted): return counted
    case .down(let remaining, let total): return remaining > 0 ? total - remaining : nil
    }
  }

  /// The next instant after `now` a tick is due (`tick`: each whole second of a running focus;
  /// `fade`, up to its first minute); nil when none is.
  func nextTick(after now: Instant) -> Instant? {
    guard config.tick != .off, let elapsed = focusElapsed(at: now) else { return nil }
    let next = elapsed + (seconds(1) - elapsed % seconds(1))
    if config.tick == .fade && next > seconds(60) { return nil }
    if case .down(let remaining, _) = state.count(at: now), next - elapsed >= remaining { return nil }
    return now + (next - elapsed)
  }

  /// Sounds the tick when one fell due since the last step (never over the alarm or a click,
  /// nor in quiet hours), and notes when the next is due.
  func tickIfDue(at now: Instant) {
    defer { tickAt = nextTick(after: now) }
    guard let due = tickAt, now >= due, focusElapsed(at: now) != nil, quietSince == nil, !alarmSounding else {
      return
    }
    if tone != nil {
      if !melody.playing || melody.pitch(at: now) == nil { melody.start(Self.tickTune, gap: nil, at: due) }
    } else if player.pattern == nil || !player.level(at: now) {
      player.start(Self.tickPattern, at: due)
    }
  }

  /// Puts the passive buzzer's note on the PWM at the volume's duty, telling the observer.
  func driveTone(_ tone: ToneOutput, at now: Instant) {
    let before = melody.written
    let duty = melody.tune == Self.tickTune ? Volume.duty(1) : Volume.duty(config.volume)
    do {
      try melody.drive(tone, duty: duty, at: now)
      buzzerFailed = false
    } catch {
      if !buzzerFailed { log.error("setting the passive buzzer's PWM failed: \(error)") }
      buzzerFailed = true
    }
    if let after = melody.written, before.map({ $0 != after }) ?? true {
      observer?.noteChanged(after, at: now)
      var wasSounding = false
      if case .some(.some) = before { wasSounding = true }
      if wasSounding != (after != nil) { observer?.buzzerChanged(after != nil, at: now) }
    }
  }
}
