import PomodoroCore
import PomodoroSystem

/// One entity of the device in Home Assistant, as MQTT discovery announces it. `HomeAssistant.entities`
/// is the one table that discovery, the tables in README and docs/homeassistant.md
/// (HomeAssistantTests checks them) and the test against a real Home Assistant
/// (Tests/homeassistant, which reads the announced configs from the broker) follow.
public struct HomeAssistantEntity: Sendable {
  /// `sensor`, `binary_sensor`, `button`, `select`, `number`, `text`.
  public var component: String
  /// The last part of the unique id and entity id: `sensor.pomodoro_<device>_<object>`.
  public var object: String
  public var name: String
  /// What it is, for the docs' table.
  public var type: String
  public var meaning: String
  /// Reads the state topic (`state_topic`) / writes the command topic (`command_topic`).
  public var readsState: Bool
  public var commands: Bool
  /// The component's own keys (device class, unit, options, templates, the press payload).
  public var keys: [DiscoveryValue.Pair]
  /// The state field a desk has only with a part (`present`: a presence sensor): the entity is
  /// announced while the state has it, withdrawn while it has not; nil: every desk's.
  public var needs: String? = nil
  /// Its `options` are the state's profiles, then `Profile.baseName` (the profile
  /// select): announced again whenever the profiles change (`DiscoveryParts`).
  public var profileOptions = false
}

/// Home Assistant's view of the device: the entity table and the discovery payloads made from it.
public enum HomeAssistant {
  /// The modes in which the desk counts as focusing (the busy light's modes): those whose
  /// completed sessions are completed focus (`ModeKind.isFocus`).
  public static let focusModes: [Mode] = Mode.allCases.filter(\.kind.isFocus)
  /// The duration number's range in whole minutes: the dial's, from 1 minute.
  public static let durationMinutes = 1...Int(Dial.longest / minutes(1))

  /// Minutes left, rounded up (the panel's 0:30 is 1 min), as a whole number: a running desk
  /// changes it once a minute, so Home Assistant's recorder writes it 60 times an hour and not
  /// 360 (the state is republished every 10 s). Unknown without a time left (a flow counts up
  /// and has none on the wire).
  static let remainingTemplate =
    "{{ (value_json.remaining_ms + 59999) // 60000 if value_json.remaining_ms is defined else 'None' }}"
  /// The session's length in minutes, within the number's range; unknown without one (flow).
  static let durationTemplate =
    "{{ [[(value_json.total_ms / 60000) | round | int, \(durationMinutes.lowerBound)] | max, \(durationMinutes.upperBound)] | min if value_json.total_ms is defined else 'None' }}"
  /// The phase's attributes: the cycle, the session's length, and in flow the time counted and
  /// the break earned, in whole minutes (so that they change at most once a minute).
  static let attributesTemplate =
    "{{ {'cycle': value_json.cycle | default(None), "
    + "'total_min': ((value_json.total_ms / 60000) | round(1)) if value_json.total_ms is defined else None, "
    + "'elapsed_min': (value_json.elapsed_ms // 60000) if value_json.elapsed_ms is defined else None, "
    + "'earned_break_min': (value_json.earned_break_ms // 60000) if value_json.earned_break_ms is defined else None"
    + "} | tojson }}"
  /// The label as the command topic takes it: JSON, so that the text arrives as typed (the words
  /// form would join its words with one space); empty clears it.
  static let labelCommandTemplate = "{{ {'cmd': 'label', 'text': value} | tojson }}"
  /// The profile select's options: the config's profiles in its order, then the base, as the
  /// desk's chooser lists them.
  public static func profileOptions(_ profiles: [String]) -> [String] { profiles + [Profile.baseName] }
  /// The profile in use, the base as its option; the option chosen as the command JSON (the base
  /// as no name).
  static let profileTemplate = "{{ value_json.profile | default('') or '\(Profile.baseName)' }}"
  static let profileCommandTemplate =
    "{{ {'cmd': 'profile', 'name': ('' if value == '\(Profile.baseName)' else value)} | tojson }}"
  /// The today sensor's attributes: the daily goal (0: none) and whether it is met.
  static let goalTemplate =
    "{{ {'goal': value_json.goal | default(None), 'goal_met': value_json.goal_met | default(None)} | tojson }}"

  public static let entities: [HomeAssistantEntity] = {
    func sensor(
      _ object: String, _ name: String, _ type: String, _ meaning: String, _ template: String,
      _ keys: [DiscoveryValue.Pair]
    ) -> HomeAssistantEntity {
      HomeAssistantEntity(
        component: "sensor", object: object, name: name, type: type, meaning: meaning, readsState: true,
        commands: false, keys: [.init("value_template", .text(template))] + keys)
    }
    func binary(_ object: String, _ name: String, _ meaning: String, _ condition: String, _ keys: [DiscoveryValue.Pair])
      -> HomeAssistantEntity
    {
      HomeAssistantEntity(
        component: "binary_sensor", object: object, name: name,
        type: "binary_sensor" + (keys.first { $0.key == "device_class" }.map { " (\($0.value.plain))" } ?? ""),
        meaning: meaning, readsState: true, commands: false,
        keys: [.init("value_template", .text("{{ 'ON' if \(condition) else 'OFF' }}"))] + keys)
    }
    func button(_ object: String, _ name: String, _ press: String, _ meaning: String, _ icon: String)
      -> HomeAssistantEntity
    {
      HomeAssistantEntity(
        component: "button", object: object, name: name, type: "button", meaning: meaning + " (`\(press)`)",
        readsState: false, commands: true, keys: [.init("payload_press", .text(press)), .init("icon", .text(icon))])
    }
    let phases = Phase.allCases.map(\.rawValue)
    let modes = Mode.allCases.map(\.rawValue)
    let focusing = focusModes.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    let range = "\(durationMinutes.lowerBound)-\(durationMinutes.upperBound)"
    return [
      sensor(
        "phase", "Phase", "sensor (enum: \(phases.joined(separator: ", ")))",
        "what the timer does; attributes `cycle` (2/4), `total_min`, in flow `elapsed_min` and `earned_break_min`",
        "{{ value_json.phase }}",
        [
          .init("device_class", .text("enum")), .init("options", .list(phases)),
          .init("json_attributes_template", .text(attributesTemplate)), .init("icon", .text("mdi:timer-cog-outline")),
        ]),
      sensor(
        "mode", "Mode", "sensor (enum: \(modes.joined(separator: ", ")))", "the mode picked or running",
        "{{ value_json.mode }}",
        [
          .init("device_class", .text("enum")), .init("options", .list(modes)),
          .init("icon", .text("mdi:food-apple-outline")),
        ]),
      sensor(
        "remaining", "Remaining", "sensor (duration, min)",
        "minutes left, rounded up (changes once a minute); unknown in flow", remainingTemplate,
        [
          .init("device_class", .text("duration")), .init("unit_of_measurement", .text("min")),
          .init("suggested_display_precision", .number(0)), .init("icon", .text("mdi:timer-sand")),
        ]),
      sensor(
        "ends_at", "Ends", "sensor (timestamp)",
        "when the running timer ends (\"in 17 minutes\", live); unknown unless running with a synchronised clock",
        "{{ value_json.ends_at | default('None') }}",
        [.init("device_class", .text("timestamp")), .init("icon", .text("mdi:timer-alert-outline"))]),
      sensor(
        "today", "Today", "sensor",
        "today's completed focus sessions; attributes `goal` (`daily_goal`, 0: none) and `goal_met`",
        "{{ value_json.today | default('None') }}",
        [.init("json_attributes_template", .text(goalTemplate)), .init("icon", .text("mdi:bullseye-arrow"))]),
      sensor(
        "room_focusing", "Room in focus", "sensor",
        "desks of the room (`room`, docs/room.md) in focus, this one included; 0 outside a room",
        "{{ value_json.room_focusing | default(0) }}",
        [.init("icon", .text("mdi:account-group"))]),
      binary(
        "focusing", "Focusing", "on while a \(focusModes.map(\.rawValue).joined(separator: " or ")) runs",
        "value_json.phase == 'running' and value_json.mode in [\(focusing)]",
        [.init("device_class", .text("running")), .init("icon", .text("mdi:head-lightbulb-outline"))]),
      binary(
        "ringing", "Ringing", "on while the alarm rings", "value_json.phase == 'ringing'",
        [.init("icon", .text("mdi:bell-ring-outline"))]),
      {
        var presence = binary(
          "presence", "Presence",
          "on while someone is at the desk, off once away (`away_after`); only a desk with a sensor (`presence_line`)",
          "value_json.present | default(false)", [.init("device_class", .text("occupancy"))])
        presence.needs = "present"
        return presence
      }(),
      HomeAssistantEntity(
        component: "select", object: "mode", name: "Mode", type: "select (the modes)",
        meaning: "picks the mode (`set <mode>`); idle only, refused and logged otherwise", readsState: true,
        commands: true,
        keys: [
          .init("value_template", .text("{{ value_json.mode }}")), .init("command_template", .text("set {{ value }}")),
          .init("options", .list(modes)), .init("icon", .text("mdi:food-apple-outline")),
        ]),
      HomeAssistantEntity(
        component: "number", object: "duration", name: "Duration", type: "number (duration, min, \(range))",
        meaning: "the session's length (`set <n>m`); idle only, refused and logged otherwise; unknown in flow",
        readsState: true, commands: true,
        keys: [
          .init("value_template", .text(durationTemplate)),
          .init("command_template", .text("set {{ value | int }}m")), .init("device_class", .text("duration")),
          .init("unit_of_measurement", .text("min")), .init("min", .number(durationMinutes.lowerBound)),
          .init("max", .number(durationMinutes.upperBound)), .init("step", .number(1)), .init("mode", .text("box")),
          .init("icon", .text("mdi:timer-edit-outline")),
        ]),
      HomeAssistantEntity(
        component: "text", object: "label", name: "Label",
        type: "text (\(SessionLabel.limits))",
        meaning: "what the sessions are for (`label`); empty clears it; a refused label is logged", readsState: true,
        commands: true,
        keys: [
          .init("value_template", .text("{{ value_json.label | default('') }}")),
          .init("command_template", .text(labelCommandTemplate)), .init("min", .number(0)),
          .init("max", .number(SessionLabel.maxCharacters)), .init("icon", .text("mdi:tag-outline")),
        ]),
      {
        var profile = HomeAssistantEntity(
          component: "select", object: "profile", name: "Profile", type: "select (the profiles, `\(Profile.baseName)`)",
          meaning:
            "the profile in use (`profile`, docs/use.md#profiles), `\(Profile.baseName)` for the base settings; only while the config defines profiles",
          readsState: true, commands: true,
          keys: [
            .init("value_template", .text(profileTemplate)), .init("command_template", .text(profileCommandTemplate)),
            .init("icon", .text("mdi:tune-variant")),
          ])
        profile.needs = "profiles"
        profile.profileOptions = true
        return profile
      }(),
      button("start", "Start", "start", "starts the picked timer", "mdi:play"),
      button("pause", "Pause", "pause", "pauses a running timer", "mdi:pause"),
      button(
        "start_pause", "Start/pause", "toggle", "the start/pause button: starts, pauses, resumes, silences",
        "mdi:play-pause"),
      button("cancel", "Cancel", "cancel", "the cancel button: cancels, silences a ringing alarm", "mdi:stop"),
      button("skip", "Skip", "skip", "ends this session and moves on in the cycle", "mdi:skip-next"),
      button("acknowledge", "Acknowledge", "ack", "silences the ringing alarm", "mdi:bell-check-outline"),
      button("extend", "+5 min", "extend 5m", "five more minutes", "mdi:timer-plus-outline"),
      button(
        "interrupt", "Interrupted", "interrupt",
        "marks an internal interruption of the running focus, its timer untouched; refused and logged otherwise",
        "mdi:account-alert-outline"),
      button(
        "interrupt_external", "Interrupted by others", "interrupt external",
        "marks an external interruption, the same way", "mdi:account-arrow-left-outline"),
    ]
  }()

  /// The entity table in Markdown, for a device id (README and docs/homeassistant.md hold it with
  /// `<device>`).
  public static func markdownTable(device: String = "<device>") -> String {
    var lines = ["| entity id | type | what it means |", "| --- | --- | --- |"]
    for e in entities {
      let id =
        device == "<device>"
        ? "\(e.component).pomodoro_<device>_\(e.object)"
        : BridgeTopics.entityId(e.component, "pomodoro_\(device)_\(e.object)")
      lines.append("| `\(id)` | \(e.type) | \(e.meaning) |")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
