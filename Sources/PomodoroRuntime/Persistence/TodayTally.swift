import PomodoroControl
import PomodoroCore

/// Today's completed focus sessions, counted from the history's end backwards (a pure fold).
/// Records are appended in time order, so the first record of an earlier day that was made on
/// a synchronised clock ends today's stretch: nothing before it is read. A record made before
/// the clock was synchronised (`clock_synced` false: 1970, or the last shutdown's time) may
/// carry any day, so it neither ends the stretch nor is left out: like every record, it counts
/// when its day is today's.
public struct TodayTally: Equatable, Sendable {
  /// The local day counted (`WallTime.localDay`).
  public let day: Int
  public private(set) var completed = 0

  public init(day: Int) { self.day = day }

  /// Counts `entry` if it is a completed focus session (`SessionRecord.isCompletedFocus`) of the day.
  public mutating func count(_ entry: HistoryEntry) {
    if SessionRecord.isCompletedFocus(entry.mode, entry.outcome), entry.ended.localDay == day { completed += 1 }
  }

  /// Takes the record before those taken so far; false when it ends today's stretch (read no
  /// further).
  public mutating func take(_ entry: HistoryEntry) -> Bool {
    let counts = SessionRecord.isCompletedFocus(entry.mode, entry.outcome)
    guard entry.ended.synced || counts else { return true }
    let entryDay = entry.ended.localDay  // localtime_r once a line: a full read does a million
    if entry.ended.synced, entryDay < day { return false }
    if counts, entryDay == day { completed += 1 }
    return true
  }
}
