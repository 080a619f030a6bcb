import PomodoroCore
import PomodoroSystem

/// The device's state as named fields, written once for every place that shows it: the
/// transcript's `state` lines, the journal's `state ...` line (which the system test reads), the
/// control socket's replies and watch lines, and the MQTT bridge's state payload. The names and
/// their order are interfaces (docs/scripts.md, docs/control.md).
public enum StateFields {
  /// Every field `full` can give, in its order.
  public static let names: [String] = [
    coreNames, ["remaining", "cycle", "ends_at", "title", "today", "goal", "goal_met", "label"], interruptionNames,
    ["present"], profileNames, viewNames, roomNames,
  ].flatMap { $0 }

  /// The profile in use (its name, "" for the base settings) and the names the config defines, in
  /// its order.
  public static let profileNames = ["profile", "profiles"]

  /// A desk in a room (docs/room.md): the room's name; its members and how many are in focus
  /// (this desk included); whether the bridge is there (it spoke in the last minute) and trusts
  /// this desk's wall clock; whether this desk's timer is the room's; the members, this desk
  /// first, as parallel lists (with what each does in words and whether it is in focus); the
  /// room in a line (`room_text`); and the session the desk holds, as the bridge publishes it.
  public static let roomNames = [
    "room", "room_members", "room_focusing", "room_bridge", "room_clock_trusted", "room_following", "room_desks",
    "room_desk_phases", "room_desk_modes", "room_desk_labels", "room_desk_texts", "room_desk_focusing",
    "room_own_pace", "room_text", "room_rev", "room_by", "room_modes", "room_lengths_ms",
    "room_plan_rev", "room_phase", "room_state", "room_elapsed_ms",
  ]

  /// A focus's interruptions (while it has a timer): both kinds together, then each.
  public static let interruptionNames = ["interruptions", "interruptions_internal", "interruptions_external"]

  /// What a view draws beside the time, from the desk's own rules (`full` gives them): the
  /// mode's kind, the start button's label, the cancel button's (only while there is a timer),
  /// whether +time and skip apply, whether an interruption may be marked now, the progress bar (`progress_ms` of `progress_total_ms`; no
  /// bar when the total is 0), in a flow with a timer the time counted at which its earned break
  /// changes next, and while idle the picker (its modes, their names and presets, null for a
  /// flow) and the dial's range.
  public static let viewNames = [
    "kind", "start", "cancel", "can_extend", "can_skip", "can_interrupt", "progress_ms", "progress_total_ms",
    "earned_break_next_ms",
    "picker", "picker_names", "picker_presets_ms", "dial_min_ms", "dial_max_ms", "recent_labels",
  ]

  /// Every field `core` can give, in its order (`elapsed_ms` and `earned_break_ms` in flow only).
  public static let coreNames = ["phase", "mode", "remaining_ms", "total_ms", "elapsed_ms", "earned_break_ms"]

  /// What every view has: the phase and the mode; a countdown's time left and length; a flow's
  /// time counted and the break ending it now earns (a flow has no end, so no time left or
  /// length: it counts up until it is ended).
  public static func core(_ state: EngineState, at now: Instant) -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [
      ("phase", .string(state.phase.rawValue)), ("mode", .string(state.mode.rawValue)),
    ]
    switch state.count(at: now) {
    case .down(let remaining, let total):
      fields.append(("remaining_ms", .int(wholeMilliseconds(remaining))))
      fields.append(("total_ms", .int(wholeMilliseconds(total))))
    case .up(let counted):
      fields.append(("elapsed_ms", .int(wholeMilliseconds(counted))))
      fields.append(("earned_break_ms", .int(wholeMilliseconds(state.earnedBreak(at: now) ?? 0))))
    }
    return fields
  }

  /// The journal's `state ...` line: `core`, and the label when there is one.
  public static func journal(_ state: EngineState, at now: Instant) -> [(String, JSONValue)] {
    core(state, at: now) + (state.label.map { [("label", .string($0.text))] } ?? [])
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
    if state.phase == .running, let remaining = state.remaining(at: now), let wall, wall.synced {
      let end = WallTime(epochSeconds: wall.epochSeconds + wholeSecondsRounded(remaining), synced: true)
      fields.append(("ends_at", .string(end.iso8601)))
    }
    fields.append(("title", .string(state.title)))
    fields.append(("today", .int(Int64(state.completedToday))))
    fields.append(("goal", .int(Int64(state.settings.dailyGoal))))
    fields.append(("goal_met", .bool(state.goalMet)))
    if let label = state.label { fields.append(("label", .string(label.text))) }
    if let marks = state.interruptions, state.mode.kind.isFocus {
      fields.append(("interruptions", .int(Int64(marks.total))))
      fields.append(("interruptions_internal", .int(Int64(marks.internal))))
      fields.append(("interruptions_external", .int(Int64(marks.external))))
    }
    // A desk with a presence sensor (`presence_line`): false once nobody was seen for `away_after`.
    if let present = state.present { fields.append(("present", .bool(present))) }
    fields.append(("profile", .string(state.profile ?? "")))
    fields.append(("profiles", .list(state.profileNames.map { .string($0) })))
    return fields + view(state, at: now) + room(state, at: now)
  }

  /// `roomNames`' fields for `state` at `now` (none outside a room).
  public static func room(_ state: EngineState, at now: Instant) -> [(String, JSONValue)] {
    guard let room = state.room, let members = state.roomMembers else { return [] }
    let bridged = room.bridged(at: now)
    let pacedBy = state.followsRoomPace ? room.held?.session.origin : nil
    var fields: [(String, JSONValue)] = [
      ("room", .string(room.name)), ("room_members", .int(Int64(members.count))),
      ("room_focusing", .int(Int64(members.filter(\.focusing).count))), ("room_bridge", .bool(bridged)),
      ("room_clock_trusted", .bool(bridged && room.view?.clockTrusted == true)),
      ("room_following", .bool(room.following)), ("room_desks", .list(members.map { .string($0.desk) })),
      ("room_desk_phases", .list(members.map { .string($0.phase.rawValue) })),
      ("room_desk_modes", .list(members.map { .string($0.mode.rawValue) })),
      ("room_desk_labels", .list(members.map { .string($0.label?.text ?? "") })),
      ("room_desk_texts", .list(members.map { .string($0.doing) })),
      ("room_desk_focusing", .list(members.map { .bool($0.focusing) })),
      ("room_own_pace", .bool(pacedBy == nil)),
      (
        "room_text",
        .string(
          roomText(
            room.name, members: members, bridged: bridged, trusted: room.view?.clockTrusted,
            roomPace: pacedBy))
      ),
    ]
    if let held = room.held {
      let s = held.said(at: now)
      fields += [
        ("room_rev", .int(s.revision)), ("room_by", .string(s.origin)),
        ("room_modes", .list(s.plan.map { .string($0.mode.rawValue) })),
        ("room_lengths_ms", .list(s.plan.map { .int(wholeMilliseconds($0.length)) })),
        ("room_plan_rev", .int(s.planRevision)),
        ("room_phase", .int(Int64(s.phase))), ("room_state", .string(s.state.rawValue)),
        ("room_elapsed_ms", .int(wholeMilliseconds(s.elapsed))),
      ]
    }
    return fields
  }

  /// The room in a line, as `ctl status` and the page say it: `team: 2 in focus of 3` (`, clock
  /// not trusted` after it), or `team: no bridge (...)` with what starts the bridge.
  /// `roomPace`: the desk whose pace this one follows, when it is not its own (`followsRoomPace`).
  static func roomText(
    _ name: String, members: [RoomView.Member], bridged: Bool, trusted: Bool?, roomPace: String? = nil
  ) -> String {
    guard bridged else { return "\(name): no bridge (sudo systemctl enable --now pomodoro-mqtt)" }
    return "\(name): \(members.filter(\.focusing).count) in focus of \(members.count)"
      + (roomPace.map { ", at \($0)'s pace" } ?? "") + (trusted == true ? "" : ", clock not trusted")
  }

  /// `viewNames`' fields for `state` at `now`.
  public static func view(_ state: EngineState, at now: Instant) -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [
      ("kind", .string(state.mode.kind.name)), ("start", .string(state.startLabel)),
    ]
    if state.hasTimer { fields.append(("cancel", .string(state.cancelLabel))) }
    fields.append(("can_extend", .bool(state.canExtend)))
    fields.append(("can_skip", .bool(state.canSkip)))
    fields.append(("can_interrupt", .bool(canInterrupt(state))))
    let bar = state.progress(at: now)
    fields.append(("progress_ms", .int(wholeMilliseconds(bar.done))))
    fields.append(("progress_total_ms", .int(wholeMilliseconds(bar.total))))
    if let next = state.earnedBreakChanges(at: now) {
      fields.append(("earned_break_next_ms", .int(wholeMilliseconds(next))))
    }
    if state.phase == .idle {
      let modes = state.pickerModes
      fields.append(("picker", .list(modes.map { .string($0.rawValue) })))
      fields.append(("picker_names", .list(modes.map { .string($0.pickerName) })))
      fields.append(
        (
          "picker_presets_ms",
          .list(modes.map { state.settings.preset($0).map { .int(wholeMilliseconds($0)) } ?? .null })
        ))
      fields.append(("dial_min_ms", .int(wholeMilliseconds(Dial.shortest))))
      fields.append(("dial_max_ms", .int(wholeMilliseconds(Dial.longest))))
    }
    fields.append(("recent_labels", .list(state.recentLabels.map { .string($0.text) })))
    return fields
  }

  /// Whether `interrupt` is taken now: while a focus (focus or flow) runs, as
  /// `ControlProtocol.decide` takes it (StateFieldsTests holds the two together).
  public static func canInterrupt(_ state: EngineState) -> Bool {
    state.phase == .running && state.mode.kind.isFocus
  }

  /// Decoded fields (a reply, a watch line) back in `names` order, others dropped.
  public static func ordered(_ fields: [String: JSONValue]) -> [(String, JSONValue)] {
    names.compactMap { name in fields[name].map { (name, $0) } }
  }

  /// `phase=running mode=focus remaining_ms=1500000 total_ms=1500000 label="Write the report"`:
  /// the journal's form. A text that is one plain word (letters, digits, `_ - . : +`) is written
  /// bare, any other (a label with a space, a quote, an `=`, an invisible character) as a JSON
  /// string (`FlatJSON.quote`), so a program splits the line on spaces and reads each value with
  /// a JSON parser, and the label can never pass for another field.
  public static func logText(_ fields: [(String, JSONValue)]) -> String {
    fields.map { name, value in
      switch value {
      case .string(let s): return "\(name)=\(isWord(s) ? s : FlatJSON.quote(s))"
      case .int(let n): return "\(name)=\(n)"
      case .bool(let b): return "\(name)=\(b)"
      case .null: return "\(name)=null"
      case .list: return "\(name)=\(value.text)"
      }
    }.joined(separator: " ")
  }

  /// Whether `s` is written bare in the journal's form: one word of ASCII letters, digits and
  /// `_ - . : +`.
  static func isWord(_ s: String) -> Bool {
    !s.isEmpty
      && s.utf8.allSatisfy { c in
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_")
          || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") || c == UInt8(ascii: "+")
      }
  }
}
