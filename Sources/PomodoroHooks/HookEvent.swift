import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// One change the device said (`StateChange`'s name, from a watch line's `changes`) with the
/// state after it: what a hook is given. Pure.
public struct HookEvent: Equatable, Sendable {
  public var name: String
  /// The state's fields, in `StateFields.names`' order.
  public var state: [(String, JSONValue)]

  public init(name: String, state: [(String, JSONValue)]) {
    self.name = name
    self.state = state
  }

  public static func == (a: HookEvent, b: HookEvent) -> Bool {
    a.name == b.name && a.state.map(\.0) == b.state.map(\.0) && a.state.map(\.1) == b.state.map(\.1)
  }

  /// The events of one watch line (none for a reply, or a state said anew), in order.
  public static func of(_ line: [String: JSONValue]) -> [HookEvent] {
    guard line["event"]?.string == "state", let changes = line["changes"]?.list, !changes.isEmpty else { return [] }
    let state = StateFields.names.compactMap { name in line[name].map { (name, $0) } }
    return changes.compactMap(\.string).filter { StateChange(rawValue: $0) != nil }.map {
      HookEvent(name: $0, state: state)
    }
  }

  /// What a hook reads on stdin and a webhook is POSTed: `{"event":"started","state":{...}}`.
  public var json: String {
    String(FlatJSON.encode([("event", .string(name))]).dropLast()) + ",\"state\":" + FlatJSON.encode(state) + "}"
  }

  /// The variables a hook command gets beside its process's own: POMODORO_EVENT, _PHASE, _MODE,
  /// _LABEL, _REMAINING_MS, _ENDS_AT (only with a synchronised clock) and _ROOM; empty when
  /// the state has none.
  public var environment: [(String, String)] {
    func field(_ name: String) -> String {
      switch state.first(where: { $0.0 == name })?.1 {
      case .string(let s)?: return s
      case .int(let n)?: return String(n)
      case .bool(let b)?: return b ? "true" : "false"
      default: return ""
      }
    }
    return [
      ("POMODORO_EVENT", name), ("POMODORO_PHASE", field("phase")), ("POMODORO_MODE", field("mode")),
      ("POMODORO_LABEL", field("label")), ("POMODORO_REMAINING_MS", field("remaining_ms")),
      ("POMODORO_ENDS_AT", field("ends_at")), ("POMODORO_ROOM", field("room")),
    ]
  }
}
