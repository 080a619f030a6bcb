import PomodoroCore
import PomodoroSystem

/// A calendar date with no time of day and no time zone, counted in days since 1970-01-01, so
/// that "the next day" and "the Monday of its week" are plain arithmetic (DST plays no part).
public struct CivilDay: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Days since 1970-01-01 (negative before it).
  public var ordinal: Int

  public init(ordinal: Int) { self.ordinal = ordinal }

  /// The date `year`-`month`-`day` of the proleptic Gregorian calendar.
  public init(year: Int, month: Int, day: Int) {
    // Howard Hinnant's days_from_civil.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    ordinal = era * 146_097 + doe - 719_468
  }

  /// The date written as yyyy*10000 + mm*100 + dd (what `WallTime.localDay` gives).
  public init(yyyymmdd: Int) {
    self.init(year: yyyymmdd / 10000, month: yyyymmdd / 100 % 100, day: yyyymmdd % 100)
  }

  /// (year, month 1...12, day 1...31).
  public var date: (year: Int, month: Int, day: Int) {
    let z = ordinal + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// 0 for Monday ... 6 for Sunday (1970-01-01 was a Thursday).
  public var weekday: Int { ((ordinal + 3) % 7 + 7) % 7 }

  /// The Monday of this day's week (weeks start on Monday).
  public var monday: CivilDay { adding(-weekday) }

  public func adding(_ days: Int) -> CivilDay { CivilDay(ordinal: ordinal + days) }

  public static func < (a: CivilDay, b: CivilDay) -> Bool { a.ordinal < b.ordinal }

  public static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
  public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  /// 2026-11-30.
  public var description: String {
    let d = date
    func pad(_ v: Int, _ n: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, n - s.count)) + s
    }
    return "\(pad(d.year, 4))-\(pad(d.month, 2))-\(pad(d.day, 2))"
  }
}

extension WallTime {
  /// The local calendar day of this instant (the day the device's "today" dots count).
  public var localCivilDay: CivilDay { CivilDay(yyyymmdd: localDay) }
}
