import PomodoroCore
import PomodoroDrivers

/// What sounds the device's alarm, click and tick: one interface whichever buzzer is fitted, so
/// that nothing above it asks. `LineVoice` is the active buzzer on its line (on or off, in
/// patterns: `BuzzerPlayer`); `ToneVoice` the passive one on a PWM (notes: `MelodyPlayer`). Each
/// is pure but for `drive` and `silence`, which write their output, only what changed.
package protocol Voice {
  /// Plays `tune` (a passive buzzer's) or the alarm pattern (an active one's) until `stop`.
  mutating func alarm(_ tune: Tune, at: Instant)
  /// A 15 ms click from `at`.
  mutating func click(at: Instant)
  /// The focus's tick due at `due`, unless something sounds at `now`.
  mutating func tick(due: Instant, now: Instant)
  /// Silent from now on (the next `drive` writes it).
  mutating func stop()
  /// Whether the alarm plays (the click and the tick never play over it).
  var alarmSounding: Bool { get }
  /// The first instant after `now` at which what sounds changes.
  func nextChange(after now: Instant) -> Instant?
  /// Puts what sounds at `now` on the output (a passive buzzer at `volume`); what changed.
  mutating func drive(volume: Int, at now: Instant) throws -> [VoiceChange]
  /// Stops and silences the output at once (start, exit).
  mutating func silence() throws
  /// The journal's words for a failed write.
  func failure(_ error: Error) -> String
}

/// What a `drive` changed, for the device's observer.
package enum VoiceChange: Equatable {
  /// The buzzer started or stopped sounding.
  case sounding(Bool)
  /// The passive buzzer's note (a MIDI number; nil: silent).
  case note(Int?)
}

extension DeviceObserver {
  /// Tells the observer what a `drive` changed.
  package func heard(_ changes: [VoiceChange], at now: Instant) {
    for change in changes {
      switch change {
      case .sounding(let on): buzzerChanged(on, at: now)
      case .note(let midi): noteChanged(midi, at: now)
      }
    }
  }
}

/// The active buzzer: its own oscillator, on or off on the buzzer line.
package struct LineVoice: Voice {
  let line: OutputLine
  private var player = BuzzerPlayer()

  package init(_ line: OutputLine) { self.line = line }

  /// The active buzzer's tick: one 2 ms beep.
  package static let tickPattern = BuzzerPattern(segments: [.init(on: true, duration: ms(2))], repeats: false)

  package mutating func alarm(_ tune: Tune, at start: Instant) { player.start(.alarm, at: start) }
  package mutating func click(at now: Instant) { player.start(.click, at: now) }
  package mutating func tick(due: Instant, now: Instant) {
    if player.pattern == nil || !player.level(at: now) { player.start(Self.tickPattern, at: due) }
  }
  package mutating func stop() { player.stop() }
  package var alarmSounding: Bool { player.pattern?.repeats == true }
  package func nextChange(after now: Instant) -> Instant? { player.nextChange(after: now) }

  package mutating func drive(volume: Int, at now: Instant) throws -> [VoiceChange] {
    let before = player.lineLevel
    try player.drive(line, at: now)
    guard let after = player.lineLevel, after != before else { return [] }
    return [.sounding(after)]
  }

  package mutating func silence() throws { try player.silence(line) }
  package func failure(_ error: Error) -> String { "setting the buzzer line failed: \(HardwareAdvice.text(error))" }
}

/// The passive buzzer: a piezo on a PWM, playing the tunes (docs/sound.md) at the `volume`'s duty.
package struct ToneVoice: Voice {
  let output: ToneOutput
  private var melody = MelodyPlayer()

  package init(_ output: ToneOutput) { self.output = output }

  /// The click: 15 ms of C8 (4186 Hz, near a piezo's loudest).
  package static let clickTune = Tune(name: "click", notes: [Tune.Note(midi: 108, duration: ms(15))], source: "click")
  /// The tick: 4 ms of C8, at the lowest volume.
  package static let tickTune = Tune(name: "tick", notes: [Tune.Note(midi: 108, duration: ms(4))], source: "tick")

  package mutating func alarm(_ tune: Tune, at start: Instant) {
    melody.start(tune, gap: MelodyPlayer.alarmGap, at: start)
  }
  package mutating func click(at now: Instant) { melody.start(Self.clickTune, gap: nil, at: now) }
  package mutating func tick(due: Instant, now: Instant) {
    if !melody.playing || melody.pitch(at: now) == nil { melody.start(Self.tickTune, gap: nil, at: due) }
  }
  package mutating func stop() { melody.stop() }
  package var alarmSounding: Bool { melody.playing && melody.gap != nil }
  package func nextChange(after now: Instant) -> Instant? { melody.nextChange(after: now) }

  package mutating func drive(volume: Int, at now: Instant) throws -> [VoiceChange] {
    let before = melody.written
    let duty = melody.tune == Self.tickTune ? Volume.duty(1) : Volume.duty(volume)
    try melody.drive(output, duty: duty, at: now)
    guard let after = melody.written, before.map({ $0 != after }) ?? true else { return [] }
    var changes: [VoiceChange] = [.note(after)]
    var wasSounding = false
    if case .some(.some) = before { wasSounding = true }
    if wasSounding != (after != nil) { changes.append(.sounding(after != nil)) }
    return changes
  }

  package mutating func silence() throws { try melody.silence(output) }
  package func failure(_ error: Error) -> String { "setting the passive buzzer's PWM failed: \(error)" }
}
