import PomodoroCore

/// Plays a `Tune` on a monotonic schedule, as `BuzzerPlayer` plays a pattern: pure, it says which
/// pitch sounds at any instant and when that next changes (each note's end is a deadline of the
/// one loop, never a sleep); `drive(_:duty:at:)` puts it on a `ToneOutput`, writing only changes.
///
/// A sounding note is held for its length less an eighth (at most 30 ms), then silent for the
/// rest, so repeated notes are heard apart. A repeating tune starts again after `gap`.
public struct MelodyPlayer: Sendable {
  /// One stretch: a pitch (MIDI number; nil: silent) for a duration.
  public struct Segment: Equatable, Sendable {
    public var midi: Int?
    public var duration: Nanoseconds
  }

  public private(set) var tune: Tune?
  public private(set) var segments: [Segment] = []
  public private(set) var startedAt: Instant = .zero
  /// The pause before the tune starts again; nil: played once.
  public private(set) var gap: Nanoseconds?
  /// What `drive` last put on the output: a pitch, or nil when silent (`.none` before any write).
  public private(set) var written: Int??

  public init() {}

  /// The pause between two passes of a repeating alarm tune.
  public static let alarmGap: Nanoseconds = ms(800)

  /// The stretches one pass of `tune` plays: each note, its articulation, and `gap` at the end.
  public static func segments(_ tune: Tune, gap: Nanoseconds?) -> [Segment] {
    var out: [Segment] = []
    func add(_ midi: Int?, _ duration: Nanoseconds) {
      guard duration > 0 else { return }
      if let last = out.last, last.midi == midi {
        out[out.count - 1].duration += duration
      } else {
        out.append(Segment(midi: midi, duration: duration))
      }
    }
    for note in tune.notes {
      if let midi = note.midi {
        let rest = min(note.duration / 8, ms(30))
        add(midi, note.duration - rest)
        add(nil, rest)
      } else {
        add(nil, note.duration)
      }
    }
    if let gap { add(nil, gap) }
    return out
  }

  /// Starts `tune` from its first note at `now`, replacing whatever played; `gap` nil: once.
  public mutating func start(_ tune: Tune, gap: Nanoseconds?, at now: Instant) {
    self.tune = tune
    self.gap = gap
    segments = Self.segments(tune, gap: gap)
    startedAt = now
  }

  /// Stops: silent from now on (the next `drive` silences the output).
  public mutating func stop() {
    tune = nil
    segments = []
  }

  /// Whether a tune is playing or due (a one-shot tune still counts until `stop`).
  public var playing: Bool { tune != nil }

  /// The pitch sounding at `now`; nil when silent.
  public func pitch(at now: Instant) -> Int? {
    locate(now)?.0.midi
  }

  /// The first instant after `now` at which the pitch changes; nil if it never does.
  public func nextChange(after now: Instant) -> Instant? {
    guard tune != nil, !segments.isEmpty else { return nil }
    if now < startedAt { return pitch(at: startedAt) != nil ? startedAt : nextChange(after: startedAt) }
    guard let (_, end) = locate(now) else { return nil }
    let current = pitch(at: now)
    var t = end
    let limit = end + period + 1
    while t <= limit {
      if pitch(at: t) != current { return t }
      guard let (_, next) = locate(t) else { return pitch(at: t) != current ? t : nil }
      t = next
    }
    return nil
  }

  /// Puts the pitch at `now` on `output` at `duty` (the volume) if it differs from the last write.
  public mutating func drive(_ output: ToneOutput, duty: Double, at now: Instant) throws {
    let want = pitch(at: now)
    if case .some(let had) = written, had == want { return }
    if let want {
      try output.set(frequencyHz: Tune.frequency(midi: want), duty: duty)
    } else {
      try output.silence()
    }
    written = .some(want)
  }

  /// Stops and silences the output (acknowledgement, exit).
  public mutating func silence(_ output: ToneOutput) throws {
    stop()
    written = .some(nil)
    try output.silence()
  }

  private var period: Nanoseconds { segments.reduce(0) { $0 + $1.duration } }

  private func locate(_ now: Instant) -> (Segment, Instant)? {
    guard tune != nil, now >= startedAt else { return nil }
    let period = self.period
    guard period > 0 else { return nil }
    var offset = now - startedAt
    if offset >= period {
      guard gap != nil else { return nil }
      offset %= period
    }
    let passStart = now - offset
    var t: Nanoseconds = 0
    for segment in segments {
      t += segment.duration
      if offset < t { return (segment, passStart + t) }
    }
    return nil
  }
}
