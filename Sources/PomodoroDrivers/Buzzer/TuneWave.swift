import PomodoroCore

/// What the passive buzzer would play, as sound: `MelodyPlayer`'s stretches (notes, their
/// articulation, rests) as a square wave at the volume's duty, 16-bit mono PCM at 44.1 kHz, in a
/// WAV file (`pomodoro tune NAME --wav FILE`). Pure.
public enum TuneWave {
  public static let sampleRate = 44_100
  /// The wave's height (of 32767): loud enough, with room.
  static let amplitude: Int16 = 12_000

  /// The samples of one pass of `tune` at `volume` (the duty cycle: a narrow pulse sounds thinner,
  /// as on the piezo).
  public static func samples(_ tune: Tune, volume: Int) -> [Int16] {
    let duty = Volume.duty(volume)
    var out: [Int16] = []
    var elapsed: Nanoseconds = 0
    var phase = 0.0
    for segment in MelodyPlayer.segments(tune, gap: nil) {
      let end = elapsed + segment.duration
      // Samples whose instant falls in this stretch: n / rate in [elapsed, end).
      let first = Int((elapsed * Int64(sampleRate) + 999_999_999) / 1_000_000_000)
      let last = Int((end * Int64(sampleRate) + 999_999_999) / 1_000_000_000)
      let frequency = segment.midi.map(Tune.frequency(midi:))
      for _ in first..<last {
        guard let frequency else {
          out.append(0)
          phase = 0
          continue
        }
        out.append(phase < duty ? amplitude : -amplitude)
        phase += frequency / Double(sampleRate)
        phase -= phase.rounded(.down)
      }
      elapsed = end
    }
    return out
  }

  /// A WAV file (RIFF, PCM, 16-bit mono, 44.1 kHz) of `samples`.
  public static func wav(_ samples: [Int16]) -> [UInt8] {
    func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    let data = samples.count * 2
    var bytes: [UInt8] = Array("RIFF".utf8) + le32(36 + data) + Array("WAVE".utf8)
    bytes +=
      Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(sampleRate) + le32(sampleRate * 2) + le16(2)
      + le16(16)
    bytes += Array("data".utf8) + le32(data)
    bytes.reserveCapacity(bytes.count + data)
    for s in samples { bytes += le16(Int(s)) }
    return bytes
  }
}
