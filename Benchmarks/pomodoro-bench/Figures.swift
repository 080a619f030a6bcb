import Foundation
import PomodoroSystem

/// What a figure must be for the run to pass: `equals` a value, or `at_most` one. Written into the
/// figures' JSON beside the value, so that a test reads both (Tests/web/flood.sh).
struct Expectation: Codable, Equatable, Sendable {
  var equals: Double?
  var atMost: Double?

  enum CodingKeys: String, CodingKey {
    case equals
    case atMost = "at_most"
  }

  static func equals(_ value: Double) -> Expectation { Expectation(equals: value) }
  static func atMost(_ value: Double) -> Expectation { Expectation(atMost: value) }

  func isMet(by value: Double) -> Bool {
    if let equals, value != equals { return false }
    if let atMost, value > atMost { return false }
    return true
  }

  /// `16`, `at most 4`.
  var text: String {
    [equals.map(Figure.number), atMost.map { "at most \(Figure.number($0))" }].compactMap { $0 }
      .joined(separator: ", ")
  }
}

/// One figure: `name value unit`, as printed.
struct Figure: Codable, Equatable, Sendable {
  var name: String
  var value: Double
  var unit: String
  var expect: Expectation?

  /// `16`, `20.151`: a value as a sentence says it.
  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }
}

/// The figures' file (`--json FILE`; Benchmarks/README.md): the command, when and how it was built,
/// and its figures in the order printed.
struct FigureFile: Codable, Sendable {
  static let schema = "pomodoro-bench/1"
  var schema = FigureFile.schema
  var command: String
  var arguments: [String]
  var date: String
  var build: String
  var figures: [Figure]
}

/// The figures of this run, as `figure` prints them.
final class Figures: @unchecked Sendable {
  static let shared = Figures()
  private let lock = NSLock()
  private var figures: [Figure] = []

  func add(_ figure: Figure) { lock.withLock { figures.append(figure) } }

  var all: [Figure] { lock.withLock { figures } }

  /// The figures whose expectation does not hold, one sentence each.
  var unmet: [String] {
    all.compactMap { f in
      guard let expect = f.expect, !expect.isMet(by: f.value) else { return nil }
      return "\(f.name) is \(Figure.number(f.value))\(f.unit.isEmpty ? "" : " " + f.unit), expected \(expect.text)"
    }
  }

  /// The run's figures as `FigureFile` JSON at `path`.
  func write(_ path: String, command: String, arguments: [String]) throws {
    #if DEBUG
      let build = "debug"
    #else
      let build = "release"
    #endif
    let date = ISO8601DateFormatter().string(from: Date())
    let file = FigureFile(command: command, arguments: arguments, date: date, build: build, figures: all)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try Files.writeAtomically(path, Array(try encoder.encode(file)) + [0x0A])
  }
}
