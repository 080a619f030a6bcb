import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// A check a script makes on its own transcript, written under the step it is about:
///
///     press cancel
///     # expect event=state phase=idle mode=soft
///     wait 10s
///     # expect-none event=buzzer on=true
///
/// `# expect` passes when a transcript line of that step's run has every `key=value`; the
/// expectations under one step match in their order (each after the line the previous one
/// matched). `# expect-none` passes when no line of the step's run has them all. Expectations
/// before the first step are about start-up. Like embedded-hal-mock's `done()`, a run fails on
/// the first expectation not met.
public struct Expectation: Equatable, Sendable, CustomStringConvertible {
  public var line: Int
  public var negated: Bool
  public var pairs: [Pair]

  public struct Pair: Equatable, Sendable {
    public var key: String
    public var value: String
  }

  public var description: String {
    (negated ? "expect-none " : "expect ") + pairs.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
  }

  /// The transcript events `expectations` ask about (their `event=` values); nil when one of
  /// them does not say, and so may match a line of any event.
  static func events(_ expectations: [Expectation]) -> Set<String>? {
    var events = Set<String>()
    for expectation in expectations {
      guard let event = expectation.pairs.first(where: { $0.key == "event" }) else { return nil }
      events.insert(event.value)
    }
    return events
  }

  /// Whether transcript object `object` has every pair (values compared as JSON text, strings
  /// without their quotes).
  public func matches(_ object: [String: JSONValue]) -> Bool {
    pairs.allSatisfy { pair in
      guard let value = object[pair.key] else { return false }
      switch value {
      case .string(let s): return s == pair.value
      case .int(let n): return String(n) == pair.value
      case .bool(let b): return String(b) == pair.value
      case .null: return pair.value == "null"
      case .list: return value.text == pair.value
      }
    }
  }

  /// The expectation on `text` if it is a `# expect` or `# expect-none` comment, nil for any
  /// other line; a malformed one is a `ScriptError`.
  static func parse(_ text: Substring, file: String, line: Int) throws -> Expectation? {
    guard text.utf8.contains(UInt8(ascii: "#")) else { return nil }
    let words = TextLines.words(text)
    guard words.count >= 2, words[0] == "#", words[1] == "expect" || words[1] == "expect-none" else {
      guard let first = words.first, first == "#expect" || first == "#expect-none" else { return nil }
      throw ScriptError(
        file: file, line: line, message: "expected a space after '#': `# \(first.dropFirst()) key=value ...`")
    }
    var pairs: [Pair] = []
    for word in words.dropFirst(2) {
      let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw ScriptError(
          file: file, line: line,
          message: "expected key=value pairs after `# \(words[1])` (like event=state phase=idle), found '\(word)'")
      }
      pairs.append(Pair(key: String(parts[0]), value: String(parts[1])))
    }
    guard !pairs.isEmpty else {
      throw ScriptError(
        file: file, line: line, message: "expected key=value pairs after `# \(words[1])`, like event=state phase=idle")
    }
    if let problem = impossible(pairs) {
      throw ScriptError(file: file, line: line, message: "`# \(words[1])` can never match: \(problem)")
    }
    return Expectation(line: line, negated: words[1] == "expect-none", pairs: pairs)
  }

  /// Values a key can take, where they are few.
  static let values: [String: [String]] = [
    "event": Transcript.keys.keys.sorted(), "phase": Phase.allCases.map(\.rawValue),
    "mode": Mode.allCases.map(\.rawValue), "outcome": SessionRecord.Outcome.allCases.map(\.rawValue),
    "on": ["true", "false"],
    "clock_synced": ["true", "false"],
  ]

  /// Keys whose values are whole numbers.
  static let numbers: Set<String> = [
    "t", "remaining_ms", "total_ms", "bytes", "contrast", "shift_x", "shift_y", "frames", "i2c_bytes", "buzzer_on_ms",
    "planned_ms", "actual_ms", "extended_ms", "elapsed_ms", "earned_break_ms",
  ]

  /// Why no transcript line can have all of `pairs` (a misspelled key or value, which would make
  /// an `# expect-none` pass silently), nil when one can.
  static func impossible(_ pairs: [Pair]) -> String? {
    for pair in pairs {
      if let allowed = values[pair.key], !allowed.contains(pair.value) {
        return "'\(pair.value)' is no value of \(pair.key); it takes \(allowed.joined(separator: ", "))"
      }
      if numbers.contains(pair.key), Int64(pair.value) == nil {
        return "\(pair.key) takes a whole number, not '\(pair.value)'"
      }
    }
    let event = pairs.first { $0.key == "event" }?.value
    let keys = event.flatMap { Transcript.keys[$0] } ?? Transcript.keys.values.reduce(into: Set()) { $0.formUnion($1) }
    if let unknown = pairs.first(where: { !keys.contains($0.key) }) {
      return "no \(event.map { "`\($0)` " } ?? "")line has the key '\(unknown.key)'; "
        + "its keys: \(keys.sorted().joined(separator: ", "))"
    }
    return nil
  }
}

/// The first expectation a run did not meet: its line, what was expected, what came instead.
public struct UnmetExpectation: Error, Equatable, CustomStringConvertible {
  public var file: String
  public var expectation: Expectation
  /// The step the expectation is about ("start-up" before the first step).
  public var step: String
  public var instead: String

  public var description: String {
    "\(file):\(expectation.line): `\(expectation)` not met during \(step); \(instead)"
  }
}

/// Checks a script's expectations against the transcript objects of each of its steps.
public enum ExpectationCheck {
  /// Nil when every expectation of `expectations` is met by `objects` (one step's transcript
  /// lines, in order); else the first one that is not.
  public static func check(
    _ expectations: [Expectation], against objects: [[String: JSONValue]], file: String, step: String
  ) -> UnmetExpectation? {
    var cursor = 0
    for expectation in expectations {
      if expectation.negated {
        if let hit = objects.first(where: expectation.matches) {
          return UnmetExpectation(
            file: file, expectation: expectation, step: step, instead: "found \(FlatJSON.encode(ordered(hit)))")
        }
        continue
      }
      if let found = objects[cursor...].firstIndex(where: expectation.matches) {
        cursor = found + 1
        continue
      }
      return UnmetExpectation(
        file: file, expectation: expectation, step: step, instead: instead(of: expectation, in: objects, from: cursor))
    }
    return nil
  }

  /// What came instead: the step's lines of the same event kind (after the previous match), or
  /// that the expected line came earlier, or that the step produced none.
  static func instead(of expectation: Expectation, in objects: [[String: JSONValue]], from cursor: Int) -> String {
    if objects[..<cursor].contains(where: expectation.matches) {
      return "a matching line came before the previous expectation's; expectations match in order"
    }
    let kind = expectation.pairs.first { $0.key == "event" }?.value
    let candidates = objects[cursor...].filter { kind == nil || $0["event"] == .string(kind!) }
    guard !candidates.isEmpty else {
      return "the step wrote no \(kind.map { "`\($0)` " } ?? "")line" + (cursor > 0 ? " after the previous match" : "")
    }
    let shown = candidates.prefix(3).map { FlatJSON.encode(ordered($0)) }.joined(separator: ", ")
    return "instead: " + shown + (candidates.count > 3 ? " and \(candidates.count - 3) more" : "")
  }

  /// A decoded object with `t` and `event` first and the rest by key, for messages.
  static func ordered(_ object: [String: JSONValue]) -> [(String, JSONValue)] {
    let head = ["t", "event"].compactMap { key in object[key].map { (key, $0) } }
    return head
      + object.filter { $0.key != "t" && $0.key != "event" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }
}
