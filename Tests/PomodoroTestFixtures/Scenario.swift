// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import PomodoroCore
  import PomodoroGraphics
  import PomodoroRuntime
  import PomodoroSystem
  import PomodoroConfig
  import PomodoroSimulator

  /// A scripted run and its transcript, parsed.
  package struct Scenario {
    package var lines: [String] = []
    package var objects: [[String: JSONValue]] { lines.map { FlatJSON.decode($0)! } }
    package var runner: ScriptRunner
    /// The first of the script's own `# expect` lines not met, if any.
    package var unmet: UnmetExpectation?

    package init(
      _ script: String, file: String = "test.pomo", config: DeviceConfig = DeviceConfig(),
      screen: Screen = Screen.standard(height: 64)
    ) throws {
      var collected: [String] = []
      let log = Log(sink: { _, _ in })
      let steps = try ScriptParser.parse(script, file: file, config: config)
      runner = try ScriptRunner(config: config, screen: screen, log: log, write: { collected.append($0) })
      unmet = runner.run(steps, file: file)
      lines = collected
    }

    package func events(_ kind: String) -> [[String: JSONValue]] { objects.filter { $0["event"] == .string(kind) } }
    package var states: [[String: JSONValue]] { events("state") }
    package func t(_ o: [String: JSONValue]) -> Int64 { o["t"]!.int! }
    package var phases: [String] { states.map { $0["phase"]!.string! } }
    package var totals: [Int64] { states.map { $0["total_ms"]!.int! } }
  }
#endif
