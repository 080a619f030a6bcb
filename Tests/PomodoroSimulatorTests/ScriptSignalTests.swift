import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroSimulator

/// `simulate --script` under signals, and what a long script costs.
final class ScriptSignalTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// A long script killed mid-run by SIGINT, SIGTERM or SIGHUP: every line whole, a summary
  /// saying which signal, exit 128 + n, and a message on stderr.
  func testASignalEndsTheTranscriptWithAnInterruptedSummaryAndExit128PlusN() throws {
    let script = directory + "/long.pomo"
    try String(repeating: "press start\nwait 3s\n", count: 50_000).write(
      toFile: script, atomically: true, encoding: .utf8)
    for (signo, name, code) in [(SIGTERM, "SIGTERM", 143), (SIGINT, "SIGINT", 130), (SIGHUP, "SIGHUP", 129)] {
      let out = try Pipe2()
      let err = try Pipe2()
      let null = open("/dev/null", O_RDONLY)
      defer { close(null) }
      let child = try ChildProcess(
        ["simulate", "--script", script], stdin: null, stdout: out.writeEnd, stderr: err.writeEnd)
      out.closeWriteEnd()
      err.closeWriteEnd()
      // Mid-run: once the transcript is flowing.
      var text = out.read(until: { $0.contains("\"event\":\"frame\"") })
      XCTAssertFalse(text.contains("summary"), "\(name): still running when signalled")
      child.signal(signo)
      text += out.read()
      XCTAssertEqual(try child.waitForExit(), Int32(code), name)
      XCTAssertTrue(text.hasSuffix("\n"), "\(name): ends with a whole line")
      let lines = text.split(separator: "\n").map(String.init)
      for line in lines { XCTAssertNotNil(FlatJSON.decode(line), "\(name): a torn line: \(line)") }
      let summary = try XCTUnwrap(lines.last)
      XCTAssertTrue(summary.hasPrefix("{\"event\":\"summary\",\"t\":"), summary)
      XCTAssertTrue(summary.hasSuffix(",\"interrupted\":\"\(name)\"}"), summary)
      XCTAssertEqual(lines.filter { $0.contains("summary") }.count, 1)
      let message = err.read()
      XCTAssertTrue(message.contains("pomodoro: \(name) stopped the script"), message)
    }
  }

  /// The reader goes away (`| head`): the run stops quietly with 141, as SIGPIPE's default would.
  func testAClosedOutputStopsTheRunQuietly() throws {
    let script = directory + "/long.pomo"
    try String(repeating: "press start\nwait 3s\n", count: 50_000).write(
      toFile: script, atomically: true, encoding: .utf8)
    let out = try Pipe2()
    let err = try Pipe2()
    let null = open("/dev/null", O_RDONLY)
    defer { close(null) }
    let child = try ChildProcess(
      ["simulate", "--script", script], stdin: null, stdout: out.writeEnd, stderr: err.writeEnd)
    out.closeWriteEnd()
    err.closeWriteEnd()
    var byte: UInt8 = 0
    XCTAssertEqual(read(out.readEnd, &byte, 1), 1, "the transcript started")
    out.closeReadEnd()
    XCTAssertEqual(try child.waitForExit(), 141)
    XCTAssertEqual(err.read(), "", "quietly")
  }

  /// In-process: the runner stops after the step in progress and says so in the summary;
  /// expectations are not checked on a cut run.
  func testAnInterruptionStopsTheRunAndTheSummarySaysSo() throws {
    var lines: [String] = []
    let runner = try ScriptRunner(
      config: DeviceConfig(), screen: .standard(height: 64), log: Log(sink: { _, _ in }),
      write: { lines.append($0) })
    let script = try ScriptParser.parse(
      "press start\nwait 10m\n# expect event=state phase=idle\nwait 10m\n", file: "t.pomo")
    var steps = 0
    let unmet = runner.run(
      script,
      interruption: {
        steps += 1
        return steps == 100 ? "SIGTERM" : nil
      })
    XCTAssertNil(unmet, "a cut run checks no expectations")
    XCTAssertEqual(runner.interruptedBy, "SIGTERM")
    let summary = try XCTUnwrap(lines.last.flatMap(FlatJSON.decode))
    XCTAssertEqual(summary["interrupted"], .string("SIGTERM"))
    XCTAssertLessThan(summary["t"]!.int!, 600_000, "stopped inside the first wait")
  }

  /// A long turn is fed to the mock chip in chunks: the same transcript as all at once, with
  /// the chip holding a few hundred edges instead of every edge of the turn.
  func testALongTurnCostsFlatMemoryAndTheSameTranscript() throws {
    func run(chunk: Int) throws -> (lines: [String], mostEdges: Int) {
      var lines: [String] = []
      var most = 0
      var runner: ScriptRunner!
      runner = try ScriptRunner(
        config: DeviceConfig(), screen: .standard(height: 64), log: Log(sink: { _, _ in }),
        write: { line in
          lines.append(line)
          most = max(most, runner.hardware.chip.keptEdgeCount(runner.config.encoderA))
        })
      runner.turnChunk = chunk
      runner.run(try ScriptParser.parse("turn +240 fast bounce\npress start\nturn -20\nwait 2s\n", file: "t.pomo"))
      return (lines, most)
    }
    let chunked = try run(chunk: 8)
    let whole = try run(chunk: Int.max)
    XCTAssertEqual(chunked.lines, whole.lines, "the same transcript")
    XCTAssertGreaterThan(whole.mostEdges, 1_500, "all at once: every edge of the turn held")
    XCTAssertLessThan(chunked.mostEdges, 600, "in chunks: a few hundred")
  }
}
