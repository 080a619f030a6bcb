import PomodoroCore

/// Durations as people write them: `25m`, `1m30s`, `2.5s`, `500ms`, `1h`. Units ms, s, m, h,
/// combinable largest first; a bare number is refused (the unit is part of the meaning).
public enum DurationText {
  public static func parse(_ text: String) -> Nanoseconds? {
    let chars = Array(text)
    guard !chars.isEmpty else { return nil }
    var total: Nanoseconds = 0
    var i = 0
    var lastRank = Int.max
    while i < chars.count {
      var number = ""
      while i < chars.count, chars[i].isNumber || chars[i] == "." {
        number.append(chars[i])
        i += 1
      }
      var unit = ""
      while i < chars.count, chars[i].isLetter {
        unit.append(chars[i])
        i += 1
      }
      guard !number.isEmpty, let (scale, rank) = units[unit], rank < lastRank else { return nil }
      guard let value = decimal(number, scale: scale) else { return nil }
      lastRank = rank
      total += value
      if total > hours(10_000) { return nil }
    }
    return total
  }

  /// Shortest exact text for a duration, the inverse of `parse` for whole milliseconds.
  public static func format(_ d: Nanoseconds) -> String {
    if d == 0 { return "0s" }
    var rest = d / 1_000_000
    var out = ""
    for (name, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1_000)] where rest >= size {
      out += "\(rest / size)\(name)"
      rest %= size
    }
    if rest > 0 { out += "\(rest)ms" }
    return out
  }

  private static func hours(_ h: Int64) -> Nanoseconds { minutes(60 * h) }

  private static let units: [String: (Nanoseconds, Int)] = [
    "h": (minutes(60), 3), "m": (minutes(1), 2), "s": (seconds(1), 1), "ms": (ms(1), 0),
  ]

  /// "2.5" in units of `scale` nanoseconds, exactly (no floating point).
  private static func decimal(_ text: String, scale: Nanoseconds) -> Nanoseconds? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, let whole = Int64(parts[0].isEmpty ? "0" : String(parts[0])) else { return nil }
    var value = whole.multipliedReportingOverflow(by: scale)
    guard !value.overflow else { return nil }
    if parts.count == 2 {
      let frac = parts[1]
      guard !frac.isEmpty, frac.count <= 9, let digits = Int64(frac) else { return nil }
      var divisor: Int64 = 1
      for _ in 0..<frac.count { divisor *= 10 }
      value.partialValue += digits * scale / divisor
    }
    return value.partialValue
  }
}
