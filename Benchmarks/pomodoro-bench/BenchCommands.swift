import PomodoroSystem

/// `pomodoro-bench`: its commands, one row each, and how a command line reaches one.
enum Bench {
  /// The fsync delays a burst command takes, in ms, and what it runs without them.
  static func fsyncWord(_ defaults: [Int64]) -> BenchWord {
    .positional(
      "FSYNC_MS", repeats: true, numbers: .of(0...10_000 as ClosedRange<Int64>),
      "every fsync this many ms slower (an SD card's), one run each (default \(defaults.map(String.init).joined(separator: " ")))"
    )
  }
  static let burstDelays: [Int64] = [0, 10, 20]
  static let brokerBurstDelays: [Int64] = [10, 20]
  static let inline = BenchWord.flag("--inline", "the loop writes the state itself (as tests do), not a thread")
  static let verbose = BenchWord.flag("--verbose", "say more of what happened")

  /// Every command, in the order the overview lists them. With no command (or only options):
  /// `all`.
  static let commands: [BenchCommand] = [
    BenchCommand(
      name: "all",
      words: [.flag("--quick", "skip the alarm's 60 s on the real clock"), verbose],
      summary: "The engine, display, input, runtime, MQTT, history, labels, READY=1 and burst figures",
      run: { args in
        engineBench()
        displayBench()
        inputBench()
        runtimeBench(quick: args.has("--quick"))
        leanBench()
        mqttBench()
        historyBench()
        labelBench()
        readyBench()
        burstBench(fsyncDelays: burstDelays, verbose: args.has("--verbose"))
        return ExitCode.ok
      }),
    BenchCommand(
      name: "history", words: [],
      summary:
        "The history's readers at a million lines, and the device's time to READY=1 and peak memory on such a history",
      run: { _ in
        historyBench()
        readyBench()
        return ExitCode.ok
      }),
    BenchCommand(
      name: "labels", words: [],
      summary: "stats --by-label and history --ics --days 7 at a million lines (issue 35)",
      run: { _ in
        labelBench()
        return ExitCode.ok
      }),
    BenchCommand(
      name: "burst", words: [inline, verbose, fsyncWord(burstDelays)],
      summary: "800 toggles in one socket write beside the buttons (issue 29)",
      run: { args in
        burstBench(
          fsyncDelays: args.numbers("FSYNC_MS", otherwise: burstDelays),
          background: !args.has("--inline"), verbose: args.has("--verbose"))
        return ExitCode.ok
      }),
    BenchCommand(
      name: "settings-burst", words: [inline, fsyncWord(brokerBurstDelays)],
      summary: "8 clients x 400 `config set`s beside the buttons (issue 34)",
      run: { args in
        settingsBurstBench(
          fsyncDelays: args.numbers("FSYNC_MS", otherwise: brokerBurstDelays),
          background: !args.has("--inline"))
        return ExitCode.ok
      }),
    BenchCommand(
      name: "mqtt-burst", words: [inline, verbose, fsyncWord(brokerBurstDelays)],
      summary: "3,000 and 20,000 toggles through a broker and the bridge (needs mosquitto)",
      run: { args in
        mqttBurstBench(
          fsyncDelays: args.numbers("FSYNC_MS", otherwise: brokerBurstDelays),
          background: !args.has("--inline"), verbose: args.has("--verbose"))
        return ExitCode.ok
      }),
    BenchCommand(
      name: "mqtt-payloads", words: [],
      summary: "The bridge's peak memory with large payloads on its command topic (needs mosquitto)",
      run: { _ in
        mqttPayloadBench()
        return ExitCode.ok
      }),
    BenchCommand(
      name: "web", words: [],
      summary:
        "The web page's server beside a device: flooded with streams and connections, then 16 streams (issue 28; Tests/web/flood.sh)",
      run: { _ in
        webBench()
        return ExitCode.ok
      }),
    BenchCommand(
      name: "web-attack",
      words: [.positional("PART", repeats: true, "connections, streams (default both)")],
      summary: "The attacks on the web server's connections and streams (issue 34)",
      run: { args in
        let parts = args.words("PART")
        for part in parts where !WebAttack.parts.contains(part) {
          throw UsageError(
            "web-attack: PART is one of \(WebAttack.parts.joined(separator: ", ")), got '\(TextLines.visible(part))'")
        }
        webAttackBench(parts: parts.isEmpty ? Set(WebAttack.parts) : Set(parts))
        return ExitCode.ok
      }),
    BenchCommand(
      name: "web-heavy", words: [],
      summary: "The web server's heavy readers and cookies (issue 34; $POMODORO_BINARY for another build's)",
      run: { _ in
        webHeavyBench()
        return ExitCode.ok
      }),
    BenchCommand(
      name: "memory",
      words: [.positional("BINARY", "the `pomodoro` to measure (default $POMODORO_BINARY, else the one beside this)")],
      summary: "The peak memory of the device, the page's server and the bridge (issue 33)",
      run: { args in
        memoryBench(binary: args.word("BINARY"))
        return ExitCode.ok
      }),
    BenchCommand(
      name: "room",
      words: [
        .positional("DESKS", numbers: .of(2...64), "how many desks (default \(RoomBench.desks))"),
        .option("--rounds", "K", numbers: .of(1...1000), "how many starts (default \(RoomBench.rounds))"),
        .option(
          "--alarms", "A", numbers: .of(0...1000), "how many 5 s focus sessions to ring (default \(RoomBench.alarms))"),
        .flag("--long", "desk ids of 39 characters and labels of 40"),
        .option("--work", "DIR", "keep every desk's config and logs in DIR"),
      ],
      summary: "A room of desks on one mosquitto, each a process with its bridge (issue 36)",
      run: { args in
        roomBenchRun(
          desks: args.number("DESKS", otherwise: RoomBench.desks),
          rounds: args.number("--rounds", otherwise: RoomBench.rounds),
          alarms: args.number("--alarms", otherwise: RoomBench.alarms),
          work: args.value("--work"), long: args.has("--long"))
      }),
    BenchCommand(
      name: "room-flood", words: [],
      summary: "A desk's buttons while its room's topics are flooded (issue 36; needs mosquitto)",
      run: { _ in
        roomFloodBench()
        return ExitCode.ok
      }),
    BenchCommand(
      name: "soak",
      words: [
        .positional("DAYS", numbers: .of(0.01...3660), "virtual days (default \(SoakBench.days))"),
        .positional("SEED", numbers: .of(0...UInt64.max), "the random seed (default \(SoakBench.seed))"),
      ],
      summary: "Issue 12's soak: virtual days of random use and faults on the mocks; exits 1 on a broken invariant",
      run: { args in
        soakBench(
          days: args.number("DAYS", otherwise: SoakBench.days),
          seed: args.number("SEED", otherwise: SoakBench.seed))
      }),
    BenchCommand(
      name: "ready-child",
      words: [
        .positional("DIR", required: true, "the state directory"),
        .flag("--unsynced", "the wall clock unsynchronised, at 1970-01-03"),
      ],
      summary: "The device `history` measures to READY=1", child: true,
      run: { args in readyChild(directory: args.word("DIR")!, unsynced: args.has("--unsynced")) }),
    BenchCommand(
      name: "room-desk", words: [.positional("CONFIG", required: true, "the desk's config file")],
      summary: "One of `room`'s desks", child: true,
      run: { args in roomDesk(config: args.word("CONFIG")!) }),
  ]

  static func command(_ name: String) -> BenchCommand? { commands.first { $0.name == name } }

  static var overview: String {
    let measured = commands.filter { !$0.child }
    let width = commands.map(\.name.count).max()! + 3
    func row(_ c: BenchCommand) -> String {
      "  " + c.name + String(repeating: " ", count: width - c.name.count) + c.summary
    }
    return """
      pomodoro-bench: the project's figures, one a line (name value unit).

      Usage: pomodoro-bench [COMMAND] [options]    (no command: all)

      Commands:
      \(measured.map(row).joined(separator: "\n"))

      Started by the bench itself:
      \(commands.filter(\.child).map(row).joined(separator: "\n"))

      Each command that measures takes --json FILE: its figures as JSON too. pomodoro-bench help COMMAND
      (or COMMAND --help) shows its words.
      """
  }

  /// Runs the command line `words` (without the program name) and returns the exit code.
  static func main(_ words: [String]) -> Int32 {
    // No command, or options only: `all`.
    let named = words.first.map { !$0.hasPrefix("-") || $0 == "-h" || $0 == "--help" } ?? false
    let first = named ? words[0] : "all"
    let rest = named ? words.dropFirst() : words[...]
    // Where a usage error sends one: the command's help once the command is known.
    var help = "pomodoro-bench --help"
    do {
      switch first {
      case "-h", "--help":
        print(overview)
        return ExitCode.ok
      case "help":
        guard let topic = rest.first else {
          print(overview)
          return ExitCode.ok
        }
        guard let command = command(topic) else { throw unknown(topic) }
        print(command.help, terminator: "")
        return ExitCode.ok
      default:
        guard let command = command(first) else { throw unknown(first) }
        help = "pomodoro-bench help \(command.name)"
        if rest.contains("-h") || rest.contains("--help") {
          print(command.help, terminator: "")
          return ExitCode.ok
        }
        let args = try BenchArguments(command, rest)
        var code = try command.run(args)
        if let file = args.value("--json") {
          try Figures.shared.write(file, command: command.name, arguments: withoutJSON(rest))
        }
        for missed in Figures.shared.unmet {
          writeToStandardError("pomodoro-bench: \(missed)\n")
          if code == ExitCode.ok { code = ExitCode.failure }
        }
        return code
      }
    } catch let error as UsageError {
      writeToStandardError("pomodoro-bench: \(error)\nTry '\(help)'.\n")
      return ExitCode.usage
    } catch {
      writeToStandardError("pomodoro-bench: \(error)\n")
      return ExitCode.failure
    }
  }

  /// `words` without `--json FILE` (or `--json=FILE`): the run's own words.
  static func withoutJSON(_ words: ArraySlice<String>) -> [String] {
    var kept: [String] = []
    var rest = words
    while let word = rest.popFirst() {
      if word == "--" {
        kept += ["--"] + rest
        break
      }
      if word == BenchWord.json.name {
        _ = rest.popFirst()
      } else if !word.hasPrefix(BenchWord.json.name + "=") {
        kept.append(word)
      }
    }
    return kept
  }

  static func unknown(_ name: String) -> UsageError {
    UsageError(
      "unknown command '\(TextLines.visible(name))'; commands: \(commands.filter { !$0.child }.map(\.name).joined(separator: ", "))"
    )
  }
}
