import PomodoroSystem

/// The hours of the night when the idle panel goes dark and the click is silent
/// (`quiet_hours = 22:00-07:00`, local time): from `start` up to `end`, spanning midnight when
/// `end` is earlier. Minutes of the local day, 0 ... 1439; never equal (an empty window).
public struct QuietHours: Equatable, Sendable {
  public var start: Int
  public var end: Int

  public init?(start: Int, end: Int) {
    guard (0..<1440).contains(start), (0..<1440).contains(end), start != end else { return nil }
    self.start = start
    self.end = end
  }

  /// Whether the local minute of the day `minute` is inside the window.
  public func contains(minute: Int) -> Bool {
    start < end ? (start..<end).contains(minute) : minute >= start || minute < end
  }

  /// Whether `wall` is inside the window, and the epoch second of the next boundary (the end
  /// when inside, the start when not): the loop's deadline, found from the wall clock's local
  /// time the way "today" is.
  public func at(_ wall: WallTime) -> (quiet: Bool, boundary: Int64) {
    let quiet = contains(minute: wall.localSecondOfDay / 60)
    return (quiet, wall.nextLocal(minuteOfDay: quiet ? end : start))
  }

  /// `22:00-07:00`.
  public var text: String { "\(Self.clock(start))-\(Self.clock(end))" }

  static func clock(_ minute: Int) -> String {
    let m = minute % 60
    return "\(minute / 60 < 10 ? "0" : "")\(minute / 60):\(m < 10 ? "0" : "")\(m)"
  }

  /// Reads `HH:MM-HH:MM` (one-digit hours too: `7:00`); nil, or why not, for anything else.
  public static func parse(_ text: String) -> Result<QuietHours, Refusal> {
    let halves = text.split(separator: "-", omittingEmptySubsequences: false)
    guard halves.count == 2 else {
      return .failure(.init("'\(TextLines.visible(text))' is not two times of day joined by '-'"))
    }
    var minutes: [Int] = []
    for half in halves {
      let t = TextLines.trimmed(half)
      guard let m = minuteOfDay(t) else {
        return .failure(
          .init("'\(TextLines.visible(String(t)))' is no time of day (hours 0 to 23, minutes 00 to 59, like 07:00)"))
      }
      minutes.append(m)
    }
    guard let hours = QuietHours(start: minutes[0], end: minutes[1]) else {
      return .failure(.init("'\(TextLines.visible(text))' starts and ends at the same time; for no quiet hours: off"))
    }
    return .success(hours)
  }

  /// `H:MM` or `HH:MM` as minutes of the day.
  public static func minuteOfDay<S: StringProtocol>(_ t: S) -> Int? {
    let parts = t.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
      parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
      let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60
    else { return nil }
    return h * 60 + m
  }

  /// Why a value was refused, for the config's message.
  public struct Refusal: Error, Equatable {
    public var message: String
    init(_ message: String) { self.message = message }
  }
}

/// What the idle panel does in quiet hours (`quiet_panel`): goes dark, or stays lit at the
/// lowest contrast.
public enum QuietPanel: String, CaseIterable, Sendable {
  case off, dim
}
