import PomodoroSystem

/// The numbers a word takes: `from 2 to 64`, and whether a text is one of them.
struct NumberRange: Sendable {
  let text: String
  let accepts: @Sendable (String) -> Bool

  static func of<T: LosslessStringConvertible & Comparable & Sendable>(_ range: ClosedRange<T>) -> NumberRange {
    NumberRange(
      text: "from \(range.lowerBound) to \(range.upperBound)", accepts: { T($0).map(range.contains) ?? false })
  }
}

/// A word a bench command takes: a positional one (`DAYS`), an option with a value (`--rounds K`)
/// or a switch (`--long`), with what it means and, for a number, its range. The usage, the help
/// and the parsing come from it.
struct BenchWord: Sendable {
  enum Kind: Sendable {
    case positional(required: Bool, repeats: Bool)
    case option(value: String)
    case flag
  }
  let name: String
  let kind: Kind
  let means: String
  /// The numbers it takes; nil: any word.
  var numbers: NumberRange? = nil

  static func positional(
    _ name: String, required: Bool = false, repeats: Bool = false, numbers: NumberRange? = nil, _ means: String
  ) -> BenchWord {
    BenchWord(name: name, kind: .positional(required: required, repeats: repeats), means: means, numbers: numbers)
  }
  static func option(_ name: String, _ value: String, numbers: NumberRange? = nil, _ means: String) -> BenchWord {
    BenchWord(name: name, kind: .option(value: value), means: means, numbers: numbers)
  }
  static func flag(_ name: String, _ means: String) -> BenchWord { BenchWord(name: name, kind: .flag, means: means) }

  /// `[DAYS]`, `DIR`, `[FSYNC_MS...]`, `[--rounds K]`, `[--long]`.
  var usage: String {
    switch kind {
    case .positional(let required, let repeats):
      let word = name + (repeats ? "..." : "")
      return required ? word : "[\(word)]"
    case .option(let value): return "[\(name) \(value)]"
    case .flag: return "[\(name)]"
    }
  }

  /// `DAYS`, `--rounds K`, `--long`: the word as its help names it.
  var shown: String {
    if case .option(let value) = kind { return name + " " + value }
    return name
  }

  /// What it means, and the numbers it takes.
  var meaning: String { means + (numbers.map { "; a number \($0.text)" } ?? "") }

  /// `--json FILE`: every command that measures takes it.
  static let json = option("--json", "FILE", "also write the figures as JSON to FILE (Benchmarks/README.md)")
}

/// One bench command, declared once: the overview's line, its help, its parsing and its run.
struct BenchCommand: Sendable {
  let name: String
  let words: [BenchWord]
  let summary: String
  /// Started by the bench itself (a child process it measures), not by hand: no figures of its own.
  var child = false
  let run: @Sendable (BenchArguments) throws -> Int32

  /// Its words, `--json FILE` last unless it is a child.
  var allWords: [BenchWord] { child ? words : words + [.json] }

  var usage: String { ([name] + allWords.map(\.usage)).joined(separator: " ") }

  var help: String {
    let width = allWords.map(\.shown.count).max().map { $0 + 3 } ?? 0
    let lines = allWords.map { "  " + $0.shown + String(repeating: " ", count: width - $0.shown.count) + $0.meaning }
    let codes: [(code: Int32, meaning: String)] = [
      (ExitCode.ok, ExitCode.meaning(ExitCode.ok)),
      (ExitCode.failure, "a figure missed what it must be (said on stderr), or the run could not be made"),
      (ExitCode.usage, ExitCode.meaning(ExitCode.usage)),
    ]
    return "Usage: pomodoro-bench \(usage)\n\n\(summary)\n"
      + (lines.isEmpty ? "" : "\n" + lines.joined(separator: "\n") + "\n")
      + "\nExit codes: \(ExitCode.list(codes)).\n"
  }
}

/// A bench command's words, taken apart by the CLI's `Arguments` (strict: an unknown option is
/// refused) and checked against the command's declaration: none missing, none too many, each
/// number in its range.
struct BenchArguments {
  let command: BenchCommand
  let parsed: Arguments
  /// The positional words by their declared name (a repeating one: all that are left).
  private var byName: [String: [String]] = [:]

  init(_ command: BenchCommand, _ words: ArraySlice<String>) throws {
    self.command = command
    var valued: Set<String> = []
    var flags: Set<String> = []
    var positional: [BenchWord] = []
    for word in command.allWords {
      switch word.kind {
      case .option: valued.insert(word.name)
      case .flag: flags.insert(word.name)
      case .positional: positional.append(word)
      }
    }
    do {
      parsed = try Arguments(words, valued: valued, switches: flags)
    } catch let error as UsageError {
      throw UsageError("\(command.name): \(error)")
    }
    var given = parsed.positional[...]
    for word in positional {
      guard case .positional(let required, let repeats) = word.kind else { continue }
      if given.isEmpty && required { throw UsageError("\(command.name) needs \(word.name): \(command.usage)") }
      byName[word.name] = repeats ? Array(given) : given.popFirst().map { [$0] } ?? []
      if repeats { given = [] }
    }
    if let extra = given.first {
      throw UsageError("\(command.name) takes no more words, got '\(TextLines.visible(extra))': \(command.usage)")
    }
    for word in command.allWords {
      guard let numbers = word.numbers else { continue }
      let texts = word.name.hasPrefix("-") ? [parsed.values[word.name]].compactMap { $0 } : byName[word.name] ?? []
      for text in texts where !numbers.accepts(text) {
        throw UsageError(
          "\(command.name): \(word.name) takes a number \(numbers.text), got '\(TextLines.visible(text))'")
      }
    }
  }

  /// The positional word `name`, if given.
  func word(_ name: String) -> String? { byName[name]?.first }
  /// The repeating positional word `name`: every one given.
  func words(_ name: String) -> [String] { byName[name] ?? [] }
  func value(_ option: String) -> String? { parsed.values[option] }
  func has(_ flag: String) -> Bool { parsed.switches.contains(flag) }

  /// The number word or option `name` (its range checked when parsed), or `otherwise` when it is
  /// not given.
  func number<T: LosslessStringConvertible>(_ name: String, otherwise: T) -> T {
    (name.hasPrefix("-") ? value(name) : word(name)).flatMap { T($0) } ?? otherwise
  }

  /// The repeating number word `name`: every one given, or `otherwise` when none is.
  func numbers<T: LosslessStringConvertible>(_ name: String, otherwise: [T]) -> [T] {
    let given = words(name).compactMap { T($0) }
    return given.isEmpty ? otherwise : given
  }
}
