import Foundation
import PomodoroCommandLine
import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroSimulator
import PomodoroStats
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroControl
@testable import PomodoroRuntime

/// Seeded fuzzing of everything that reads input: the config parser, the script parser,
/// DurationText, the JSON reader (state.json and history lines) and the history reader. Each
/// gets at least 10,000 inputs (mutations of the real files plus random bytes, CRLF, a BOM, NUL,
/// huge and fractional numbers) and must not trap, must fail only with its documented error
/// naming a line of the input, and must round-trip what it accepts. The seeds are fixed: a
/// failure reproduces, and its message gives the input.
final class FuzzTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func file(_ relative: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
  }

  /// What mutations insert: line ends, a BOM, NUL, comment and key syntax, huge, negative and
  /// fractional numbers, units, pins, escapes, JSON punctuation, invisible characters.
  static let pieces: [String] = [
    "\r\n", "\r", "\n", "\u{FEFF}", "\u{0}", "#", " #", "=", " ", "\t", ".", "..", "0.4166667h", "1.999999999h",
    "0.999999999m", "1h9223372035s", "9223372036854775807", "99999999999999999999", "5000000000000000000", "604800001",
    "-1", "0x", "ms", "h", "s",
    "never", "GPIO17", "GPIO27", "17", "\u{1B}[2J", "é", "\u{202E}", "\u{FFFD}", "\"", "\\", "\\u0000", "\\ud800",
    "{", "}", ":", ",", "null", "true", "0.000000001", "1e9", "+", "25m", "# expect", "event=state", "turn +",
    "wait ", "press start", "2026-13-45T99:99:99Z", "2026-02-29T12:00:00Z",
  ]

  struct Mutator {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    /// Random bytes, decoded as a reader would (invalid UTF-8 becomes U+FFFD).
    mutating func randomBytes(_ count: Int) -> String {
      String(decoding: (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, as: UTF8.self)
    }

    /// One to four random edits of `text`, on its UTF-8 bytes at scalar boundaries (an array of
    /// scalars turned back into a String scalar by scalar was half the test's time).
    mutating func mutate(_ text: String) -> String {
      var s = Array(text.utf8)
      /// The start of the scalar that holds byte `i` (or the end).
      func boundary(_ i: Int) -> Int {
        var i = min(i, s.count)
        while i > 0, i < s.count, s[i] & 0xC0 == 0x80 { i -= 1 }
        return i
      }
      /// The start of the first scalar at or after byte `i` (or the end).
      func forward(_ i: Int) -> Int {
        var i = min(i, s.count)
        while i < s.count, s[i] & 0xC0 == 0x80 { i += 1 }
        return i
      }
      for _ in 0..<(1 + int(4)) {
        let at = boundary(int(s.count + 1))
        switch int(9) {
        case 0, 1, 2: s.insert(contentsOf: FuzzTests.pieces[int(FuzzTests.pieces.count)].utf8, at: at)
        case 3:
          if !s.isEmpty {
            let from = boundary(min(at, s.count - 1))
            s.removeSubrange(from..<forward(from + 1 + int(8)))
          }
        case 4:
          if at < s.count {
            let latin1 = Unicode.Scalar(UInt8(truncatingIfNeeded: rng.next()))
            s.replaceSubrange(at..<forward(at + 1), with: String(latin1).utf8)
          }
        case 5:
          var out: [UInt8] = []
          out.reserveCapacity(s.count + s.count / 16)
          var from = 0
          while let lf = s[from...].firstIndex(of: 0x0A) {
            out += s[from..<lf]
            out += [0x0D, 0x0A]
            from = lf + 1
          }
          out += s[from...]
          s = out
        case 6: s.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
        case 7:
          var lines = s.split(separator: 0x0A, omittingEmptySubsequences: false)
          if lines.count > 1 {
            let a = int(lines.count)
            let b = int(lines.count)
            if chance(50) { lines.swapAt(a, b) } else { lines.insert(lines[a], at: b) }
          }
          s = Array(lines.joined(separator: [0x0A]))
        default:
          // A number in the text becomes a huge, negative or long-fractioned one.
          if let i = s[at...].firstIndex(where: { $0 >= 0x30 && $0 <= 0x39 }) {
            let big = ["9223372036854775808", "4294967296", ".999999999", "0000000000000000000001", "-0"]
            s.insert(contentsOf: big[int(big.count)].utf8, at: i)
          }
        }
      }
      return String(decoding: s, as: UTF8.self)
    }
  }

  /// Tallies failures and keeps the first few messages, so that a broken parser does not write
  /// ten thousand lines.
  final class Failures {
    var count = 0
    var first: [String] = []
    func add(_ message: String) {
      count += 1
      if first.count < 5 { first.append(message) }
    }
    func check(file: StaticString = #filePath, line: UInt = #line) {
      XCTAssertEqual(count, 0, first.joined(separator: "\n"), file: file, line: line)
    }
  }

  static func visibleOnly(_ message: String) -> Bool { !message.unicodeScalars.contains(where: TextLines.isInvisible) }

  // MARK: DurationText

  func testDurationTextNeverTrapsStaysInRangeAndRoundTrips() {
    var m = Mutator(seed: 0xD0_0001)
    let failures = Failures()
    let alphabet = ["0", "1", "5", "9", ".", "h", "m", "s", "ms", "x", "9999999999", "000", "-", " ", "µ"]
    var accepted = 0
    for i in 0..<20_000 {
      let text: String
      if i % 4 == 0 {
        text = m.mutate(["25m", "1m30s", "2.5s", "500ms", "1h2m3s4ms", "0.4166667h"][m.int(6)])
      } else {
        text = (0..<(1 + m.int(8))).map { _ in alphabet[m.int(alphabet.count)] }.joined()
      }
      guard let d = DurationText.parse(text) else { continue }
      accepted += 1
      if d < 0 || d > DurationText.longest { failures.add("'\(text)' gave \(d)") }
      if DurationText.parse(DurationText.format(d)) != d { failures.add("'\(text)' -> \(DurationText.format(d))") }
    }
    for _ in 0..<10_000 {
      let d = Nanoseconds(m.rng.next() % UInt64(DurationText.longest + 1))
      let shown = DurationText.format(d)
      if DurationText.parse(shown) != d {
        failures.add("\(d) printed as \(shown) reads back as \(String(describing: DurationText.parse(shown)))")
      }
    }
    failures.check()
    XCTAssertGreaterThan(accepted, 500, "the generator must reach valid durations too")
  }

  // MARK: The history's fast reader

  /// The positional reader of canonical history lines and the general JSON reader give the same
  /// answer on 30,000 lines: written ones, mutated ones, random ones; every line the fast reader
  /// takes is exactly what `jsonLine` writes back.
  func testTheHistorysFastReaderAgreesWithTheGeneralOne() {
    var m = Mutator(seed: 0x4157_0123)
    let failures = Failures()
    var fast = 0
    let modes = Mode.allCases
    for i in 0..<30_000 {
      let written = HistoryEntry(
        ended: WallTime(epochSeconds: Int64(m.int(4_000_000_000)), synced: m.chance(80)),
        mode: modes[m.int(modes.count)], outcome: m.chance(70) ? .completed : .cancelled,
        plannedMs: Int64(m.int(200_000_000)), actualMs: Int64(m.int(200_000_000)), extendedMs: Int64(m.int(1000))
      ).jsonLine
      let input = i % 10 == 9 ? m.randomBytes(m.int(200)) : i % 3 == 0 ? written : m.mutate(written)
      let quick = HistoryEntry(canonical: input)
      let general = HistoryEntry.general(input)
      if let quick {
        fast += 1
        if quick != general { failures.add("fast \(quick) but general \(String(describing: general)) for \(input)") }
        if quick.jsonLine != input { failures.add("fast took a line it does not write: \(input)") }
      } else if let general, general.jsonLine == input {
        failures.add("fast refused a canonical line: \(input)")
      }
    }
    failures.check()
    XCTAssertGreaterThan(fast, 10_000, "the written lines take the fast path")
  }

  // MARK: The config parser

  func testConfigParserNeverTrapsNamesALineOfTheFileAndRoundTrips() throws {
    let real = try Self.file("deploy/pomodoro.conf")
    var m = Mutator(seed: 0xC0_0F16)
    let failures = Failures()
    var valid = 0
    var invalid = 0
    for i in 0..<10_000 {
      let input = i % 10 == 9 ? m.randomBytes(m.int(400)) : m.mutate(real)
      do {
        let config = try ConfigParser.parse(input, file: "fuzz.conf")
        valid += 1
        let again = try ConfigParser.parse(ConfigParser.text(of: config), file: "again.conf")
        if again != config { failures.add("round trip changed \(TextLines.visible(input))") }
      } catch let e as ConfigError {
        invalid += 1
        let lines = TextLines.split(input).count
        if e.file != "fuzz.conf" || !(1...lines).contains(e.line) {
          failures.add("line \(e.line) of \(lines): \(e) for \(TextLines.visible(input))")
        }
        if !Self.visibleOnly(e.description) {
          failures.add("raw invisible character in: \(TextLines.visible(e.description))")
        }
      } catch {
        failures.add("undocumented error \(error)")
      }
    }
    failures.check()
    XCTAssertGreaterThan(valid, 500, "mutations must leave valid configs too")
    XCTAssertGreaterThan(invalid, 3000)
  }

  // MARK: The script parser

  func testScriptParserNeverTrapsNamesALineOfTheScriptAndRoundTrips() throws {
    let folder = Self.root.appendingPathComponent("Tests/scenarios")
    let scripts = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pomo") }
      .sorted().map { try Self.file("Tests/scenarios/" + $0) }
    XCTAssertGreaterThan(scripts.count, 3)
    var m = Mutator(seed: 0x5C_0001)
    let failures = Failures()
    var valid = 0
    for i in 0..<10_000 {
      let input = i % 10 == 9 ? m.randomBytes(m.int(300)) : m.mutate(scripts[m.int(scripts.count)])
      let lines = TextLines.split(input).count
      do {
        let script = try ScriptParser.parse(input, file: "fuzz.pomo")
        valid += 1
        if script.lines.contains(where: { !(1...lines).contains($0.number) }) {
          failures.add("line number out of range")
        }
        // Written out again (steps as parsed, expectations as described), it reads the same.
        let text =
          (script.opening.map { "# \($0)" }
          + script.lines.flatMap { [$0.text] + $0.expectations.map { "# \($0)" } }).joined(separator: "\n")
        let again = try ScriptParser.parse(text, file: "again.pomo")
        if again.lines.map(\.step) != script.lines.map(\.step)
          || again.expectationCount != script.expectationCount
        {
          failures.add("round trip changed \(TextLines.visible(input))")
        }
      } catch let e as ScriptError {
        if e.file != "fuzz.pomo" || !(1...lines).contains(e.line) {
          failures.add("line \(e.line) of \(lines): \(e) for \(TextLines.visible(input))")
        }
        if !Self.visibleOnly(e.description) {
          failures.add("raw invisible character in: \(TextLines.visible(e.description))")
        }
      } catch {
        failures.add("undocumented error \(error)")
      }
    }
    failures.check()
    XCTAssertGreaterThan(valid, 500)
  }

  // MARK: The JSON reader: state.json and history lines

  static let stateLine =
    #"{"version":1,"phase":"running","mode":"focus","duration_ns":1500000000000,"remaining_ns":1234567890,"focus_done_in_cycle":2}"#
  static let historyLines = [
    #"{"ended":"2026-11-30T15:00:05Z","clock_synced":true,"mode":"focus","outcome":"completed","planned_ms":1500000,"actual_ms":1500000}"#,
    #"{"ended":"2026-02-28T23:59:59Z","clock_synced":false,"mode":"soft","outcome":"cancelled","planned_ms":300000,"actual_ms":12}"#,
  ]

  func testJSONReaderNeverTrapsAndRoundTripsStateAndHistoryLines() {
    var m = Mutator(seed: 0x15_0001)
    let failures = Failures()
    var states = 0
    var entries = 0
    for i in 0..<15_000 {
      let seed = i % 3 == 0 ? Self.stateLine : Self.historyLines[i % 2]
      let input = i % 10 == 9 ? m.randomBytes(m.int(200)) : m.mutate(seed)
      if let object = FlatJSON.decode(input) {
        let again = FlatJSON.decode(FlatJSON.encode(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        if again != object { failures.add("object round trip: \(TextLines.visible(input))") }
      }
      do {
        let saved = try StateStore.decode(input, path: "state.json")
        states += 1
        let text = String(decoding: StateStore.bytes(saved), as: UTF8.self)
        if (try? StateStore.decode(text, path: "state.json")) != saved { failures.add("state round trip: \(text)") }
      } catch let e as StateFileError {
        if e.path != "state.json" || !Self.visibleOnly(e.description) { failures.add("message: \(e)") }
      } catch {
        failures.add("undocumented error \(error)")
      }
      if let entry = HistoryEntry(jsonLine: input) {
        entries += 1
        if HistoryEntry(jsonLine: entry.jsonLine) != entry { failures.add("entry round trip: \(entry.jsonLine)") }
        if ![entry.plannedMs, entry.actualMs, entry.extendedMs].allSatisfy({ 0...HistoryEntry.longestMs ~= $0 }) {
          failures.add("a time out of range accepted: \(TextLines.visible(input))")
        }
      }
    }
    failures.check()
    XCTAssertGreaterThan(states, 100)
    XCTAssertGreaterThan(entries, 500)
  }

  // MARK: The history reader

  /// Ten thousand histories through the reader's own line splitter (`Files.LineSplitter`, fed
  /// from memory in chunks of random sizes, so lines cross chunk ends as they do across 64 KiB
  /// reads) and its line reader; every 25th also written to a real file and read by
  /// `HistoryLog.read`, through `Files.forEachLine`.
  func testHistoryReaderReadsEveryValidLineAndNamesEveryDamagedOne() throws {
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let log = HistoryLog(directory: directory)
    var m = Mutator(seed: 0x41_0001)
    let failures = Failures()
    var damagedSeen = 0
    var files = 0
    for i in 0..<10_000 {
      var expectedEntries: [HistoryEntry] = []
      var expectedDamaged: [Int] = []
      var text = m.chance(10) ? "\u{FEFF}" : ""
      let hasBOM = !text.isEmpty
      let crlf = m.chance(30)
      let count = m.int(7)
      for n in 1...max(count, 1) where count > 0 {
        var line: String
        /// Whether the line must read as an entry, when known apart from the reader.
        var readable: Bool?
        switch m.int(11) {
        case 0: line = String(repeating: "{", count: HistoryLog.maxLine + 1 + m.int(100))
        case 1: line = m.randomBytes(m.int(60))
        case 2: line = ""
        case 3, 4, 5: line = m.mutate(Self.historyLines[m.int(2)])
        case 6:
          // Times at and past the bounds, huge ones twice or more in a history (they once
          // overflowed the stats' sums): a line outside 0 to a week is damaged.
          func time() -> Int64 {
            let extremes: [Int64] = [
              0, HistoryEntry.longestMs, HistoryEntry.longestMs + 1, -1, -5, .max, .min, 5_000_000_000_000_000_000,
              Int64(bitPattern: m.rng.next()),
            ]
            return m.chance(40) ? Int64(m.int(86_400_000)) : extremes[m.int(extremes.count)]
          }
          let e = HistoryEntry(
            ended: WallTime(epochSeconds: 1_700_000_000 + Int64(m.int(100_000_000)), synced: m.chance(80)),
            mode: .focus, outcome: .completed, plannedMs: time(), actualMs: time(), extendedMs: time())
          line = e.jsonLine
          readable = [e.plannedMs, e.actualMs, e.extendedMs].allSatisfy { 0...HistoryEntry.longestMs ~= $0 }
        default:
          let e = HistoryEntry(
            ended: WallTime(epochSeconds: 1_700_000_000 + Int64(m.int(100_000_000)), synced: m.chance(50)),
            mode: Mode.allCases[m.int(Mode.allCases.count)], outcome: m.chance(50) ? .completed : .cancelled,
            plannedMs: Int64(m.int(86_400_000)), actualMs: Int64(m.int(86_400_000)))
          line = e.jsonLine
          readable = true
        }
        // No line ends inside a line (on scalars: as a Character, "\r\n" is neither "\r" nor "\n").
        if line.utf8.first != UInt8(ascii: "{") || line.utf8.count <= HistoryLog.maxLine,
          line.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D })
        {
          line = String(String.UnicodeScalarView(line.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
        }
        // The reader drops one BOM at the start of the file.
        var seen = Substring(line)
        if n == 1, !hasBOM, seen.unicodeScalars.first == "\u{FEFF}" { seen.unicodeScalars.removeFirst() }
        if line.utf8.count > HistoryLog.maxLine {
          expectedDamaged.append(n)
        } else if seen.allSatisfy({ $0 == " " || $0 == "\t" }) {
        } else if let e = HistoryEntry(jsonLine: String(seen)) {
          expectedEntries.append(e)
          if readable == false { failures.add("a time out of range read: \(line)") }
        } else {
          expectedDamaged.append(n)
          if readable == true { failures.add("a line in range refused: \(line)") }
        }
        text += line + (n == count && m.chance(20) ? "" : crlf ? "\r\n" : "\n")
      }
      let bytes = Array(text.utf8)
      var entries: [HistoryEntry] = []
      var damaged: [Int] = []
      var splitter = Files.LineSplitter(maxLine: HistoryLog.maxLine)
      var at = 0
      while at < bytes.count {
        let chunk = min(bytes.count - at, 1 + m.int(m.chance(50) ? 16 : 8192))
        try splitter.feed(bytes[at..<at + chunk]) { number, line in
          try HistoryLog.scanLine(number, line, entry: { entries.append($0) }, damaged: { damaged.append($0) })
        }
        at += chunk
      }
      try splitter.finish { number, line in
        try HistoryLog.scanLine(number, line, entry: { entries.append($0) }, damaged: { damaged.append($0) })
      }
      if i % 25 == 0 {
        // A real file, written plainly: ten thousand fsyncs would be the whole test's time.
        files += 1
        // XCTUnwrap: glibc 2.41 (trixie) declares fopen's result optional, 2.36 does not.
        let file = try XCTUnwrap(fopen(log.path, "w"))
        XCTAssertEqual(fwrite(bytes, 1, bytes.count, file), bytes.count)
        XCTAssertEqual(fclose(file), 0)
        let read = try log.read()
        if read.entries != entries || read.damagedLines != damaged {
          failures.add("the file gave \(read) where memory gave \(entries), \(damaged)")
        }
      }
      // The statistics of whatever was read: never a trap (all of it on one day, the worst case for the sums).
      let stats = HistoryStats(
        entries: entries, damagedLines: damaged, today: CivilDay(ordinal: 20_000), days: 7,
        dayOf: { _ in CivilDay(ordinal: 20_000) })
      if stats.entryCount != entries.count || stats.allTally.focus.ms < 0 || stats.allTally.focus.minutes < 0 {
        failures.add("stats of \(entries.count) entries: \(stats.allTally)")
      }
      damagedSeen += damaged.count
      if entries != expectedEntries || damaged != expectedDamaged {
        failures.add(
          "read \(entries.count) entries (expected \(expectedEntries.count)), damaged \(damaged) (expected \(expectedDamaged)) from \(TextLines.visible(text.prefix(300)))"
        )
      }
    }
    failures.check()
    XCTAssertEqual(files, 400)
    XCTAssertGreaterThan(damagedSeen, 1000)
  }
}

/// Seeded fuzzing of the two readers that face other programs: the control socket's request
/// reader (bytes in random chunks through the server's line buffer, then the JSON request parser)
/// and the MQTT command payload reader (JSON or ctl words). Mutations of valid requests, deep
/// nesting, huge numbers, NUL, invalid UTF-8 and over-long lines; no trap, only the documented
/// refusals, and every accepted command reads back from its own request line.
final class ControlFuzzTests: XCTestCase {
  static let requests =
    ControlCommand.each.map(\.requestLine) + [
      #"{"cmd":"extend","by":"5m"}"#, #"{"cmd":"set","mode":"soft","duration":"6m"}"#, #"{"cmd":"set","mode":"flow"}"#,
      #"{"cmd":"set","duration":"1h30m"}"#, #"{ "cmd" : "status" }"#,
      #"{"cmd":"config_set","key":"modes","value":"focus short flow"}"#, #"{"cmd":"config_reset","key":"click"}"#,
      #"{"cmd":"label","text":"Write the report"}"#, #"{"cmd":"label","text":"<img src=x onerror=alert(1)>"}"#,
      #"{"cmd":"label","text":"Überarbeitung 👍🏽"}"#, #"{"cmd":"interrupt","kind":"external"}"#,
    ]
  static let words =
    ControlCommand.names + [
      "extend 5m", "set focus 50m", "set 10m", "set soft", "set flow", "config set focus 30m",
      "config set modes focus short flow", "config reset focus", "config_set click true", "label Write the report",
      "label", "interrupt external", "interrupt --external",
    ]
  static let hostile: [String] = [
    String(repeating: "[", count: 5000), String(repeating: "{\"a\":", count: 2000), "\u{0}", "\u{0}\u{0}\u{0}",
    "99999999999999999999999999", "-9223372036854775809", "1e999999", "\u{FFFD}\u{FFFD}", "\\ud800", "\\u0000",
    #"{"cmd":"status","cmd":"start"}"#, String(repeating: "x", count: ControlServer.maxLine + 7),
  ]

  /// The refusals the protocol documents (docs/control.md, ControlProtocol.swift), by their start.
  static let documented = [
    "bad request: expected one JSON object a line", "missing \"cmd\"", "extend needs \"by\"", "\"mode\" must be",
    "\"duration\" must be", "no command;", "unknown command '", "extend takes one duration", "set: ",
    "set needs a mode", "request line longer than", "config: ", "config_set needs", "config_reset needs", "label: ",
    "\"text\" must be", "interrupt takes", "\"kind\" must be",
  ]

  static func isDocumented(_ message: String) -> Bool {
    // By bytes: a combining character after a quote joins it into another Character.
    documented.contains { message.utf8.starts(with: $0.utf8) }
      || message.utf8.split(separator: UInt8(ascii: " "), maxSplits: 1).last?.starts(
        with: "takes no argument, got '".utf8)
        == true
  }

  /// Judges one parse of `input`: an accepted command must read back from its own request line
  /// (through `readBack`), a refusal must be a documented one. True when it was accepted.
  static func judge(
    _ result: Result<ControlCommand, ControlProtocol.Refusal>, of input: String,
    readBack: (String) -> Result<ControlCommand, ControlProtocol.Refusal>, _ failures: FuzzTests.Failures
  ) -> Bool {
    switch result {
    case .success(let command):
      if readBack(command.requestLine) != .success(command) {
        failures.add("\(command) does not read back from \(command.requestLine)")
      }
      return true
    case .failure(let refusal):
      if !isDocumented(refusal.message) {
        failures.add("undocumented refusal '\(TextLines.visible(refusal.message))' for \(TextLines.visible(input))")
      }
      return false
    }
  }

  /// An input: a valid request or payload, mutated, random bytes, or a hostile piece inside one.
  static func input(_ m: inout FuzzTests.Mutator, from valid: [String], index i: Int) -> String {
    switch i % 10 {
    case 9: return m.randomBytes(m.int(300))
    case 8:
      let base = valid[m.int(valid.count)]
      let piece = hostile[m.int(hostile.count)]
      let at = base.utf8.count == 0 ? 0 : m.int(base.utf8.count)
      return String(
        decoding: Array(base.utf8.prefix(at)) + Array(piece.utf8) + Array(base.utf8.dropFirst(at)), as: UTF8.self)
    case 0, 1: return valid[m.int(valid.count)]
    default: return m.mutate(valid[m.int(valid.count)])
    }
  }

  func testTheSocketsRequestReaderNeverTrapsRefusesAsDocumentedAndRoundTrips() {
    var m = FuzzTests.Mutator(seed: 0xC7_5001)
    let failures = FuzzTests.Failures()
    var accepted = 0
    var refused = 0
    var tooLong = 0
    for i in 0..<12_000 {
      let line = Self.input(&m, from: Self.requests, index: i)
      // Sent with a newline, in random chunks, through the server's own line buffer.
      var bytes = Array((line + "\n").utf8)
      if i % 7 == 0 { bytes = Array(bytes.dropLast()) + Array(repeating: 0x20, count: ControlServer.maxLine) + [0x0A] }
      var buffer = LineBuffer(limit: ControlServer.maxLine)
      var items: [LineBuffer.Item] = []
      var from = 0
      while from < bytes.count {
        let to = min(bytes.count, from + 1 + m.int(700))
        items += buffer.feed(bytes[from..<to])
        from = to
      }
      for item in items {
        guard case .line(let request) = item else {
          tooLong += 1
          continue
        }
        if request.utf8.count > ControlServer.maxLine { failures.add("a line of \(request.utf8.count) bytes passed") }
        if Self.judge(ControlCommand.parse(json: request), of: request, readBack: ControlCommand.parse(json:), failures)
        {
          accepted += 1
        } else {
          refused += 1
        }
      }
    }
    failures.check()
    XCTAssertGreaterThan(accepted, 2000, "valid requests must get through")
    XCTAssertGreaterThan(refused, 3000)
    XCTAssertGreaterThan(tooLong, 1000, "over-long lines reach the buffer's limit")
  }

  func testTheMQTTCommandPayloadReaderNeverTrapsRefusesAsDocumentedAndRoundTrips() {
    var m = FuzzTests.Mutator(seed: 0x3C_7702)
    let failures = FuzzTests.Failures()
    var accepted = 0
    var refused = 0
    for i in 0..<12_000 {
      let payload = Self.input(&m, from: i % 2 == 0 ? Self.requests : Self.words, index: i)
      if Self.judge(
        ControlCommand.parse(payload: payload), of: payload, readBack: ControlCommand.parse(payload:), failures)
      {
        accepted += 1
      } else {
        refused += 1
      }
    }
    failures.check()
    XCTAssertGreaterThan(accepted, 2000)
    XCTAssertGreaterThan(refused, 3000)
  }

  /// A key given twice is refused, not read as the last (or first) of them.
  func testARequestNamingAKeyTwiceIsRefused() {
    for twice in [
      #"{"cmd":"status","cmd":"start"}"#, #"{"cmd":"set","mode":"soft","mode":"hard"}"#,
      #"{"cmd":"extend","by":"5m","by":"23h"}"#,
    ] {
      XCTAssertEqual(
        ControlCommand.parse(json: twice),
        .failure(.init("bad request: expected one JSON object a line, like {\"cmd\":\"status\"}")), twice)
      XCTAssertNil(FlatJSON.decode(twice), twice)
    }
    XCTAssertEqual(ControlCommand.parse(payload: #" {"cmd":"status"} "#), .success(.status))
    XCTAssertEqual(ControlCommand.parse(payload: "extend 5m"), .success(.extend(minutes(5))))
  }
}

/// Labels and interruptions from anyone who can reach the socket: 12,000 fuzzed label texts
/// (control characters, combining marks, emoji, quotes, 41 characters and more, mutations of
/// valid requests) and interrupt requests sent to a device in the middle of a focus, saving to
/// disk. Nothing traps; every refusal is a documented one; the timer is untouched; the label is
/// the last one the rules took and the count what was marked; and both reach the session's
/// record and survive a restart.
final class LabelFuzzTests: XCTestCase {
  static let pieces = [
    "Report", " ", "  ", "é", "e\u{301}", "字", "👍🏽", "\"", "\\", "<img src=x onerror=alert(1)>", "\t", "\n", "\u{1B}",
    "\u{7F}", "\u{85}", "\u{2028}", "\u{0}", "\u{FEFF}", "W", String(repeating: "x", count: 39),
  ]

  func testFuzzedLabelsAndInterruptionsLoseNothing() throws {
    var m = FuzzTests.Mutator(seed: 0x1AB_E135)
    let failures = FuzzTests.Failures()
    var config = DeviceConfig()
    config.engine.presets[.focus] = minutes(25)
    let f = try ControlFixture(config: config, storing: true)
    let fd = try f.connect()
    XCTAssertTrue(f.reply(fd, #"{"cmd":"start"}"#).ok)
    f.h.run(for: minutes(1))
    let remaining = f.h.device.state.remaining(at: f.h.clock.now)
    var expectedLabel: SessionLabel?
    var marked = Interruptions()
    var (taken, refused) = (0, 0)
    var batch: [String] = []
    func send() {
      guard !batch.isEmpty else { return }
      XCTAssertTrue(UnixSocket.writeAll(fd, Array(batch.map { $0 + "\n" }.joined().utf8)))
      f.server.turn()
      var reader = LineReader(fd: fd)
      for request in batch {
        guard let line = reader.next(until: SystemClock().now + ms(2000)),
          let reply = ControlProtocol.decodeReply(line)
        else {
          failures.add("no reply to \(TextLines.visible(request))")
          continue
        }
        let expected = ControlCommand.parse(json: request)
        switch (reply, expected) {
        case (.success, .success(let command)):
          taken += 1
          switch command {
          case .label(let label): expectedLabel = label
          case .interrupt(let kind):
            switch kind {
            case .internal: marked.internal = min(Interruptions.most, marked.internal + 1)
            case .external: marked.external = min(Interruptions.most, marked.external + 1)
            }
          default: break
          }
        case (.failure(let refusal), .failure):
          refused += 1
          if !ControlFuzzTests.isDocumented(refusal.message) {
            failures.add("undocumented refusal '\(TextLines.visible(refusal.message))'")
          }
        default:
          failures.add("\(TextLines.visible(request)): the device said \(reply), the parser \(expected)")
        }
      }
      batch = []
      // Answered means saved: the state file has the label and the count the replies said.
      let saved = try? StateStore(directory: f.directory).load()
      if saved?.label != expectedLabel || saved?.interruptions != marked {
        failures.add(
          "saved \(String(describing: saved?.label)) \(String(describing: saved?.interruptions)), expected \(String(describing: expectedLabel)) \(marked)"
        )
      }
    }
    for i in 0..<12_000 {
      let line: String
      switch i % 6 {
      case 0, 1, 2:
        let text = (0..<m.int(6)).map { _ in Self.pieces[m.int(Self.pieces.count)] }.joined()
        line = FlatJSON.encode([("cmd", .string("label")), ("text", .string(text))])
      case 3:
        let kinds: [JSONValue?] = [nil, .string("internal"), .string("external"), .string("bogus"), .int(1)]
        line = FlatJSON.encode(
          [("cmd", .string("interrupt"))] + (kinds[m.int(kinds.count)].map { [("kind", $0)] } ?? []))
      default:
        line = m.mutate(ControlFuzzTests.requests.filter { $0.contains("label") || $0.contains("interrupt") }[m.int(5)])
      }
      // One request a line: a mutation that made two lines, or none, is left out.
      guard !line.contains("\n"), !line.contains("\r"), !line.isEmpty else { continue }
      batch.append(line)
      if batch.count == 16 { send() }
    }
    send()
    failures.check()
    XCTAssertGreaterThan(taken, 3000)
    XCTAssertGreaterThan(refused, 2000)
    let state = f.h.device.state
    XCTAssertEqual(state.phase, .running)
    XCTAssertEqual(state.remaining(at: f.h.clock.now), remaining, "the timer is untouched")
    XCTAssertEqual(state.label, expectedLabel)
    XCTAssertEqual(state.interruptions, marked)
    // Saved: a restart comes back with them (paused, as after any restart).
    let saved = try XCTUnwrap(StateStore(directory: f.directory).load())
    XCTAssertEqual(saved.label, expectedLabel)
    XCTAssertEqual(saved.interruptions, marked)
    // The session's record keeps them.
    f.h.run(for: minutes(24) + seconds(5))
    XCTAssertTrue(f.reply(fd, #"{"cmd":"ack"}"#).ok)
    f.server.turn()
    let entries = try HistoryLog(directory: f.directory).read().entries
    XCTAssertEqual(entries.last?.label, expectedLabel)
    XCTAssertEqual(entries.last?.interruptions, marked)
  }
}
