import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What `pomodoro stats` shows, computed from the history alone (pure: "today" and the way an
/// instant maps to a local day are given).
///
/// Focus counts only completed focus sessions and flows (a flow is focus that counts up: its
/// minutes are focus minutes, in the totals, the heatmap and the streaks; `flow` counts them
/// apart as well); focus minutes are their `actual_ms`. Completed
/// breaks and egg timers are counted apart; cancelled sessions of any mode apart again. A
/// session recorded before the wall clock was set (`clock_synced: false`) has a date that
/// cannot be trusted: it is counted by its order in the file, on the day of the next session
/// recorded with the clock set; those after the last such session are not placed on any day
/// (they count only in the all-time totals).
public struct HistoryStats: Equatable, Sendable {
  /// A number of sessions and the time they counted down.
  public struct Count: Equatable, Sendable {
    public var sessions = 0
    public var ms: Int64 = 0
    public init(sessions: Int = 0, ms: Int64 = 0) {
      self.sessions = sessions
      self.ms = ms
    }
    /// Whole minutes, rounded to the nearest (without adding: `ms` may be as large as it gets).
    public var minutes: Int64 { ms / msPerMinute + (ms % msPerMinute >= msPerMinute / 2 ? 1 : 0) }
    public mutating func add(_ entry: HistoryEntry) {
      sessions += 1
      ms = HistoryStats.sum(ms, entry.actualMs)
    }
    mutating func merge(_ other: Count) {
      sessions += other.sessions
      ms = HistoryStats.sum(ms, other.ms)
    }
  }

  /// The sessions of one period, by kind.
  public struct Tally: Equatable, Sendable {
    /// Completed focus sessions and flows.
    public var focus = Count()
    /// Completed flows (counted in `focus` too).
    public var flow = Count()
    /// Completed short and long breaks.
    public var breaks = Count()
    /// Completed egg timers (soft, medium, hard).
    public var eggs = Count()
    /// Cancelled sessions of any mode.
    public var cancelled = Count()
    public init() {}
    public mutating func add(_ entry: HistoryEntry) {
      if entry.outcome == .cancelled {
        cancelled.add(entry)
      } else {
        switch entry.mode.kind {
        case .focus: focus.add(entry)
        case .flow:
          focus.add(entry)
          flow.add(entry)
        case .egg: eggs.add(entry)
        case .rest: breaks.add(entry)
        }
      }
    }
    mutating func merge(_ other: Tally) {
      focus.merge(other.focus)
      flow.merge(other.flow)
      breaks.merge(other.breaks)
      eggs.merge(other.eggs)
      cancelled.merge(other.cancelled)
    }
  }

  public var today: CivilDay
  /// The Monday of today's week.
  public var weekStart: CivilDay { today.monday }
  public var todayTally = Tally()
  /// Monday to today.
  public var weekTally = Tally()
  /// Every readable entry, placed on a day or not.
  public var allTally = Tally()
  /// Days in a row with a completed focus session, ending today, or yesterday when today has none yet.
  public var currentStreak = 0
  /// The longest such run in the whole history (up to today).
  public var longestStreak = 0
  /// Whether `currentStreak` includes today.
  public var streakIncludesToday = false
  /// The daily goal the days are measured against (the `daily_goal` key now); 0: none, and the
  /// goal's figures stay 0.
  public var goal = 0
  /// Days (up to today) with at least `goal` completed focus sessions.
  public var goalDays = 0
  /// Days in a row with the goal met, ending today, or yesterday while today's is not met yet.
  public var goalStreak = 0
  /// Whether `goalStreak` includes today.
  public var goalStreakIncludesToday = false
  /// The longest run of days with the goal met.
  public var longestGoalStreak = 0
  /// The heatmap's span: `heatmapFocusMs[i]` is the focus time of `heatmapStart.adding(i)`; the last is today.
  public var heatmapStart: CivilDay
  public var heatmapFocusMs: [Int64]
  /// Sessions recorded before the wall clock was set, placed on the next synced session's day.
  public var unsyncedPlaced = 0
  /// Sessions recorded before the wall clock was set with no synced session after them: on no day.
  public var unsyncedUnplaced = 0
  /// Line numbers of the history lines that could not be read (the first `damagedLinesShown`).
  public var damagedLines: [Int] = []

  /// True when the history holds no readable session.
  public var isEmpty: Bool { entryCount == 0 }
  public var entryCount: Int {
    allTally.focus.sessions + allTally.breaks.sessions + allTally.eggs.sessions + allTally.cancelled.sessions
  }

  /// The statistics of `entries` (in file order) as of `today`, with a heatmap of the `days`
  /// days ending today. `dayOf` gives an instant's local calendar day.
  public init(
    entries: [HistoryEntry], damagedLines: [Int] = [], today: CivilDay, days: Int = 84, goal: Int = 0,
    dayOf: @escaping (WallTime) -> CivilDay = { $0.localCivilDay }
  ) {
    var builder = Builder(today: today, days: days, goal: goal, dayOf: dayOf)
    for entry in entries { builder.add(entry) }
    for line in damagedLines { builder.damaged(line) }
    self = builder.finish()
  }

  /// The damaged lines' numbers kept for the report; past this many only their count grows.
  public static let damagedLinesShown = 20
  /// How many history lines could not be read (all of them, where `damagedLines` stops).
  public var damagedCount = 0

  /// Builds the statistics one entry at a time, in file order, in memory that does not grow with
  /// the history (a set of the days with focus, and the tally of unsynced entries waiting for a
  /// day): what `pomodoro stats` streams the file through.
  public struct Builder {
    var stats: HistoryStats
    let dayOf: (WallTime) -> CivilDay
    /// Entries recorded before the clock was set since the last synced one: placed, as a group,
    /// on the next synced entry's day.
    var waiting = Tally()
    var waitingCount = 0
    var focusDays = Set<Int>()
    /// Completed focus sessions a day (by `CivilDay.ordinal`), for the goal: grows with the days
    /// of the history, not its lines.
    var focusSessions: [Int: Int] = [:]

    /// `goal`: the daily goal the days are measured against (0: none).
    public init(
      today: CivilDay, days: Int = 84, goal: Int = 0,
      dayOf: @escaping (WallTime) -> CivilDay = { $0.localCivilDay }
    ) {
      let span = max(1, days)
      stats = HistoryStats(
        today: today, heatmapStart: today.adding(1 - span), heatmapFocusMs: Array(repeating: 0, count: span))
      stats.goal = max(0, goal)
      self.dayOf = dayOf
    }

    /// The next readable entry of the file.
    public mutating func add(_ entry: HistoryEntry) {
      stats.allTally.add(entry)
      guard entry.ended.synced else {
        waiting.add(entry)
        waitingCount += 1
        return
      }
      let day = dayOf(entry.ended)
      if waitingCount > 0 {
        place(waiting, on: day)
        stats.unsyncedPlaced += waitingCount
        (waiting, waitingCount) = (Tally(), 0)
      }
      var one = Tally()
      one.add(entry)
      place(one, on: day)
    }

    /// The number of a line that could not be read.
    public mutating func damaged(_ line: Int) {
      stats.damagedCount += 1
      if stats.damagedLines.count < HistoryStats.damagedLinesShown { stats.damagedLines.append(line) }
    }

    /// Counts `tally` on `day`: today's, the week's, the heatmap, the streak.
    mutating func place(_ tally: Tally, on day: CivilDay) {
      guard day <= stats.today else { return }
      if day == stats.today { stats.todayTally.merge(tally) }
      if day >= stats.today.monday { stats.weekTally.merge(tally) }
      guard tally.focus.sessions > 0 else { return }
      focusDays.insert(day.ordinal)
      focusSessions[day.ordinal, default: 0] += tally.focus.sessions
      if day >= stats.heatmapStart {
        let i = day.ordinal - stats.heatmapStart.ordinal
        stats.heatmapFocusMs[i] = HistoryStats.sum(stats.heatmapFocusMs[i], tally.focus.ms)
      }
    }

    public func finish() -> HistoryStats {
      var s = stats
      s.unsyncedUnplaced = waitingCount
      let today = s.today.ordinal
      s.streakIncludesToday = focusDays.contains(today)
      var d = s.streakIncludesToday ? today : today - 1
      while focusDays.contains(d) {
        s.currentStreak += 1
        d -= 1
      }
      s.longestStreak = Self.longestRun(focusDays)
      guard s.goal > 0 else { return s }
      let met = Set(focusSessions.filter { $0.value >= s.goal }.keys)
      s.goalDays = met.count
      s.goalStreakIncludesToday = met.contains(today)
      d = s.goalStreakIncludesToday ? today : today - 1
      while met.contains(d) {
        s.goalStreak += 1
        d -= 1
      }
      s.longestGoalStreak = Self.longestRun(met)
      return s
    }

    /// The longest run of consecutive days in `days`.
    static func longestRun(_ days: Set<Int>) -> Int {
      var (run, longest, previous) = (0, 0, Int.min)
      for day in days.sorted() {
        run = day == previous + 1 ? run + 1 : 1
        longest = max(longest, run)
        previous = day
      }
      return longest
    }
  }

  init(today: CivilDay, heatmapStart: CivilDay, heatmapFocusMs: [Int64]) {
    self.today = today
    self.heatmapStart = heatmapStart
    self.heatmapFocusMs = heatmapFocusMs
  }

  /// `a + b`, held at `Int64.max` rather than overflowing. The history reader keeps every
  /// entry's times within a week (`HistoryEntry.longestMs`), so no real file gets near it; a
  /// sum that did must still not stop `pomodoro stats`.
  static func sum(_ a: Int64, _ b: Int64) -> Int64 {
    let (total, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b < 0 ? .min : .max) : total
  }
}

/// The heatmap's shades: by focus minutes a day, a step every 50 minutes (two standard pomodoros).
public enum FocusShade {
  /// Minutes a step.
  public static let step: Int64 = 50
  /// 0 for none, 1 under 50 minutes, 2 under 100, 3 under 150, 4 for 150 or more.
  public static func level(ms: Int64) -> Int {
    guard ms > 0 else { return 0 }
    return Int(min(4, 1 + ms / msPerMinute / step))
  }
}

/// Milliseconds in a minute: the history counts in milliseconds, the figures in minutes.
let msPerMinute = wholeMilliseconds(minutes(1))
