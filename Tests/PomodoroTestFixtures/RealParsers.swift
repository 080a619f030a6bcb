// Compiled in debug builds only (`swift test`), like every file of this module.
#if DEBUG
  import Foundation
  import PomodoroControl
  import PomodoroCore
  import PomodoroRuntime
  import PomodoroSystem
  import XCTest

  /// Labels a hostile run types (issue 46): invisible and bidi characters (a zero-width space, a
  /// BOM, U+202E, the isolates U+2066-2069, a soft hyphen, the joiners, a format character past
  /// the first plane), combining marks, emoji sequences (a family joined by ZWJ, a skin tone, a
  /// flag, a keycap), quotes, backslashes and what looks like JSON's and Swift's escapes,
  /// markup, a formula, right-to-left text, a noncharacter, 40 characters of zero-width spaces
  /// and letters. Every one is a label the rules take (`SessionLabel.parse`), as typed.
  package enum HostileLabels {
    /// The set, written once in Tests/lib/hostile-labels.json (Tests/web reads it too).
    package static let all: [String] = {
      let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../lib/hostile-labels.json")
      guard let data = try? Data(contentsOf: file),
        let labels = try? JSONSerialization.jsonObject(with: data) as? [String], !labels.isEmpty
      else { fatalError("cannot read the hostile labels from \(file.path)") }
      return labels
    }()

    /// The labels, each checked to be one the rules take as it is.
    package static func checked() throws -> [SessionLabel] { try checked(all) }

    /// `texts` as labels, each checked to be one the rules take as it is.
    package static func checked(_ texts: [String]) throws -> [SessionLabel] {
      try texts.map { text in
        guard let label = SessionLabel.stored(text) else { throw Refused(text: text) }
        return label
      }
    }

    /// A state folder whose history has a completed focus for each label, a minute apart, and a
    /// config naming it: what `pomodoro history` reads. The caller removes `directory`.
    package static func history(of labels: [SessionLabel]) throws -> (directory: String, conf: String) {
      let directory = try DeviceHarness.temporaryDirectory()
      let conf = directory + "/p.conf"
      XCTAssertTrue(FileManager.default.createFile(atPath: conf, contents: Data("state_dir = \(directory)\n".utf8)))
      for (i, label) in labels.enumerated() {
        var e = HistoryEntry(
          ended: WallTime(epochSeconds: 1_796_126_400 + Int64(i) * 60, synced: true), mode: .focus,
          outcome: .completed, plannedMs: 1_500_000, actualMs: 1_500_000)
        e.label = label
        try HistoryLog(directory: directory).append(e)
      }
      return (directory, conf)
    }

    package struct Refused: Error, CustomStringConvertible {
      package var text: String
      package var description: String {
        "the hostile label \(text.debugDescription) is not taken as typed: fix HostileLabels"
      }
    }
  }

  /// Python 3's own parsers (json, csv), run as a child process, as a program reading the
  /// device's outputs would: what they read back is compared in Python with what was meant.
  package enum RealParsers {
    /// Skips the test where python3 is missing (the trixie root runs the suite without it): call
    /// it first, since a skip thrown inside an assertion counts as a failure.
    package static func require() throws {
      guard ["/usr/bin/python3", "/usr/local/bin/python3"].contains(where: FileManager.default.isExecutableFile) else {
        throw XCTSkip("python3 is not installed")
      }
    }

    /// Runs `python3 -c script args` with `input` on stdin; its exit status, stdout and stderr.
    package static func python(_ script: String, _ args: [String] = [], input: Data) throws -> (
      code: Int32, out: String, err: String
    ) {
      guard
        let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile)
      else { throw XCTSkip("python3 is not installed") }
      let p = Process()
      p.executableURL = URL(fileURLWithPath: python)
      p.arguments = ["-B", "-c", script] + args
      let stdin = Pipe()
      let stdout = Pipe()
      let stderr = Pipe()
      p.standardInput = stdin
      p.standardOutput = stdout
      p.standardError = stderr
      try p.run()
      // A thread writes while this one reads: neither pipe can fill and stop the other.
      let writer = Thread {
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
      }
      writer.start()
      let out = stdout.fileHandleForReading.readDataToEndOfFile()
      let err = stderr.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      return (p.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// What a program reads out of a line, and the text it should find there.
    package struct Check {
      /// `json:KEY.KEY...` (an object's key, or a list's index): the line parsed by json.loads;
      /// `journal`: a journal `state ...` line, its fields bare words but the label, which
      /// json.loads reads from what follows the first ` label=`.
      package var how: String
      package var line: String
      package var expected: String
      package init(_ how: String, _ line: String, _ expected: String) {
        self.how = how
        self.line = line
        self.expected = expected
      }
    }

    package static let jsonScript = #"""
      import json, re, sys
      data = sys.stdin.buffer.read().decode("utf-8", "strict").split("\n")
      bad = []
      n = 0
      for i in range(0, len(data) - 2, 3):
          how, expected, line = data[i], data[i + 1], data[i + 2]
          n += 1
          try:
              if how == "journal":
                  head, sep, rest = line.partition(" label=")
                  if not re.fullmatch(r"state phase=[a-z]+ mode=[a-z_]+( [a-z_]+=[0-9]+)*", head):
                      raise ValueError("fields before the label: " + ascii(head))
                  got = json.loads(rest) if rest.startswith('"') else rest
              else:
                  got = json.loads(line)
                  for key in how[len("json:"):].split("."):
                      got = got[int(key)] if isinstance(got, list) else got[key]
              if got != expected:
                  bad.append("%d %s: read %s, expected %s in %s" % (n, how, ascii(got), ascii(expected), ascii(line)))
          except Exception as e:
              bad.append("%d %s: %s: %s in %s" % (n, how, type(e).__name__, e, ascii(line)))
      print("\n".join(bad) if bad else "ok %d" % n)
      """#

    package static let csvScript = #"""
      import csv, io, sys
      rows = list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")))
      column = rows[0].index(sys.argv[1])
      expected = sys.argv[2:]
      got = [row[column] for row in rows[1:]]
      bad = ["%d: read %s, expected %s" % (i + 1, ascii(g), ascii(e)) for i, (g, e) in enumerate(zip(got, expected)) if g != e]
      if len(got) != len(expected):
          bad.append("%d rows, expected %d" % (len(got), len(expected)))
      print("\n".join(bad) if bad else "ok %d" % len(got))
      """#

    /// `text` read by Python's csv module: "ok N" when the column `header` of its N rows (after
    /// the header) holds `expected`, else a line for each cell that does not.
    package static func csv(_ text: String, column header: String, expected: [String]) throws -> String {
      let r = try python(csvScript, [header] + expected, input: Data(text.utf8))
      XCTAssertEqual(r.code, 0, r.err)
      return r.out.trimmingCharacters(in: .newlines)
    }

    /// Each check's line read by Python's json module; "ok N" when every one gave its text, else
    /// a line for each that did not (what was read, or the parser's error).
    package static func json(_ checks: [Check]) throws -> String {
      for c in checks where c.expected.contains("\n") || c.line.contains("\n") || c.how.contains("\n") {
        XCTFail("a check's line or text has a line break: \(c)")
      }
      let input = checks.map { "\($0.how)\n\($0.expected)\n\($0.line)\n" }.joined()
      let r = try python(jsonScript, input: Data(input.utf8))
      XCTAssertEqual(r.code, 0, r.err)
      return r.out.trimmingCharacters(in: .newlines)
    }
  }
#endif
