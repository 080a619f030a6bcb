import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// One step of a scenario script (see docs/scripts.md, "Scripted scenarios").
public enum ScriptStep: Equatable, Sendable {
  /// `turn +N` / `turn -N`, with `fast` (10 ms apart instead of 150 ms) and `bounce`.
  case turn(detents: Int, fast: Bool, bounce: Bool)
  /// `press start|cancel|encoder`: pressed 80 ms, then released.
  case press(Button)
  /// `hold start|cancel|encoder DURATION`: a long press.
  case hold(Button, Nanoseconds)
  /// `wait DURATION`: time passes.
  case wait(Nanoseconds)
  /// `clock HH:MM`: the wall clock is set to that local time of day (no time passes).
  case clock(minuteOfDay: Int)
  /// `set KEY VALUE`: a setting changed on the running device, as `pomodoro ctl config set` does.
  case set(key: String, value: String)
  /// `presence away|here`: the presence sensor (`presence_line`) sees nobody, or someone; the
  /// step lasts while the line settles (`PresenceWatch.settle`).
  case presence(here: Bool)
  /// `profile [NAME]`: the profile chosen, as `pomodoro ctl profile NAME` does (none: the base).
  case profile(String?)
}

/// A script line: its number in the file, its step, and the `# expect` lines that follow it.
public struct ScriptLine: Equatable, Sendable {
  public var number: Int
  public var step: ScriptStep
  /// The step as written, for messages.
  public var text: String = ""
  /// Checks on the transcript lines this step produces, in order.
  public var expectations: [Expectation] = []
}

/// A parsed script: its steps, and the checks on what the device does before the first step
/// (start-up).
public struct Script: Equatable, Sendable {
  /// The virtual time a script may cover at most: ten years. A script that would pass it is
  /// refused before it runs, naming the line (the clock counts nanoseconds in 64 bits, so 257
  /// lines of `wait 10000h` would otherwise overflow it).
  public static let longestVirtualTime: Nanoseconds = days(3653)

  public var opening: [Expectation] = []
  public var lines: [ScriptLine] = []

  public var expectationCount: Int { opening.count + lines.reduce(0) { $0 + $1.expectations.count } }
}

/// A bad script line, named by number with what was expected.
public struct ScriptError: FileLineError, Equatable {
  public var file: String
  public var line: Int
  public var message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }
}

extension ScriptStep {
  /// The most virtual time the step takes, from the mock hardware's own timings.
  var longest: Nanoseconds {
    switch self {
    case .turn(let detents, let fast, _):
      let spacing = fast ? MockHardware.fastDetentSpacing : MockHardware.detentSpacing
      return Nanoseconds(detents.magnitude) * spacing + MockHardware.releaseTime
    case .press: return MockHardware.pressTime + MockHardware.releaseTime
    case .hold(_, let duration): return duration + MockHardware.releaseTime
    case .wait(let duration): return duration
    case .presence: return PresenceWatch.settle
    case .clock, .set, .profile: return 0
    }
  }
}

public enum ScriptParser {
  static let usage =
    "expected one of: turn +N|-N [fast] [bounce]; press start|cancel|encoder; hold start|cancel|encoder DURATION; wait DURATION; clock HH:MM; set KEY VALUE; presence away|here; profile [NAME]"

  /// Parses the whole script first: a bad line is an error and nothing runs. Lines may end in
  /// CRLF; a leading BOM is dropped; `#` starts a comment at the start of a line or after a
  /// space; an invisible character (a control or format character) is an error naming it. With
  /// `config`, the device the script runs on: a `presence` line without a presence line is an error.
  public static func parse(_ text: String, file: String, config: DeviceConfig? = nil) throws -> Script {
    var script = Script()
    var virtualTime: Nanoseconds = 0
    for (index, raw) in TextLines.split(text).enumerated() {
      var line = Substring(raw)
      if let bad = TextLines.firstInvisible(line) {
        throw ScriptError(
          file: file, line: index + 1,
          message: "an invisible character \(TextLines.visible(String(bad))) in '\(TextLines.visible(line))'; delete it"
        )
      }
      if let expectation = try Expectation.parse(line, file: file, line: index + 1) {
        if script.lines.isEmpty {
          script.opening.append(expectation)
        } else {
          script.lines[script.lines.count - 1].expectations.append(expectation)
        }
        continue
      }
      if let hash = TextLines.commentStart(line) { line = line[..<hash] }
      let words = TextLines.words(line)
      guard let verb = words.first else { continue }
      func fail(_ message: String) -> ScriptError { ScriptError(file: file, line: index + 1, message: message) }
      func button(_ word: String?) throws -> Button {
        guard let word, let b = Button(rawValue: word) else {
          throw fail("expected start, cancel or encoder after '\(verb)', found '\(word ?? "nothing")'")
        }
        return b
      }
      func duration(_ word: String?) throws -> Nanoseconds {
        guard let word, let d = DurationText.parse(word) else {
          throw fail("expected a duration like 90s, 1m30s or 2.5s after '\(verb)', found '\(word ?? "nothing")'")
        }
        return d
      }
      let step: ScriptStep
      switch verb {
      case "turn":
        guard words.count >= 2, let sign = words[1].first, sign == "+" || sign == "-",
          words[1].dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }),
          let n = Int(words[1].dropFirst()), n > 0, n <= 100_000
        else {
          throw fail(
            "expected `turn +N` or `turn -N` with N from 1 to 100000, found '\(words.dropFirst().first ?? "nothing")'")
        }
        let flags = Set(words.dropFirst(2))
        guard flags.isSubset(of: ["fast", "bounce"]), flags.count == words.count - 2 else {
          throw fail(
            "expected only `fast` and `bounce` after `turn \(words[1])`, found '\(words.dropFirst(2).joined(separator: " "))'"
          )
        }
        step = .turn(detents: sign == "+" ? n : -n, fast: flags.contains("fast"), bounce: flags.contains("bounce"))
      case "press":
        guard words.count == 2 else { throw fail("expected `press start|cancel|encoder`") }
        step = .press(try button(words[1]))
      case "hold":
        guard words.count == 3 else { throw fail("expected `hold start|cancel|encoder DURATION`") }
        step = .hold(try button(words[1]), try duration(words[2]))
      case "wait":
        guard words.count == 2 else { throw fail("expected `wait DURATION`") }
        step = .wait(try duration(words[1]))
      case "clock":
        guard words.count == 2, let minute = QuietHours.minuteOfDay(words[1]) else {
          throw fail(
            "expected `clock HH:MM`, a local time of day like 21:58, found '\(words.dropFirst().joined(separator: " "))'"
          )
        }
        step = .clock(minuteOfDay: minute)
      case "set":
        guard words.count >= 2 else { throw fail("expected `set KEY VALUE`") }
        let key = words[1]
        let value = words.dropFirst(2).joined(separator: " ")
        guard let setting = ConfigKey.all.first(where: { $0.name == key }), setting.settable else {
          let keys = ConfigKey.settableKeys.map(\.name).joined(separator: ", ")
          throw fail("'\(TextLines.visible(key))' is no key `set` takes; it takes \(keys)")
        }
        var probe = DeviceConfig()
        if let problem = ConfigParser.read(key, value, into: &probe) { throw fail(problem) }
        step = .set(key: key, value: value)
      case "presence":
        guard words.count == 2, words[1] == "away" || words[1] == "here" else {
          throw fail("expected `presence away` or `presence here`")
        }
        if let config, config.presenceLine == nil {
          throw fail("`presence` needs a presence sensor: set presence_line in the config (--config FILE)")
        }
        step = .presence(here: words[1] == "here")
      case ControlCommand.profile(nil).name:
        // Read as ctl reads it; a name the config does not define is refused as the device would.
        guard case .success(.profile(let name)) = ControlCommand.parse(words: words) else {
          throw fail("expected `profile NAME` with a profile's name (\(Profile.nameRule)), or `profile` for the base")
        }
        if let config, let name, config.engine.profile(named: name) == nil {
          let known = config.engine.profiles.map(\.name).joined(separator: ", ")
          throw fail(
            "no profile '\(name)' in the config (\(known.isEmpty ? "it defines none" : known)); define it there")
        }
        step = .profile(name)
      default:
        throw fail("unknown step '\(verb)'; \(usage)")
      }
      virtualTime += step.longest
      guard virtualTime <= Script.longestVirtualTime else {
        throw fail(
          "the script would run past \(DurationText.format(Script.longestVirtualTime)) of virtual time here, the most one "
            + "script may cover; split it or shorten its waits")
      }
      script.lines.append(ScriptLine(number: index + 1, step: step, text: words.joined(separator: " ")))
    }
    return script
  }
}
