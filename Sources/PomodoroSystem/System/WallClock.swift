import CPomodoroSystem

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
    let year = Int(parts.tm_year) + 1900
    // Written digit by digit into 20 bytes: `history` writes a million of these.
    var b: [UInt8] = Array("0000-00-00T00:00:00Z".utf8)
    func put(_ value: Int, at end: Int, digits: Int) {
      var v = value
      for i in 0..<digits {
        b[end - i] = 0x30 + UInt8(v % 10)
        v /= 10
      }
    }
    guard (0...9999).contains(year) else { return "\(year)-" + String(decoding: b[5...], as: UTF8.self) }
    put(year, at: 3, digits: 4)
    put(Int(parts.tm_mon) + 1, at: 6, digits: 2)
    put(Int(parts.tm_mday), at: 9, digits: 2)
    put(Int(parts.tm_hour), at: 12, digits: 2)
    put(Int(parts.tm_min), at: 15, digits: 2)
    put(Int(parts.tm_sec), at: 18, digits: 2)
    return String(decoding: b, as: UTF8.self)
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
    var text = text
    guard let parsed = text.withUTF8({ WallTime(iso8601Bytes: UnsafeBufferPointer(rebasing: $0[...]), synced: synced) })
    else { return nil }
    self = parsed
  }

  /// `init(iso8601:synced:)` over the text's UTF-8 bytes.
  public init?(iso8601Bytes b: UnsafeBufferPointer<UInt8>, synced: Bool) {
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

extension WallTime {
  /// The local time of day of this instant, in seconds from local midnight (0 ... 86399; a
  /// leap second reads as 86399).
  public var localSecondOfDay: Int {
    var t = time_t(epochSeconds)
    var parts = tm()
    localtime_r(&t, &parts)
    return min(86399, Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec))
  }

  /// The epoch second of the local time `minuteOfDay` (0 ... 1439) on this instant's local day
  /// (`mktime`: a time a DST change skips is taken as the time after the gap).
  public func localToday(minuteOfDay: Int) -> Int64 { local(minuteOfDay: minuteOfDay, daysLater: 0) }

  /// The first epoch second after this instant whose local time is `minuteOfDay` (0 ... 1439):
  /// today's, or tomorrow's once today's has passed. Always later than this instant.
  public func nextLocal(minuteOfDay: Int) -> Int64 {
    let today = local(minuteOfDay: minuteOfDay, daysLater: 0)
    if today > epochSeconds { return today }
    let tomorrow = local(minuteOfDay: minuteOfDay, daysLater: 1)
    // A clock or zone so odd that tomorrow is not later: a minute on, and looked at again then.
    return tomorrow > epochSeconds ? tomorrow : epochSeconds + 60
  }

  func local(minuteOfDay: Int, daysLater: Int32) -> Int64 {
    var t = time_t(epochSeconds)
    var parts = tm()
    localtime_r(&t, &parts)
    let minute = min(max(minuteOfDay, 0), 1439)
    parts.tm_hour = Int32(minute / 60)
    parts.tm_min = Int32(minute % 60)
    parts.tm_sec = 0
    parts.tm_mday += daysLater
    parts.tm_isdst = -1
    return Int64(mktime(&parts))
  }
}
