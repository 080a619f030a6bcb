import PomodoroCore
import PomodoroSystem

/// The device's state as named fields, written once for every place that shows it: the
/// transcript's `state` lines, the journal's `state ...` line (which the system test reads), the
/// control socket's replies and watch lines, and the MQTT bridge's state payload. The names and
/// their order are interfaces (docs/scripts.md, docs/control.md).
public enum StateFields {
  /// Every field `full` can give, in its order.
  public static let names = coreNames + ["remaining", "cycle", "ends_at", "title", "today"]

  /// Every field `core` can give, in its order (`elapsed_ms` and `earned_break_ms` in flow only).
  public static let coreNames = ["phase", "mode", "remaining_ms", "total_ms", "elapsed_ms", "earned_break_ms"]

  /// What every view has: the phase and the mode; a countdown's time left and length; a flow's
  /// time counted and the break ending it now earns (a flow has no end, so no time left or
  /// length: it counts up until it is ended).
  public static func core(_ state: EngineState, at now: Instant) -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [
      ("phase", .string(state.phase.rawValue)), ("mode", .string(state.mode.rawValue)),
    ]
    switch state.mode.kind.counting {
    case .down:
      fields.append(("remaining_ms", .int(wholeMilliseconds(state.remaining(at: now)))))
      fields.append(("total_ms", .int(wholeMilliseconds(state.duration))))
    case .up:
      fields.append(("elapsed_ms", .int(wholeMilliseconds(state.elapsed(at: now)))))
      fields.append(("earned_break_ms", .int(wholeMilliseconds(state.earnedBreak(at: now) ?? 0))))
    }
    return fields
  }

  /// `core`, then the time left as the panel shows it (in flow: the time counted), the focus's place in the cycle, and, while
  /// running with a synchronised wall clock, the end; the panel's title ("Focus 2/4", the egg
  /// titles, "Earned break") and today's completed focus sessions: the control socket's and the
  /// bridge's state, and the page's.
  public static func full(_ state: EngineState, at now: Instant, wall: WallTime?) -> [(String, JSONValue)] {
    var fields = core(state, at: now)
    fields.append(("remaining", .string(state.clockText(at: now))))
    if let cycle = state.cycleText { fields.append(("cycle", .string(cycle))) }
    // A flow has no end but the day's: it ends when it is ended.
    if state.phase == .running, state.mode.kind.counting == .down, let wall, wall.synced {
      let end = WallTime(epochSeconds: wall.epochSeconds + wholeSecondsRounded(state.remaining(at: now)), synced: true)
      fields.append(("ends_at", .string(end.iso8601)))
    }
    fields.append(("title", .string(state.title)))
    fields.append(("today", .int(Int64(state.completedToday))))
    return fields
  }

  /// Decoded fields (a reply, a watch line) back in `names` order, others dropped.
  public static func ordered(_ fields: [String: JSONValue]) -> [(String, JSONValue)] {
    names.compactMap { name in fields[name].map { (name, $0) } }
  }

  /// `phase=running mode=focus remaining_ms=1500000 total_ms=1500000`: the journal's form.
  public static func logText(_ fields: [(String, JSONValue)]) -> String {
    fields.map { name, value in
      switch value {
      case .string(let s): return "\(name)=\(s)"
      case .int(let n): return "\(name)=\(n)"
      case .bool(let b): return "\(name)=\(b)"
      case .null: return "\(name)=null"
      }
    }.joined(separator: " ")
  }
}
