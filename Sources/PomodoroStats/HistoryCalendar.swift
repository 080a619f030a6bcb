import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// `pomodoro history --ics`: the completed focus sessions and flows as an iCalendar file
/// (RFC 5545) that a calendar imports, written a line at a time: `header`, an `event` a record,
/// `footer`. Each content line is folded (`fold`) and ends in CRLF.
///
/// An event is the time the session ran: DTEND its record's `ended`, DTSTART that less
/// `actual_ms` (pauses are not counted apart: the session is shown ending when it ended), both in
/// UTC. SUMMARY is the label, or the mode's name when it has none. UID is made of the record
/// alone (its end, mode and length), so exporting again gives the same events and a calendar
/// updates them rather than adding copies; DTSTAMP is the record's end for the same reason (the
/// moment the event's information was last revised: the record never changes).
public enum HistoryCalendar {
  /// The domain-like part of every UID.
  public static let uidDomain = "pomodoro.invalid"
  /// The longest content line in octets, CRLF not counted (RFC 5545 3.1).
  public static let lineOctets = 75

  /// The calendar's opening lines (unfolded).
  public static func header(version: String = Release.version) -> [String] {
    // No METHOD: without one, DTSTAMP is when an event's information was last revised (RFC 5545
    // 3.8.7.2), which for a record that never changes is its end.
    ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pomodoro//pomodoro \(version)//EN", "CALSCALE:GREGORIAN"]
  }

  public static let footer = ["END:VCALENDAR"]

  /// Whether a record becomes an event: a completed focus session or flow, recorded on a wall
  /// clock that was set (one recorded before may carry any date, 1970 among them).
  public static func includes(_ entry: HistoryEntry) -> Bool { entry.isCompletedFocus && entry.ended.synced }

  /// The record's VEVENT (unfolded lines), or nil when `includes` leaves it out.
  public static func event(_ e: HistoryEntry) -> [String]? {
    guard includes(e) else { return nil }
    let end = e.ended.epochSeconds
    let start = end - (e.actualMs + 500) / 1000
    var lines = [
      "BEGIN:VEVENT", "UID:\(uid(e))", "DTSTAMP:\(utc(end))", "DTSTART:\(utc(start))", "DTEND:\(utc(end))",
      "SUMMARY:\(escape(e.label?.text ?? e.mode.displayName))",
    ]
    var about = "\(e.mode.displayName), \(formatShortClock(e.actualMs / 1000))"
    if e.interruptions.total > 0 {
      about += "; interruptions: \(e.interruptions.internal) internal, \(e.interruptions.external) external"
    }
    lines.append("DESCRIPTION:\(escape(about))")
    lines.append("CATEGORIES:\(escape(e.mode.displayName))")
    lines.append("TRANSP:OPAQUE")
    lines.append("END:VEVENT")
    return lines
  }

  /// Stable across exports: the record's end in UTC, its mode and its length in milliseconds.
  public static func uid(_ e: HistoryEntry) -> String {
    "\(utc(e.ended.epochSeconds))-\(e.mode.rawValue)-\(e.actualMs)@\(uidDomain)"
  }

  /// An instant as iCalendar's UTC DATE-TIME: `20261130T150005Z`.
  public static func utc(_ epochSeconds: Int64) -> String {
    let iso = WallTime(epochSeconds: epochSeconds, synced: true).iso8601  // 2026-11-30T15:00:05Z
    return String(iso.filter { $0 != "-" && $0 != ":" })
  }

  /// TEXT escaped (RFC 5545 3.3.11): backslash, semicolon, comma and a line break.
  public static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\"
      case ";": out += "\\;"
      case ",": out += "\\,"
      case "\n": out += "\\n"
      case "\r": continue
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// A content line folded as RFC 5545 3.1 says: no physical line longer than `lineOctets`
  /// octets (the leading space of a continuation included), never inside a UTF-8 character;
  /// the physical lines joined by CRLF, without a final one.
  public static func fold(_ line: String) -> String {
    let bytes = Array(line.utf8)
    guard bytes.count > lineOctets else { return line }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + bytes.count / 30 * 3)
    var i = 0
    var room = lineOctets
    while i < bytes.count {
      var end = min(bytes.count, i + room)
      // Back off to the start of a character: a continuation byte is 10xxxxxx.
      while end < bytes.count, end > i, bytes[end] & 0xC0 == 0x80 { end -= 1 }
      if i > 0 { out += [0x0D, 0x0A, 0x20] }
      out += bytes[i..<end]
      i = end
      room = lineOctets - 1
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// A whole calendar of `entries` (those `includes` takes), CRLF line ends: what `history --ics`
  /// writes, built in memory for tests.
  public static func document(_ entries: [HistoryEntry], version: String = Release.version) -> String {
    let lines = header(version: version) + entries.compactMap(event).flatMap { $0 } + footer
    return lines.map { fold($0) + "\r\n" }.joined()
  }
}
