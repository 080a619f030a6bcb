import CPomodoroSystem

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The wall clock, used only to label history records, never to count time. A Pi has no RTC:
/// until NTP has set the clock after boot, records are marked unsynced.
public struct WallTime: Equatable, Sendable {
  /// Seconds since the epoch (UTC).
  public var epochSeconds: Int64
  /// True when the kernel says the clock is synchronised (adjtimex has no STA_UNSYNC).
  public var synced: Bool

  public init(epochSeconds: Int64, synced: Bool) {
    self.epochSeconds = epochSeconds
    self.synced = synced
  }

  public static func now() -> WallTime {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return WallTime(epochSeconds: Int64(ts.tv_sec), synced: clockIsSynchronised())
  }

  static func clockIsSynchronised() -> Bool { pomo_clock_synced() == 1 }

  /// ISO 8601 in UTC: 2026-11-30T16:40:05Z.
  public var iso8601: String {
    var t = time_t(epochSeconds)
    var parts = tm()
    gmtime_r(&t, &parts)
    func pad(_ v: Int32, _ n: Int = 2) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, n - s.count)) + s
    }
    return
      "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
  }

  /// The local calendar day, as yyyy*10000 + mm*100 + dd, for "today's" count.
  public var localDay: Int {
    var t = time_t(epochSeconds)
    var parts = tm()
    localtime_r(&t, &parts)
    return Int(parts.tm_year + 1900) * 10000 + Int(parts.tm_mon + 1) * 100 + Int(parts.tm_mday)
  }

  /// Parses what `iso8601` writes.
  public init?(iso8601 text: String, synced: Bool) {
    let digits = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int32($0) }
    guard digits.count == 6, text.hasSuffix("Z") else { return nil }
    var parts = tm()
    parts.tm_year = digits[0] - 1900
    parts.tm_mon = digits[1] - 1
    parts.tm_mday = digits[2]
    parts.tm_hour = digits[3]
    parts.tm_min = digits[4]
    parts.tm_sec = digits[5]
    self.init(epochSeconds: Int64(timegm(&parts)), synced: synced)
  }
}
