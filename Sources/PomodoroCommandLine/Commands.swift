import PomodoroConfig
import PomodoroCore
import PomodoroHooks
import PomodoroMQTT
import PomodoroSimulator
import PomodoroSystem
import PomodoroWeb

/// One subcommand, declared once: the overview's line, `pomodoro help NAME`, the dispatch, the
/// command block of README and docs/use.md and the man page's COMMANDS all come from it.
struct Subcommand: Sendable {
  let name: String
  /// What follows `pomodoro` in its usage: `run [--config FILE]`; more lines for more forms.
  let usage: [String]
  /// The overview's line.
  let summary: String
  /// README's and docs/use.md's line, beside the first usage.
  let brief: String
  /// The help's body, between the usage and the exit codes.
  let details: String
  /// The codes it exits with, and what each means for it (nil: `ExitCode.meaning`).
  let codes: [(Int32, String?)]
  let run: @Sendable (ArraySlice<String>) throws -> Int32

  /// `Exit codes: 0 ok, 1 failure, ...`.
  var exitCodes: [(code: Int32, meaning: String)] { codes.map { ($0.0, $0.1 ?? ExitCode.meaning($0.0)) } }

  var help: String {
    let usageLines = usage.enumerated().map { ($0.offset == 0 ? "Usage: " : "       ") + "pomodoro " + $0.element }
    return usageLines.joined(separator: "\n") + "\n\n" + details + "\n\n"
      + PomodoroCLI.wrap("Exit codes: " + ExitCode.list(exitCodes) + ".")
  }
}

extension PomodoroCLI {
  /// Every subcommand, in the order the overview lists them.
  static let commands: [Subcommand] = [
    Subcommand(
      name: "run", usage: ["run [--config FILE]"],
      summary: "Run the device (GPIO through libgpiod, the display through I2C)",
      brief: "the device",
      details: """
        Runs the device: reads the config (default \(DeviceConfig.defaultPath); a missing file means the
        defaults), opens the GPIO chip, lines and I2C bus, shows the idle screen and serves until SIGTERM,
        SIGINT or SIGQUIT, which turn the buzzer off, save the state, switch the panel off, release the lines
        and exit 0. SIGHUP reads the config again: timer settings, click and OLED care apply at once, the timer
        carries on; a changed key read only at start is logged (FILE:LINE) with the restart that applies it,
        and a bad config is logged and the running config kept (docs/settings.md lists every key). Settings
        changed with pomodoro ctl config set (or the page) are kept in state_dir's settings.conf and win over
        the file, at start and on SIGHUP; pomodoro ctl config reset KEY goes back to the file's value.
        Under systemd (Type=notify) it reports READY=1, WATCHDOG=1 and STATUS=. Logs go to stderr with
        journald priority prefixes.
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.hardware, nil),
        (ExitCode.config, nil),
      ],
      run: { try RunCommand.run($0) }),
    Subcommand(
      name: "probe", usage: ["probe [--config FILE]"],
      summary: "Check a freshly wired device: lines, display, buzzer, then live input",
      brief: "check a freshly wired device, then echo turns and presses live",
      details: """
        Checks a freshly wired device: prints the chip and each line the config names, whether it is free
        (and who holds it if not), whether the display answers at its address, draws a test pattern, beeps
        once (a passive buzzer: names the PWM chip and channel it found and plays a scale), then prints
        encoder turns and button presses as they happen until Ctrl-C. Where pomodoro-web
        is installed it first prints where a phone opens the page (<host name>.local and each address).
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.hardware, nil),
        (ExitCode.config, nil),
      ],
      run: ProbeCommand.run),
    Subcommand(
      name: "tune",
      usage: [
        "tune --list", "tune NAME|RTTTL --wav FILE [--volume N] [--config FILE]",
        "tune NAME|RTTTL [--volume N] [--config FILE]",
      ],
      summary: "The passive buzzer's tunes: list them, write one as a WAV file, or play it",
      brief: "the passive buzzer's tunes: list, a WAV file, or play one",
      details: """
        The passive buzzer's tunes (buzzer_kind = passive; docs/sound.md). --list prints the built-in tunes,
        their length and their RTTTL. With a built-in tune's name or RTTTL (like mine:d=8,o=6,b=140:c,e,g,2c7):
        --wav FILE writes what the buzzer would play, once, as a square wave at 44.1 kHz (16-bit mono), so it is
        heard without hardware; without --wav it plays the tune once on the PWM the config names (pwm_chip,
        pwm_channel), at volume (or --volume N, 1 to 10), and leaves the PWM disabled and unexported (Ctrl-C
        stops it). A tune that is not one is refused with the character where it stops being one.
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.hardware, nil),
        (ExitCode.config, nil),
      ],
      run: TuneCommand.run),
    Subcommand(
      name: "simulate",
      usage: ["simulate [--config FILE] [--no-bell]", "simulate --script FILE [--png DIR] [--config FILE]"],
      summary: "The whole device in this terminal, or a scripted scenario, headless",
      brief: "the device in a terminal, or a scripted scenario",
      details: """
        Without --script: the whole device in this terminal on emulated hardware with the real clock.
        Keys: Left/Right or j/k turn the encoder (Shift or capitals: a fast spin), Enter or e push it,
        Space start/pause, c or Backspace cancel, f time runs 60x, q or Ctrl-C quit, Ctrl-Z suspend (fg resumes).

        With --script: runs a scenario headless on a virtual clock, as fast as the CPU allows, and prints a
        transcript, one JSON object a line. Steps, one a line (# comments):
          turn +N | turn -N [fast] [bounce]    N detents, \(DurationText.format(MockHardware.detentSpacing)) apart (fast: \(DurationText.format(MockHardware.fastDetentSpacing))); bounce on every edge
          press start|cancel|encoder           pressed \(DurationText.format(MockHardware.pressTime)), then released
          hold start|cancel|encoder DURATION   a long press
          wait DURATION                        units ms, s, m, h, combinable: 1m30s, 2.5s
        --png DIR writes a PNG of the emulated panel after each line, named by line number.

        SIGINT, SIGTERM, SIGHUP or SIGQUIT stop a script after the step in progress; the transcript ends with
        its summary marked "interrupted":"SIGTERM" and the exit code is 128 + n: \(signalCodes).
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, "an `# expect` not met"), (ExitCode.usage, nil),
        (ExitCode.badScript, nil),
        (ExitCode.config, nil),
      ],
      run: SimulateCommand.run),
    Subcommand(
      name: "snapshot", usage: ["snapshot DIR [--config FILE]"],
      summary: "Write a PNG of every screen into a folder", brief: "a PNG of every screen",
      details: """
        Writes a PNG of every screen (idle, running, paused, ringing, egg titles, transitions, 128x32) into DIR.
        """,
      codes: [(ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.config, nil)],
      run: SnapshotCommand.run),
    Subcommand(
      name: "history",
      usage: [
        "history [--csv | --ics] [--config FILE]", "history [--csv | --ics] [--label TEXT] [--days N] [--config FILE]",
      ],
      summary: "Print the history of sessions (JSON lines, CSV, or an iCalendar file)",
      brief: "the sessions, as JSON lines, CSV or a calendar",
      details: """
        Prints the completed and cancelled sessions from the state directory's history.jsonl: as stored (JSON
        lines) or, with --csv, as CSV with a header. --ics writes the completed focus sessions and flows as an
        iCalendar file (RFC 5545) that a calendar imports: an event a session, its label as the title (the
        mode's name when it has none), times in UTC, the same UID at every export. --label TEXT keeps the
        sessions with that label only (the label exactly, spaces around it trimmed as when it is set). --days N
        keeps the last N days (today is 1), read from the file's end. Damaged lines (a power cut) are skipped
        and reported.
        """,
      codes: [(ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.config, nil)],
      run: { try HistoryCommand.run($0) }),
    Subcommand(
      name: "stats",
      usage: [
        "stats [--days N] [--png FILE] [--config FILE]", "stats --by-label [--config FILE]",
        "stats --by-profile [--config FILE]",
      ],
      summary:
        "Focus sessions today and this week, streaks, and a heatmap of the last \(StatsCommand.defaultDays / 7) weeks; or by label or profile",
      brief: "counts, streaks and a heatmap of focus minutes",
      details: """
        Counts the completed focus sessions and focus minutes of today and this week (from Monday), the
        current streak of days with at least one (up to yesterday while today has none yet) and the longest,
        and draws a heatmap of focus minutes a day: a row a weekday, a column a week. --days N sets the
        heatmap's span, the N days ending today (default \(StatsCommand.defaultDays), \(StatsCommand.defaultDays / 7) weeks). --png FILE also writes the heatmap
        and the counts as an image. Completed flows count as focus (their minutes too) and are also counted
        apart. Breaks, egg timers and cancelled sessions are counted apart. Days are
        local dates. Sessions recorded before the wall clock was set are counted on the day of the next one
        recorded with it set, and said so. Damaged lines of history.jsonl are skipped and reported.
        --by-label shows instead each label's completed focus sessions and flows and their minutes today,
        this week and over the \(StatsCommand.byLabelWeeks) weeks ending today (sessions without a label on a
        row of their own), reading the history from its end back to those weeks only. --by-profile does the
        same by the profile in use (issue 48; sessions on the base settings as \(Profile.baseName)).
        """,
      codes: [(ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.config, nil)],
      run: { try StatsCommand.run($0) }),
    Subcommand(
      name: "ctl", usage: ["ctl COMMAND [--json] [--socket PATH] [--config FILE]"],
      summary: "Status and control of the running device: pomodoro ctl status",
      brief: "status and control of the running device or simulator",
      details: """
        Talks to the running device (pomodoro run, or the interactive simulator) through its control socket:
        --socket PATH, else control_socket from the config (default \(DeviceConfig().controlSocket ?? "none")), else the
        simulator's per-user socket. Commands act as the buttons would, so the device's rules hold:
          status                 the state: running  focus 2/4  17:42 left, ends 14:32  · Report
                                 (a flow: running  flow  12:34, break 3:00 earned)
          start | pause | resume | toggle
          cancel                 cancel the timer, or silence a ringing alarm (as the cancel button)
          ack                    silence a ringing alarm
          skip                   to the next mode (a running timer is cancelled)
          extend DURATION        more time (or snooze a ringing alarm): extend 5m
          set [MODE] [DURATION]  idle only: set focus 50m, set soft, set 10m
                                 (modes: \(Mode.allCases.map(\.rawValue).joined(separator: ", ")): flow counts up,
                                 takes no duration, and cancel ends it)
          label [TEXT]           what the sessions are for, the running one's and the next ones' (at most
                                 \(SessionLabel.maxCharacters) characters): label Write the report; label alone clears it
          interrupt [--external] mark an interruption of the running focus (yours; --external: someone
                                 else's); the timer runs on
          profile [NAME]         the profile of the next sessions (the config's profile NAME lines; a timer
                                 keeps its length): profile deep; profile alone: the base settings
          watch                  the state now and on every change, a line each, until the device stops
          config                 the settings ctl and the page change (\(ConfigKey.settableKeys.count) keys): each one's value and
                                 where it comes from (default, FILE:LINE of the config file, or set)
          config set KEY VALUE   set a key over the config file, at once and kept: config set focus 30m
          config reset KEY       back to the config file's value (or the default): config reset focus
        --json prints the device's JSON replies as they are (for config, its item lines).
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, "refused (the reason on stderr, \"too many clients\" among them)"),
        (ExitCode.usage, nil),
        (ExitCode.unavailable, "no device at the socket (or it closed the connection without a reply)"),
        (ExitCode.noAnswer, "no reply within \(DurationText.format(CtlCommand.replyTimeout))"),
        (ExitCode.protocolError, nil), (ExitCode.noPermission, "permission denied (join the group pomodoro)"),
        (ExitCode.config, nil),
      ],
      run: { try CtlCommand.run($0) }),
    Subcommand(
      name: "mqtt", usage: ["mqtt [--config FILE] [--remove]"],
      summary: "The MQTT bridge: the device's state and commands on a broker, for Home Assistant",
      brief: "the MQTT bridge, for Home Assistant",
      details: """
        The MQTT bridge, a process of its own: watches the device's control socket and publishes its state
        (retained JSON on <mqtt_topic_prefix>/<device>/state, availability online/offline with a last will),
        takes commands on <mqtt_topic_prefix>/<device>/command (the ctl commands, as text or JSON) and
        announces itself to Home Assistant (MQTT discovery under mqtt_discovery_prefix). Reconnects with
        back-off to the broker and to the device. Keys: \(ConfigKey.all.filter { $0.applies == .bridge }.map(\.name).joined(separator: ", ")), control_socket.
        It remembers the device it announced in $STATE_DIRECTORY/announced.json (systemd's, under
        /var/lib/pomodoro-mqtt) and withdraws it when mqtt_device_id or a prefix changes.

          --remove   Withdraw this desk's device from Home Assistant (empty retained discovery configs,
                     state and availability) and exit: 0, or \(ExitCode.noAnswer) when the broker cannot be reached in \(DurationText.format(MQTTBridge.removeTimeout)).
                     Stop the bridge first (systemctl stop pomodoro-mqtt), or it announces it again.
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil),
        (ExitCode.unavailable, "libmosquitto missing"), (ExitCode.noAnswer, "--remove: the broker not reached"),
        (ExitCode.config, nil),
      ],
      run: MqttCommand.run),
    Subcommand(
      name: "web", usage: ["web [--config FILE]", "web pair [--config FILE]", "web forget [--config FILE]"],
      summary: "The desk's page for phones on the LAN, paired by a code (or its QR code) on its screen",
      brief: "the page for phones on the LAN",
      details: """
        Serves the desk's page and its API over HTTP (GNU libmicrohttpd), a process of its own: it reaches
        the device only through the control socket (control_socket; beside the simulator, the simulator's).
        Anyone on the LAN sees the page (web_view = paired: paired browsers only); starting, pausing and
        settings need a paired browser: Pair on the page shows a 6-digit code on the desk's screen for
        \(DurationText.format(PairingGate.codeLifetime)) (on a 128x64 panel beside a QR code of the page's address with
        the code: scanning it pairs), and the code typed there keeps that browser paired for a year. While it
        serves, the page is announced over mDNS (Avahi) as "Pomodoro on <host name>".
        Keys: \(ConfigKey.all.filter { $0.applies == .web }.map(\.name).joined(separator: ", ")), control_socket.
        Pairings are kept hashed in $STATE_DIRECTORY (systemd's, /var/lib/pomodoro-web).

          pair     Print a code that pairs one browser (for a desk whose display does not work); run it
                   with sudo, as the service's state directory is its own.
          forget   Revoke every pairing: each browser must pair again to act.
        """,
      codes: [
        (ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil),
        (ExitCode.unavailable, "libmicrohttpd missing, or the port cannot be had"),
        (ExitCode.noPermission, "pair, forget: the state directory is not this user's (use sudo)"),
        (ExitCode.config, nil),
      ],
      run: WebCommand.run),
    Subcommand(
      name: "hooks", usage: ["hooks [--config FILE]"],
      summary: "Run your command, or call your webhook, on every change of the timer",
      brief: "your command or webhook on every change",
      details: """
        A process of its own beside the device: it reaches the device only through the control socket
        (control_socket; beside the simulator, the simulator's) and, on every change it says
        (\(StateChange.allCases.map(\.rawValue).joined(separator: ", "))),
        runs hook_command with the event and the state as JSON on stdin and POMODORO_EVENT, POMODORO_PHASE,
        POMODORO_MODE, POMODORO_LABEL, POMODORO_REMAINING_MS, POMODORO_ENDS_AT and POMODORO_ROOM in its
        environment, and POSTs the same JSON to webhook_url (libcurl), one at a time, in order. A hook that
        runs over hook_timeout is ended; a webhook that fails is tried again, \(HookRunner.attempts) times in
        all; when hooks fall behind, the oldest waiting are dropped and counted. Recipes (Slack status, ntfy,
        a desktop's do-not-disturb): docs/hooks.md.
        Keys: \(ConfigKey.all.filter { $0.applies == .hooks }.map(\.name).joined(separator: ", ")), control_socket.
        """,
      codes: [(ExitCode.ok, nil), (ExitCode.failure, nil), (ExitCode.usage, nil), (ExitCode.config, nil)],
      run: HooksCommand.run),
  ]

  /// The signals that stop a script, with the codes they make: `130 SIGINT, 143 SIGTERM, ...`.
  static let signalExits: [(code: Int32, meaning: String)] = [
    (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"),
  ].map { (Signals.exitCode($0.0), $0.1) }
  static var signalCodes: String { ExitCode.list(signalExits) }

  static func command(_ name: String) -> Subcommand? { commands.first { $0.name == name } }

  static var commandList: String { commands.map(\.name).joined(separator: ", ") }

  /// Every code any command exits with, as `ExitCode` says it.
  static var allExitCodes: [(code: Int32, meaning: String)] {
    ExitCode.meanings.filter { code in commands.contains { $0.codes.contains { $0.0 == code.code } } }
  }

  static var overview: String {
    let width = commands.map(\.name.count).max()! + 3
    func pad(_ s: String) -> String { s + String(repeating: " ", count: max(1, width - s.count)) }
    return """
      pomodoro \(version): a Pomodoro desk timer for a Raspberry Pi with a 128x64 I2C OLED,
      a rotary encoder, two buttons and a buzzer.

      Usage: pomodoro <command> [options]

      Commands:
      \(commands.map { "  " + pad($0.name) + $0.summary }.joined(separator: "\n"))
        \(pad("help"))Help on a command: pomodoro help run

      Options:
        -h, --help      Show this help
        -V, --version   Show the version and the hardware and MQTT support compiled in

      \(wrap("Exit codes: \(ExitCode.list(allExitCodes)); 128 + n when signal n stops a script (\(signalCodes))."))
      Try it without hardware: pomodoro simulate
      """
  }

  /// README's and docs/use.md's command block: `pomodoro run [--config FILE]   the device ...`.
  static var commandBlock: String {
    // Every command takes --config FILE: said once below them rather than on each line.
    let lines = commands.map { ("pomodoro " + $0.usage[0].replacing(" [--config FILE]", with: ""), $0.brief) }
    let width = lines.map(\.0.count).max()! + 2
    return
      (lines.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 }
      + [
        "pomodoro help COMMAND, --help, --version",
        "(each takes --config FILE; default \(DeviceConfig.defaultPath), a missing file meaning the defaults)",
      ]).joined(separator: "\n")
  }

  /// docs/use.md's sentence on exit codes.
  static var docsExitCodes: String {
    "Exit codes: " + ExitCode.list(allExitCodes, mark: { "`\($0)`" })
      + "; `simulate --script` stopped by a signal exits 128 + its number: "
      + ExitCode.list(signalExits, mark: { "`\($0)`" }) + "."
  }

  /// The man page's COMMANDS: a `.TP` paragraph a command, its summary.
  static var manCommands: String {
    commands.map { ".TP\n.B \($0.name)\n\(roff($0.summary)).\n" }.joined()
  }

  /// The man page's EXIT STATUS.
  static var manExitStatus: String {
    roff(ExitCode.list(allExitCodes)) + ";\n128 + n when signal n stops a script.\n"
  }

  /// `text` in lines of at most `width` characters, broken at spaces.
  static func wrap(_ text: String, width: Int = 100) -> String {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty && line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    return (lines + [line]).joined(separator: "\n")
  }

  /// Text as roff: backslashes and hyphens escaped.
  static func roff(_ text: String) -> String {
    String(text.flatMap { $0 == "\\" ? ["\\", "e"] : $0 == "-" ? ["\\", "-"] : [$0] })
  }
}
