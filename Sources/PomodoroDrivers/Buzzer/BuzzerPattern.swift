import PomodoroCore

/// A buzzer pattern: on/off segments played in order, once or over and over.
/// Levels are logical (`true` = sounding); the output line applies the wiring's polarity.
public struct BuzzerPattern: Equatable, Sendable {
  /// One stretch of the pattern.
  public struct Segment: Equatable, Sendable {
    public var on: Bool
    public var duration: Nanoseconds

    public init(on: Bool, duration: Nanoseconds) {
      self.on = on
      self.duration = duration
    }
  }

  public var segments: [Segment]
  /// Start again from the first segment after the last one.
  public var repeats: Bool

  /// - Precondition: every segment lasts longer than zero.
  public init(segments: [Segment], repeats: Bool) {
    precondition(segments.allSatisfy { $0.duration > 0 }, "buzzer segments must last longer than zero")
    self.segments = segments
    self.repeats = repeats
  }

  /// One pass of the pattern.
  public var period: Nanoseconds { segments.reduce(0) { $0 + $1.duration } }

  /// The alarm: beep-beep-beep (100 ms each, 100 ms apart), a 700 ms pause, repeated.
  public static let alarm = BuzzerPattern(
    segments: [
      Segment(on: true, duration: ms(100)), Segment(on: false, duration: ms(100)),
      Segment(on: true, duration: ms(100)), Segment(on: false, duration: ms(100)),
      Segment(on: true, duration: ms(100)), Segment(on: false, duration: ms(700)),
    ],
    repeats: true
  )

  /// A click for key presses: one 15 ms beep, once.
  public static let click = BuzzerPattern(segments: [Segment(on: true, duration: ms(15))], repeats: false)
}
