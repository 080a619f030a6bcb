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

  /// Parses what `iso8601` writes, exactly `YYYY-MM-DDTHH:MM:SSZ`; an impossible date or time
  /// (`2026-13-45T99:99:99Z`, February 30th) is refused, never rolled over.
  public init?(iso8601 text: String, synced: Bool) {
    let b = Array(text.utf8)
    guard b.count == 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
      b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ from: Int, _ count: Int) -> Int32? {
      var n: Int32 = 0
      for c in b[from..<from + count] {
        guard c >= 0x30, c <= 0x39 else { return nil }
        n = n * 10 + Int32(c - 0x30)
      }
      return n
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
      let minute = number(14, 2), let second = number(17, 2), year >= 1970, (1...12).contains(month),
      (1...31).contains(day), hour < 24, minute < 60, second < 60
    else { return nil }
    var parts = tm()
    parts.tm_year = year - 1900
    parts.tm_mon = month - 1
    parts.tm_mday = day
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = second
    let epoch = Int64(timegm(&parts))
    // timegm normalises 30 February to 2 March: a date that moved did not exist.
    guard parts.tm_mday == day, parts.tm_mon == month - 1 else { return nil }
    self.init(epochSeconds: epoch, synced: synced)
  }
}
