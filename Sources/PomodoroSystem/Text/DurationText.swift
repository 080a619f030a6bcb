import PomodoroCore

/// Durations as people write them: `25m`, `1m30s`, `2.5s`, `500ms`, `1h`. Units ms, s, m, h,
/// combinable largest first; a bare number is refused (the unit is part of the meaning). At
/// most 9 decimal places, rounded to the nearest nanosecond; at most 10,000 hours in all. All
/// arithmetic is overflow-checked: any text gives a duration or nil, never a trap.
public enum DurationText {
  /// The longest duration any text may give.
  public static let longest: Nanoseconds = minutes(60 * 10_000)

  public static func parse(_ text: String) -> Nanoseconds? {
    let chars = Array(text.utf8)
    guard !chars.isEmpty else { return nil }
    var total: Nanoseconds = 0
    var i = 0
    var lastRank = Int.max
    while i < chars.count {
      let numberStart = i
      while i < chars.count, isDigit(chars[i]) || chars[i] == UInt8(ascii: ".") { i += 1 }
      let number = chars[numberStart..<i]
      let unitStart = i
      while i < chars.count, isLetter(chars[i]) { i += 1 }
      let unit = String(decoding: chars[unitStart..<i], as: UTF8.self)
      guard !number.isEmpty, let (scale, rank) = units[unit], rank < lastRank else { return nil }
      guard let value = decimal(number, scale: scale) else { return nil }
      lastRank = rank
      let sum = total.addingReportingOverflow(value)
      guard !sum.overflow, sum.partialValue <= longest else { return nil }
      total = sum.partialValue
    }
    return total
  }

  /// `parse`, or nil for `never` (the caller's "no limit"); `.some(nil)` is never, `nil` is bad.
  public static func parseOrNever(_ text: String) -> Nanoseconds?? {
    if text.lowercased() == "never" { return .some(nil) }
    return parse(text).map { .some($0) }
  }

  /// Shortest exact text for a duration, the inverse of `parse` for every duration from 0 to
  /// `longest` (whole milliseconds as `1h2m3s4ms`, the rest as a decimal: `1.000001ms`).
  public static func format(_ d: Nanoseconds) -> String {
    if d == 0 { return "0s" }
    if d < 0 { return "-" + format(d == .min ? .max : -d) }
    var rest = wholeMilliseconds(d)
    let nanos = d % nanosecondsPerMillisecond
    var out = ""
    for (name, size) in [("h", hours(1)), ("m", minutes(1)), ("s", seconds(1))].map({ ($0, wholeMilliseconds($1)) })
    where rest >= size {
      out += "\(rest / size)\(name)"
      rest %= size
    }
    if nanos > 0 {
      var fraction = String(nanos)
      fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      out += "\(rest).\(fraction)ms"
    } else if rest > 0 {
      out += "\(rest)ms"
    }
    return out
  }

  /// `never` for nil, else `format`.
  public static func formatOrNever(_ d: Nanoseconds?) -> String { d.map(format) ?? "never" }

  private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
  private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

  private static let units: [String: (Nanoseconds, Int)] = [
    "h": (minutes(60), 3), "m": (minutes(1), 2), "s": (seconds(1), 1), "ms": (ms(1), 0),
  ]

  /// "2.5" in units of `scale` nanoseconds, exactly (no floating point), the fraction rounded
  /// to the nearest nanosecond; nil on overflow.
  private static func decimal(_ text: ArraySlice<UInt8>, scale: Nanoseconds) -> Nanoseconds? {
    let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard parts.count <= 2, parts[0].count <= 19 else { return nil }
    let whole = parts[0].isEmpty ? 0 : Int64(String(decoding: parts[0], as: UTF8.self))
    guard let whole else { return nil }
    let product = whole.multipliedReportingOverflow(by: scale)
    guard !product.overflow else { return nil }
    guard parts.count == 2 else { return product.partialValue }
    let frac = parts[1]
    guard !frac.isEmpty, frac.count <= 9, let digits = Int64(String(decoding: frac, as: UTF8.self)) else { return nil }
    var divisor: Int64 = 1
    for _ in 0..<frac.count { divisor *= 10 }
    // digits < divisor, so digits * scale / divisor < scale: the 128-bit product divides
    // back into 64 bits.
    let wide = scale.multipliedFullWidth(by: digits)
    let (quotient, remainder) = divisor.dividingFullWidth(wide)
    let rounded = quotient + (remainder * 2 >= divisor ? 1 : 0)
    let sum = product.partialValue.addingReportingOverflow(rounded)
    return sum.overflow ? nil : sum.partialValue
  }
}
