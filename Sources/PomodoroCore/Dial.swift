/// Turning the encoder to choose a duration.
///
/// A slow detent (100 ms or more since the previous one) moves one minute, or 5 seconds below
/// 1:00. Faster turning multiplies the step, so both 0:05 and 2:00:00 are a few seconds of
/// turning away from 25:00. The range is 0:05 to 23:59:59, clamped, never wrapping.
public enum Dial {
  public static let shortest: Nanoseconds = seconds(5)
  public static let longest: Nanoseconds = hours(23) + minutes(59) + seconds(59)

  /// How many steps one detent moves, from the time since the previous detent.
  public static func multiplier(sincePrevious gap: Nanoseconds?) -> Int64 {
    guard let gap else { return 1 }
    switch gap {
    case ms(100)...: return 1
    case ms(50)..<ms(100): return 2
    case ms(25)..<ms(50): return 5
    default: return 10
    }
  }

  /// The duration after one detent in `direction` (+1 clockwise, -1 counter-clockwise).
  public static func step(_ duration: Nanoseconds, direction: Int, multiplier: Int64) -> Nanoseconds {
    let minute = minutes(1)
    if direction > 0 {
      if duration < minute {
        // Seconds region: stop at 1:00 so the next detent moves whole minutes.
        return min(minute, duration + multiplier * seconds(5))
      }
      return clamp(duration + multiplier * minute)
    } else {
      if duration > minute {
        // Minutes region: stop at 1:00 so the next detent moves 5 seconds.
        return max(minute, duration - multiplier * minute)
      }
      return clamp(duration - multiplier * seconds(5))
    }
  }

  public static func clamp(_ duration: Nanoseconds) -> Nanoseconds {
    min(longest, max(shortest, duration))
  }
}
