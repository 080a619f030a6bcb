/// A command line taken apart: flags with values, switches, and positional words. Strict:
/// an unknown option is a usage error naming it. (Here, below the commands, so that a server's
/// own binary, `pomodoro-mqtt`, reads its words as `pomodoro` does.)
public struct Arguments {
  public var values: [String: String] = [:]
  public var switches: Set<String> = []
  public var positional: [String] = []

  /// - Parameters:
  ///   - valued: options that take a value (`--config FILE` or `--config=FILE`).
  ///   - switches: options that stand alone.
  public init(_ words: ArraySlice<String>, valued: Set<String>, switches allowed: Set<String>) throws {
    var rest = words
    while let word = rest.popFirst() {
      if word == "--" {
        positional += rest
        break
      }
      guard word.hasPrefix("-"), word.count > 1 else {
        positional.append(word)
        continue
      }
      let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
      let name = parts[0]
      if valued.contains(name) {
        guard let value = parts.count == 2 ? parts[1] : rest.popFirst() else {
          throw UsageError("\(name) needs a value")
        }
        // An empty value ('', or --png=) names no file: say so, rather than fail later on ''.
        guard !value.isEmpty else { throw UsageError("\(name) needs a value, not an empty one") }
        values[name] = value
      } else if allowed.contains(name) && parts.count == 1 {
        switches.insert(name)
      } else {
        throw UsageError("unknown option '\(word)'")
      }
    }
  }
}

/// A mistake on the command line; exits 64.
public struct UsageError: Error, CustomStringConvertible {
  public var description: String
  public init(_ message: String) { description = message }
}
