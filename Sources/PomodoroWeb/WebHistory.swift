import PomodoroControl
import PomodoroCore
import PomodoroStats
import PomodoroSystem

/// The history on the page: `GET /api/history?days=N` (the last N days' sessions, a day at a
/// time) and `GET /api/stats.svg` (`pomodoro stats`' heatmap and streaks, from the same
/// numbers), both from the device's `history` list.
extension WebDesk {
  /// The days `pomodoro stats` shows by default: the heatmap's span.
  public static let statsDays = 84

  func history(_ request: HTTPRequest) -> HTTPResponse {
    let text = request.query["days"] ?? "7"
    guard let days = Int(text), ControlCommand.historyDays.contains(days) else {
      return .error(400, "days must be a number from 1 to \(ControlCommand.historyDays.upperBound), like 7")
    }
    let today = wall().localCivilDay
    return askHistory(.history(days: Self.daysAsked(days, today: today)), "history from the page", for: request) {
      answer in
      switch answer.result {
      case .failure(let refusal): return .error(502, refusal.message)
      case .success:
        let entries = answer.items.compactMap(HistoryEntry.init(fields:))
        var first = today.adding(1 - days)
        // The device lists the newest `listLimit` records at most: when it may have cut, the
        // answer starts at the first day it fully covers, and says so.
        let truncated = answer.items.count >= HistoryEntry.listLimit
        if truncated, let oldest = entries.first(where: { $0.ended.synced })?.ended.localCivilDay {
          first = max(first, oldest.adding(1))
        }
        let labels = LabelStats(entries: entries, today: today, weeks: 1)
        return .json(
          Self.daysJSON(entries, from: first, to: today, truncated: truncated, byLabel: labels.rows(by: \.week)))
      }
    }
  }

  /// The days asked of the device for `days` days of the page's list: at least back to Monday,
  /// which the week by label needs.
  static func daysAsked(_ days: Int, today: CivilDay) -> Int {
    max(days, today.ordinal - today.monday.ordinal + 1)
  }

  func statsPicture(_ request: HTTPRequest) -> HTTPResponse {
    let today = wall().localCivilDay
    return askHistory(.history(days: Self.statsDays), "statistics from the page", for: request) { answer in
      switch answer.result {
      case .failure(let refusal): return .error(502, refusal.message)
      case .success:
        var builder = HistoryStats.Builder(today: today, days: Self.statsDays)
        for entry in answer.items.compactMap(HistoryEntry.init(fields:)) { builder.add(entry) }
        return HTTPResponse(
          status: 200, contentType: "image/svg+xml", body: Array(StatsSVG.render(builder.finish()).utf8))
      }
    }
  }

  /// `{"days":[{"day":"2026-12-01","focus":4,"focus_ms":6000000,"sessions":[...]},...]}` (a
  /// session's mode with its name and kind, as the page shows them), a
  /// day each from `first` to `last`, oldest first, and `"truncated":true` when the device's list
  /// was cut at `HistoryEntry.listLimit` records (then `first` is the first day fully covered). A record made before the clock was set is
  /// put on the next set record's day (today when none follows), as `pomodoro stats` does.
  /// `byLabel` (the week's rows of `LabelStats`, in their order) follows as `"week_by_label"`:
  /// `[{"name":"Thesis","label":"Thesis","sessions":2,"minutes":50,"ms":3000000},...]`, `label`
  /// only on a label's row (`name` is what the page shows: the label, or "No label").
  static func daysJSON(
    _ entries: [HistoryEntry], from first: CivilDay, to last: CivilDay, truncated: Bool = false,
    byLabel: [LabelStats.Row] = []
  ) -> String {
    var byDay: [CivilDay: [HistoryEntry]] = [:]
    var waiting: [HistoryEntry] = []
    for entry in entries {
      guard entry.ended.synced else {
        waiting.append(entry)
        continue
      }
      byDay[entry.ended.localCivilDay, default: []] += waiting + [entry]
      waiting = []
    }
    byDay[last, default: []] += waiting
    var out: [String] = []
    var day = first
    while day <= last {
      let sessions = byDay[day] ?? []
      var tally = HistoryStats.Tally()
      for entry in sessions { tally.add(entry) }
      let list = sessions.map { e in
        FlatJSON.encode([
          ("mode", .string(e.mode.rawValue)), ("name", .string(e.mode.displayName)),
          ("kind", .string(e.mode.kind.name)), ("ended", .string(e.ended.iso8601)),
          ("clock_synced", .bool(e.ended.synced)),
          ("outcome", .string(e.outcome.rawValue)), ("actual_ms", .int(e.actualMs)),
        ])
      }
      let head = FlatJSON.encode([
        ("day", .string("\(day)")), ("focus", .int(Int64(tally.focus.sessions))), ("focus_ms", .int(tally.focus.ms)),
      ])
      out.append(head.dropLast() + ",\"sessions\":[" + list.joined(separator: ",") + "]}")
      day = day.adding(1)
    }
    let labels = byLabel.map { row in
      FlatJSON.encode(
        [("name", .string(row.name))] + (row.others ? [] : row.label.map { [("label", .string($0.text))] } ?? [])
          + [
            ("sessions", .int(Int64(row.week.sessions))), ("minutes", .int(row.week.minutes)),
            ("ms", .int(row.week.ms)),
          ])
    }
    return "{\"days\":[" + out.joined(separator: ",") + "],\"truncated\":\(truncated),\"week_by_label\":["
      + labels.joined(separator: ",") + "]}"
  }
}
