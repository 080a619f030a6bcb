import PomodoroCore
import PomodoroSystem

/// The control socket's protocol: one JSON object a line each way. Requests
/// `{"cmd":"status"}` ... `{"cmd":"extend","by":"5m"}`, `{"cmd":"set","mode":"soft","duration":"6m"}`,
/// `{"cmd":"watch"}`, `{"cmd":"config"}`, `{"cmd":"config_set","key":"focus","value":"30m"}`,
/// `{"cmd":"config_reset","key":"focus"}`; replies `{"ok":true,"state":{...}}` or
/// `{"ok":false,"error":"..."}`, the config's before their reply as item lines (`itemLine`).
/// Every other command becomes the event a button (or the knob) would make; the engine judges it.
public enum ControlCommand: Equatable, Sendable {
  case status, start, pause, resume, toggle, cancel, ack, skip
  case extend(Nanoseconds)
  case set(mode: Mode?, duration: Nanoseconds?)
  case watch
  /// The history's records of the last `days` local days, as item lines (`pomodoro web`'s page).
  case history(days: Int)
  /// Shows a pairing code on the desk's screen for 2 minutes (`pomodoro web` asks); nil takes it away.
  /// `url`: the page's address on the LAN (`http://192.168.1.23:8080/`), which the desk draws as a
  /// QR code with `#pair=<code>` after it, where it has room.
  case pair(code: String?, url: String? = nil)
  /// The settable keys: their values and where each comes from (`ConfigLayers`).
  case config
  /// A settable key set over the config file, kept in the state directory.
  case configSet(key: String, value: String)
  /// A key back to the config file's value (or the default).
  case configReset(key: String)
  /// The label of the running session and the next ones (nil clears it).
  case label(SessionLabel?)
  /// An interruption of the running focus, marked without stopping it.
  case interrupt(Interruption)
  /// The profile named from now on (nil: the base settings); a name the config does not define
  /// is refused.
  case profile(String?)
  /// The MQTT bridge: a room session heard on a desk's session topic (its author that desk),
  /// `age` old at `at`, the bridge's instant on the machine's monotonic clock (docs/room.md).
  case roomSession(RoomSessionMessage, age: Nanoseconds, at: Instant?)
  /// The MQTT bridge: what it knows of the room (this desk's id, the broker, the clock, the
  /// other members).
  case roomStatus(RoomView)

  /// One of each command a person or a script uses, in the order help and errors list them
  /// (`pair` is `pomodoro web`'s, and not listed).
  static let each: [ControlCommand] = [
    .status, .start, .pause, .resume, .toggle, .cancel, .ack, .skip, .extend(0), .set(mode: nil, duration: nil),
    .label(nil), .interrupt(.internal), .profile(nil), .watch, .config, .configSet(key: "focus", value: "25m"),
    .configReset(key: "focus"),
  ]

  /// The days `history` may ask for: a year, at most `ControlProtocol.historyLimit` records.
  public static let historyDays = 1...366

  /// The longest page address `pair` takes (a QR code the panel shows holds far less: the desk
  /// then shows the digits alone).
  public static let longestPageURL = 256

  /// Whether `url` may be a pairing's page address: `http://`, then printable ASCII without
  /// spaces, at most `longestPageURL` bytes.
  public static func isPageURL(_ url: String) -> Bool {
    url.utf8.count <= longestPageURL && url.hasPrefix("http://") && url.utf8.count > 7
      && url.utf8.allSatisfy { $0 > 32 && $0 < 127 }
  }

  /// The command names, as requests and `pomodoro ctl` spell them.
  public static let names = each.map(\.name)

  /// The commands that take no argument, by name.
  static let plain: [String: ControlCommand] = Dictionary(
    each.filter(\.takesNoArgument).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

  var takesNoArgument: Bool {
    switch self {
    case .extend, .set, .pair, .config, .configSet, .configReset, .history, .label, .interrupt, .profile,
      .roomSession, .roomStatus:
      return false
    default: return true
    }
  }

  /// The command's name: the one place each is spelled.
  public var name: String {
    switch self {
    case .status: return "status"
    case .start: return "start"
    case .pause: return "pause"
    case .resume: return "resume"
    case .toggle: return "toggle"
    case .cancel: return "cancel"
    case .ack: return "ack"
    case .skip: return "skip"
    case .extend: return "extend"
    case .set: return "set"
    case .watch: return "watch"
    case .pair: return "pair"
    case .history: return "history"
    case .config: return "config"
    case .configSet: return "config_set"
    case .configReset: return "config_reset"
    case .label: return "label"
    case .interrupt: return "interrupt"
    case .profile: return "profile"
    case .roomSession: return "room_session"
    case .roomStatus: return "room_status"
    }
  }

  /// Whether it is one of the config's commands (answered from the settings, not the engine).
  public var isConfig: Bool {
    switch self {
    case .config, .configSet, .configReset: return true
    default: return false
    }
  }

  /// The request line (without its newline).
  public var requestLine: String {
    var pairs: [(String, JSONValue)] = [("cmd", .string(name))]
    switch self {
    case .extend(let by): pairs.append(("by", .string(DurationText.format(by))))
    case .set(let mode, let duration):
      if let mode { pairs.append(("mode", .string(mode.rawValue))) }
      if let duration { pairs.append(("duration", .string(DurationText.format(duration)))) }
    case .pair(let code?, let url):
      pairs.append(("code", .string(code)))
      if let url { pairs.append(("url", .string(url))) }
    case .history(let days): pairs.append(("days", .int(Int64(days))))
    case .configSet(let key, let value): pairs += [("key", .string(key)), ("value", .string(value))]
    case .configReset(let key): pairs.append(("key", .string(key)))
    case .label(let label): pairs += label.map { [("text", .string($0.text))] } ?? []
    case .interrupt(let kind): pairs.append(("kind", .string(kind.rawValue)))
    case .profile(let name): pairs += name.map { [("name", .string($0))] } ?? []
    case .pair(nil, _), .status, .start, .pause, .resume, .toggle, .cancel, .ack, .skip, .watch, .config: break
    case .roomSession(let m, let age, let at):
      pairs += [("by", .string(m.session.origin))] + m.fields + [("age_ms", .int(wholeMilliseconds(age)))]
      pairs += at.map { [("at_ms", .int(wholeMilliseconds($0.nanoseconds)))] } ?? []
    case .roomStatus(let v):
      pairs += [
        ("desk", .string(v.desk)), ("broker", .bool(v.broker)), ("clock_trusted", .bool(v.clockTrusted)),
        ("desks", .list(v.others.map { .string($0.desk) })),
        ("phases", .list(v.others.map { .string($0.phase.rawValue) })),
        ("modes", .list(v.others.map { .string($0.mode.rawValue) })),
        ("labels", .list(v.others.map { .string($0.label?.text ?? "") })),
        ("following", .list(v.others.map { .bool($0.following) })),
      ]
    }
    return FlatJSON.encode(pairs)
  }

  /// Parses a request line; the error is the reply's message.
  public static func parse(json line: String) -> Result<ControlCommand, ControlProtocol.Refusal> {
    guard let object = FlatJSON.decode(line) else {
      return .failure(.init("bad request: expected one JSON object a line, like {\"cmd\":\"status\"}"))
    }
    guard let cmd = object["cmd"]?.string else {
      return .failure(.init("missing \"cmd\"; commands: \(names.joined(separator: ", "))"))
    }
    var words = [cmd]
    switch cmd {
    case "extend":
      guard let by = object["by"]?.string else { return .failure(.init("extend needs \"by\", like \"5m\"")) }
      words.append(by)
    case "set":
      if let mode = object["mode"] {
        guard let m = mode.string else { return .failure(.init("\"mode\" must be a string")) }
        words.append(m)
      }
      if let duration = object["duration"] {
        guard let d = duration.string else { return .failure(.init("\"duration\" must be a string like \"25m\"")) }
        words.append(d)
      }
    case "history":
      if let days = object["days"] {
        guard let d = days.int else { return .failure(.init("\"days\" must be a number of days, like 7")) }
        words.append(String(d))
      }
    case "pair":
      if let code = object["code"] {
        guard let c = code.string else { return .failure(.init("\"code\" must be a string of 6 digits")) }
        words.append(c)
        if let url = object["url"] {
          guard let u = url.string else {
            return .failure(.init("\"url\" must be a string like \"http://192.168.1.23:8080/\""))
          }
          words.append(u)
        }
      }
    // A value may hold spaces (`modes`): taken as it is, not as words.
    case "config_set":
      guard let key = object["key"]?.string, let value = object["value"]?.string else {
        return .failure(
          .init(
            "config_set needs \"key\" and \"value\", like {\"cmd\":\"config_set\",\"key\":\"focus\",\"value\":\"30m\"}")
        )
      }
      return .success(.configSet(key: key, value: value))
    // A label is text, spaces and all: taken whole, not as words.
    case "label":
      guard let text = object["text"] else { return .success(.label(nil)) }
      guard let typed = text.string else {
        return .failure(.init("\"text\" must be a string, like {\"cmd\":\"label\",\"text\":\"Report\"}"))
      }
      return label(typed)
    case "interrupt":
      if let kind = object["kind"] {
        guard let k = kind.string else { return .failure(.init("\"kind\" must be \"internal\" or \"external\"")) }
        words.append(k)
      }
    case "profile":
      if let name = object["name"] {
        guard let n = name.string else {
          return .failure(.init("\"name\" must be a string, like {\"cmd\":\"profile\",\"name\":\"deep\"}"))
        }
        if !n.isEmpty { words.append(n) }
      }
    case "room_session", "room_status":
      return room(cmd, object)
    case "config_reset":
      guard let key = object["key"]?.string else {
        return .failure(.init("config_reset needs \"key\", like {\"cmd\":\"config_reset\",\"key\":\"focus\"}"))
      }
      return .success(.configReset(key: key))
    default: break
    }
    return parse(words: words)
  }

  /// The bridge's room requests (docs/room.md), every field checked as a room message's.
  static func room(_ cmd: String, _ o: [String: JSONValue]) -> Result<ControlCommand, ControlProtocol.Refusal> {
    func no(_ why: String) -> Result<ControlCommand, ControlProtocol.Refusal> { .failure(.init("\(cmd): \(why)")) }
    if cmd == "room_session" {
      guard let age = o["age_ms"]?.int, (0...RoomSessionMessage.maxExpiry * 1000).contains(age) else {
        return no("\"age_ms\" must be whole milliseconds from 0 to \(RoomSessionMessage.maxExpiry * 1000)")
      }
      // The bridge's monotonic instant of that age (optional: a bridge of 0.3.0's first days said
      // none).
      var at: Instant?
      if let value = o["at_ms"] {
        guard let atMs = value.int, atMs >= 0, atMs <= Int64.max / 1_000_000 else {
          return no("\"at_ms\" must be whole milliseconds of the monotonic clock")
        }
        at = Instant(nanoseconds: atMs * 1_000_000)
      }
      switch RoomSessionMessage.parse(fields: o, by: o["by"]?.string ?? "") {
      case .success(let message): return .success(.roomSession(message, age: ms(age), at: at))
      case .failure(let refusal): return no(refusal.message)
      }
    }
    guard let desk = o["desk"]?.string, RoomNames.isDesk(desk) else {
      return no("\"desk\" must be this desk's id (\(RoomNames.rule))")
    }
    guard let broker = o["broker"]?.bool, let trusted = o["clock_trusted"]?.bool else {
      return no("\"broker\" and \"clock_trusted\" must be true or false")
    }
    let desks = o["desks"]?.list ?? []
    let phases = o["phases"]?.list ?? []
    let modes = o["modes"]?.list ?? []
    let labels = o["labels"]?.list ?? []
    let following = o["following"]?.list ?? []
    guard desks.count <= RoomView.mostOthers,
      [phases.count, modes.count, labels.count, following.count].allSatisfy({ $0 == desks.count })
    else {
      return no(
        "\"desks\", \"phases\", \"modes\", \"labels\" and \"following\" must be lists of the same length, at most \(RoomView.mostOthers)"
      )
    }
    var others: [RoomView.Member] = []
    for i in desks.indices {
      switch RoomMember.checked(
        desk: desks[i].string ?? "", phase: phases[i], mode: modes[i], label: labels[i], following: following[i])
      {
      case .success(let member): others.append(member)
      case .failure(let why): return no("member \(i + 1): \(why.message)")
      }
    }
    return .success(.roomStatus(RoomView(desk: desk, broker: broker, clockTrusted: trusted, others: others)))
  }

  /// `label TEXT`: the label, or a refusal that names the rule.
  static func label(_ typed: String) -> Result<ControlCommand, ControlProtocol.Refusal> {
    switch SessionLabel.parse(typed) {
    case .success(let label): return .success(.label(label))
    case .failure(let refusal): return .failure(.init("label: " + refusal.message))
    }
  }

  /// Parses a command as a message's payload carries it (the MQTT command topic): a JSON request
  /// when it starts with `{`, else words as `pomodoro ctl` takes them (`extend 5m`).
  public static func parse(payload: String) -> Result<ControlCommand, ControlProtocol.Refusal> {
    let trimmed = TextLines.trimmed(payload)
    return trimmed.hasPrefix("{")
      ? parse(json: String(trimmed)) : parse(words: trimmed.split(separator: " ").map(String.init))
  }

  /// Parses words: `status`, `extend 5m`, `set focus 50m`, `set 10m`, `set soft`, `config`,
  /// `config set modes focus short flow` (the value: the words after the key), `config reset focus`.
  public static func parse(words: [String]) -> Result<ControlCommand, ControlProtocol.Refusal> {
    guard let name = words.first else {
      return .failure(.init("no command; commands: \(names.joined(separator: ", "))"))
    }
    let rest = Array(words.dropFirst())
    if let command = plain[name] {
      guard rest.isEmpty else { return .failure(.init("\(name) takes no argument, got '\(rest[0])'")) }
      return .success(command)
    }
    switch name {
    case "extend":
      guard rest.count == 1, let by = DurationText.parse(rest[0]), by > 0, by <= Dial.longest else {
        return .failure(.init("extend takes one duration, like 5m or 1m30s (up to 23h59m59s)"))
      }
      return .success(.extend(by))
    case "set":
      var mode: Mode?
      var duration: Nanoseconds?
      for word in rest {
        if let m = Mode(rawValue: word), mode == nil {
          mode = m
        } else if let d = DurationText.parse(word), duration == nil {
          guard d >= Dial.shortest, d <= Dial.longest else {
            return .failure(.init("set: duration '\(word)' is out of range; from 5s to 23h59m59s"))
          }
          duration = d
        } else {
          return .failure(
            .init(
              "set: '\(word)' is neither a mode (\(Mode.allCases.map(\.rawValue).joined(separator: ", "))) nor a duration like 25m"
            ))
        }
      }
      guard mode != nil || duration != nil else {
        return .failure(.init("set needs a mode and/or a duration, like: set focus 50m"))
      }
      return .success(.set(mode: mode, duration: duration))
    case "history":
      guard rest.count <= 1, let days = rest.isEmpty ? 7 : Int(rest[0]), Self.historyDays.contains(days) else {
        return .failure(.init("history takes a number of days from 1 to \(Self.historyDays.upperBound), like 7"))
      }
      return .success(.history(days: days))
    case "pair":
      guard rest.count <= 2 else {
        return .failure(.init("pair takes one code of 6 digits (and the page's address), or none to take it away"))
      }
      if let code = rest.first {
        guard code.utf8.count == 6, code.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
          return .failure(.init("pair: the code is 6 digits, like 123456, got '\(code)'"))
        }
      }
      let url = rest.count == 2 ? rest[1] : nil
      if let url, !Self.isPageURL(url) {
        return .failure(
          .init(
            "pair: the page's address is http://, then printable ASCII without spaces, at most "
              + "\(Self.longestPageURL) bytes, like http://192.168.1.23:8080/; got \(url.utf8.count) bytes"))
      }
      return .success(.pair(code: rest.first, url: url))
    case "label":
      // `label Write the report`: the words after the command, one space between them.
      return label(rest.joined(separator: " "))
    case "interrupt":
      switch rest {
      case [], ["internal"]: return .success(.interrupt(.internal))
      case ["external"], ["--external"]: return .success(.interrupt(.external))
      default:
        return .failure(
          .init(
            "interrupt takes internal (the default) or external, got '\(TextLines.visible(rest.joined(separator: " ")))'"
          ))
      }
    case "profile":
      guard rest.count <= 1 else {
        return .failure(.init("profile takes one profile's name, or none for the base settings, like: profile deep"))
      }
      guard let name = rest.first else { return .success(.profile(nil)) }
      guard Profile.isName(name) else {
        return .failure(
          .init("profile: a profile's name is \(Profile.nameRule), got '\(TextLines.visible(name))'"))
      }
      return .success(.profile(name))
    case "config", "config_set", "config_reset":
      // `config set KEY VALUE` as `pomodoro ctl` takes it, or `config_set KEY VALUE` as the request names it.
      let sub = name == "config" ? rest.first : String(name.dropFirst("config_".count))
      let args = name == "config" ? Array(rest.dropFirst()) : rest
      switch sub {
      case nil: return .success(.config)
      case "set":
        guard args.count >= 2 else {
          return .failure(.init("config: set takes a key and a value, like: config set focus 30m"))
        }
        return .success(.configSet(key: args[0], value: args.dropFirst().joined(separator: " ")))
      case "reset":
        guard args.count == 1 else { return .failure(.init("config: reset takes one key, like: config reset focus")) }
        return .success(.configReset(key: args[0]))
      default:
        let word = TextLines.visible(sub ?? "")
        return .failure(
          .init("config: '\(word)' is neither set nor reset; config, config set KEY VALUE or config reset KEY"))
      }
    default:
      return .failure(.init("unknown command '\(name)'; commands: \(names.joined(separator: ", "))"))
    }
  }
}

public enum ControlProtocol {
  /// The longest request line, in bytes, the device reads (longer ones are refused whole): the
  /// socket's limit, and the bridge's for a command payload. The longest line the bridge says is
  /// `room_status` with the most other members a room keeps (63), each id 40 bytes and each label
  /// at its longest once escaped (`SessionLabel.maxBytes` of invisible four-byte characters, each
  /// written as two `\u` escapes: 480 bytes): about 35 KB (RoomLimitsTests builds it from the
  /// limits). 4096 was too little for 37 desks with long ids and labels (`pomodoro-bench room 45
  /// --long`), 16 KiB for 63 labels of 160 bytes.
  public static let maxLine = 48 * 1024

  /// A refused request, with the reason for the reply.
  public struct Refusal: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
  }

  /// The engine events `command` makes in `phase`, as a button or the knob would; a refusal where
  /// the phase gives it no meaning ("nothing to pause: the timer is idle"), or a flow (`mode`) has
  /// no duration to set or extend. Status and watch make none.
  /// `profiles`: the names the config defines (a profile is chosen only among them).
  public static func events(
    for command: ControlCommand, in phase: Phase, mode: Mode = .focus, profiles: [String] = []
  ) -> Result<[Event], Refusal> {
    func no(_ m: String) -> Result<[Event], Refusal> { .failure(Refusal(m)) }
    // A flow counts up until it is ended: it has no duration to set or extend.
    switch (command, mode.kind.counting) {
    case (.extend, .up) where phase != .idle:
      return no("a flow counts up and has no end to extend: end it with cancel")
    case (.set(let to, .some), _) where phase == .idle:
      switch (to ?? mode).kind.counting {
      case .up: return no("a flow counts up and takes no duration: set flow, or set a mode with one (set focus 25m)")
      case .down: break
      }
    default: break
    }
    let ringing = "the alarm is ringing: ack or cancel it, extend it or skip"
    switch (command, phase) {
    case (.status, _), (.watch, _), (.pair, _), (.history, _), (.config, _), (.configSet, _), (.configReset, _):
      return .success([])
    // The bridge's: the device anchors a session on its clock and keeps the view.
    case (.roomSession, _), (.roomStatus, _): return .success([])
    // A label is for the session running, if any, and the next ones: any phase takes it.
    case (.label(let label), _): return .success([.setLabel(label)])
    // A profile is the next sessions' (a timer keeps its length): any phase takes it.
    case (.profile(let name?), _) where !profiles.contains(name):
      let known = profiles.isEmpty ? "the config defines none" : "the profiles are \(profiles.joined(separator: ", "))"
      return no(
        "no profile '\(name)': \(known); define it in the config (profile \(name) = focus 50m, ...) "
          + "or name another")
    case (.profile(let name), _): return .success([.setProfile(name)])
    case (.interrupt(let kind), .running) where mode.kind.isFocus: return .success([.interrupt(kind)])
    case (.interrupt, .running):
      return no("interruptions are marked during a focus; this is a \(mode.rawValue) (the timer is running)")
    case (.interrupt, _):
      return no("interruptions are marked while a focus runs; the timer is \(phase.rawValue)")
    case (.start, .idle): return .success([.press(.start)])
    case (.start, .running): return no("already running")
    case (.start, .paused): return no("the timer is paused: resume it")
    case (.start, .ringing): return no(ringing)
    case (.pause, .running): return .success([.press(.start)])
    case (.pause, .idle): return no("nothing to pause: the timer is idle")
    case (.pause, .paused): return no("already paused")
    case (.pause, .ringing): return no(ringing)
    case (.resume, .paused): return .success([.press(.start)])
    case (.resume, .idle): return no("nothing to resume: the timer is idle")
    case (.resume, .running): return no("already running")
    case (.resume, .ringing): return no(ringing)
    // The start/pause button: starts, pauses, resumes, and acknowledges a ringing alarm.
    case (.toggle, _): return .success([.press(.start)])
    // The cancel button: cancels a running or paused timer, and acknowledges a ringing alarm
    // (so Home Assistant's Cancel button silences it); `ack` is the same press, only while ringing.
    case (.cancel, .running), (.cancel, .paused), (.cancel, .ringing): return .success([.press(.cancel)])
    case (.cancel, .idle): return no("nothing to cancel: the timer is idle")
    case (.ack, .ringing): return .success([.press(.cancel)])
    case (.ack, .idle), (.ack, .running), (.ack, .paused):
      return no("nothing to acknowledge: the alarm is not ringing (the timer is \(phase.rawValue))")
    case (.skip, _): return .success([.skip])
    case (.extend(let by), .running), (.extend(let by), .paused), (.extend(let by), .ringing):
      return .success([.extend(by)])
    case (.extend, .idle): return no("nothing to extend: the timer is idle (set changes its duration)")
    case (.set(let mode, let duration), .idle):
      return .success((mode.map { [Event.select($0)] } ?? []) + (duration.map { [Event.setDuration($0)] } ?? []))
    case (.set, .running), (.set, .paused), (.set, .ringing):
      return no("set works only while idle: the timer is \(phase.rawValue); cancel it first")
    }
  }

  public static func okReply(_ fields: [(String, JSONValue)]) -> String {
    "{\"ok\":true,\"state\":" + FlatJSON.encode(fields) + "}"
  }

  /// A reply as `pomodoro ctl --json` prints it: as it came, but in a room with `room` as the
  /// object `{"name":...,"members":N,"focusing":N}` (the flat `room_*` fields stay as they are).
  public static func replyForPeople(_ line: String, _ state: [String: JSONValue]) -> String {
    guard let name = state["room"]?.string else { return line }
    let room = FlatJSON.encode([
      ("name", .string(name)), ("members", state["room_members"] ?? .int(1)),
      ("focusing", state["room_focusing"] ?? .int(0)),
    ])
    let flat = FlatJSON.encode(StateFields.ordered(state).filter { $0.0 != "room" })
    return "{\"ok\":true,\"state\":" + flat.dropLast() + (flat.count > 2 ? "," : "") + "\"room\":" + room + "}}"
  }

  public static func errorReply(_ message: String) -> String {
    FlatJSON.encode([("ok", .bool(false)), ("error", .string(message))])
  }

  /// A reply that carries a list (the history's records, the config's keys) sends each entry
  /// first, a line of its own: a flat object whose first key is "item", naming what it is
  /// (`{"item":"config","key":"focus",...}`); the reply line (`{"ok":...}`) ends the list.
  /// Watch lines (`{"event":...}`) may come between them.
  public static func itemLine(_ kind: String, _ fields: [(String, JSONValue)]) -> String {
    FlatJSON.encode([("item", .string(kind))] + fields)
  }

  /// A history line (`{"ended":...}`) as an item line: `{"item":"history","ended":...}`.
  public static func itemLine(_ kind: String, object line: String) -> String {
    "{\"item\":" + FlatJSON.quote(kind) + (line.hasPrefix("{}") ? "}" : "," + line.dropFirst())
  }

  /// An item line taken apart: what it is and its fields (without "item"); nil for any other line.
  public static func decodeItem(_ line: String) -> (kind: String, fields: [String: JSONValue])? {
    guard line.hasPrefix("{\"item\""), var flat = FlatJSON.decode(line), let kind = flat["item"]?.string else {
      return nil
    }
    flat["item"] = nil
    return (kind, flat)
  }

  /// A watcher's line on every state change: the state's fields after `changes`, what the step
  /// that made it did (`StateChange`'s names: started, paused, ..., none for a state only shown
  /// anew).
  public static func watchLine(_ fields: [(String, JSONValue)], changes: [String] = []) -> String {
    FlatJSON.encode([("event", .string("state")), ("changes", .list(changes.map { .string($0) }))] + fields)
  }

  /// A reply taken apart: ok with the state's fields, or the error.
  public static func decodeReply(_ line: String) -> Result<[String: JSONValue], Refusal>? {
    if let flat = FlatJSON.decode(line) {
      // An error reply, or a watcher's state line.
      if flat["ok"]?.bool == false { return .failure(Refusal(flat["error"]?.string ?? "refused")) }
      if flat["event"]?.string == "state" { return .success(flat) }
      return nil
    }
    let prefix = "{\"ok\":true,\"state\":"
    guard line.hasPrefix(prefix), line.hasSuffix("}") else { return nil }
    let inner = String(line.dropFirst(prefix.count).dropLast())
    return FlatJSON.decode(inner).map { .success($0) }
  }

  /// `running  focus 2/4  17:42 left, ends 14:32`, `running  flow  12:34, break 2:00 earned`: the
  /// readable form of a state.
  public static func text(_ state: [String: JSONValue]) -> String {
    let ends = state["ends_at"]?.string.flatMap { WallTime(iso8601: $0, synced: true) }
    return statusLine(
      phase: state["phase"]?.string.flatMap(Phase.init(rawValue:)) ?? .idle, mode: state["mode"]?.string ?? "?",
      cycle: state["cycle"]?.string, time: state["remaining"]?.string ?? "?",
      earnedSeconds: state["earned_break_ms"]?.int.map { Int64($0) / 1000 }, sayLeft: true,
      ends: ends?.localHourMinute) + extras(state)
  }

  /// What follows the status line when the state has it: the label, the profile, the focus's
  /// interruptions, today's count toward the goal, the room, away (`  · Report  · profile deep
  /// · 2 interruptions  · today 3/8`).
  static func extras(_ state: [String: JSONValue]) -> String {
    var parts: [String] = []
    if let label = state["label"]?.string { parts.append(label) }
    if let profile = state["profile"]?.string, !profile.isEmpty { parts.append("profile " + profile) }
    if let marks = state["interruptions"]?.int, marks > 0 {
      parts.append(marks == 1 ? "1 interruption" : "\(marks) interruptions")
    }
    if let goal = state["goal"]?.int, goal > 0, let today = state["today"]?.int {
      parts.append("today \(today)/\(goal)" + (today >= goal ? ", goal met" : ""))
    }
    if let room = state["room_text"]?.string { parts.append("room " + room) }
    if state["present"] == .bool(false) { parts.append("away") }
    return parts.map { "  · " + $0 }.joined()
  }
}

extension WallTime {
  /// "14:32" in local time.
  public var localHourMinute: String {
    var t = time_t(epochSeconds)
    var parts = tm()
    localtime_r(&t, &parts)
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "\(two(parts.tm_hour)):\(two(parts.tm_min))"
  }
}
