import PomodoroLinux
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// `pomodoro`: the commands, their help, and the mapping of errors to exit codes.
public enum PomodoroCLI {
  public static let version = Release.version

  static let overview = """
    pomodoro \(version): a Pomodoro desk timer for a Raspberry Pi with a 128x64 I2C OLED,
    a rotary encoder, two buttons and a buzzer.

    Usage: pomodoro <command> [options]

    Commands:
      run        Run the device (GPIO through libgpiod, the display through I2C)
      probe      Check a freshly wired device: lines, display, buzzer, then live input
      simulate   The whole device in this terminal, or a scripted scenario, headless
      snapshot   Write a PNG of every screen into a folder
      history    Print the history of sessions (JSON lines, or CSV)
      stats      Focus sessions today and this week, streaks, and a heatmap of the last 12 weeks
      ctl        Status and control of the running device: pomodoro ctl status
      mqtt       The MQTT bridge: the device's state and commands on a broker, for Home Assistant
      help       Help on a command: pomodoro help run

    Options:
      -h, --help      Show this help
      -V, --version   Show the version and the hardware and MQTT support compiled in

    Exit codes: 0 ok, 1 failure, 64 usage error, 65 bad script, 69 hardware error (ctl: no device),
    75 no reply in time, 76 bad reply, 77 no permission, 78 config error; 128 + n when signal n
    stops a script (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
    Try it without hardware: pomodoro simulate
    """

  static let help: [String: String] = [
    "run": """
    Usage: pomodoro run [--config FILE]

    Runs the device: reads the config (default \(DeviceConfig.defaultPath); a missing file means the
    defaults), opens the GPIO chip, lines and I2C bus, shows the idle screen and serves until SIGTERM,
    SIGINT or SIGQUIT, which turn the buzzer off, save the state, switch the panel off, release the lines
    and exit 0. SIGHUP reads the config again: timer settings, click and OLED care apply at once, the timer
    carries on; a changed key read only at start is logged (FILE:LINE) with the restart that applies it,
    and a bad config is logged and the running config kept (docs/settings.md lists every key).
    Under systemd (Type=notify) it reports READY=1, WATCHDOG=1 and STATUS=. Logs go to stderr with
    journald priority prefixes.
    """,
    "probe": """
    Usage: pomodoro probe [--config FILE]

    Checks a freshly wired device: prints the chip and each line the config names, whether it is free
    (and who holds it if not), whether the display answers at its address, draws a test pattern, beeps
    once, then prints encoder turns and button presses as they happen until Ctrl-C.
    """,
    "simulate": """
    Usage: pomodoro simulate [--config FILE] [--no-bell]
           pomodoro simulate --script FILE [--png DIR] [--config FILE]

    Without --script: the whole device in this terminal on emulated hardware with the real clock.
    Keys: Left/Right or j/k turn the encoder (Shift or capitals: a fast spin), Enter or e push it,
    Space start/pause, c or Backspace cancel, f time runs 60x, q or Ctrl-C quit, Ctrl-Z suspend (fg resumes).

    With --script: runs a scenario headless on a virtual clock, as fast as the CPU allows, and prints a
    transcript, one JSON object a line. Steps, one a line (# comments):
      turn +N | turn -N [fast] [bounce]    N detents, 150 ms apart (fast: 10 ms); bounce on every edge
      press start|cancel|encoder           pressed 80 ms, then released
      hold start|cancel|encoder DURATION   a long press
      wait DURATION                        units ms, s, m, h, combinable: 1m30s, 2.5s
    --png DIR writes a PNG of the emulated panel after each line, named by line number.

    Exit codes: 0 ok, 1 an `# expect` not met, 65 bad script, 78 config error. SIGINT, SIGTERM, SIGHUP or
    SIGQUIT stop a script after the step in progress; the transcript ends with its summary marked
    "interrupted":"SIGTERM" and the exit code is 128 + n: 130 SIGINT, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT.
    """,
    "snapshot": """
    Usage: pomodoro snapshot DIR [--config FILE]

    Writes a PNG of every screen (idle, running, paused, ringing, egg titles, transitions, 128x32) into DIR.
    """,
    "history": """
    Usage: pomodoro history [--csv] [--config FILE]

    Prints the completed and cancelled sessions from the state directory's history.jsonl: as stored (JSON
    lines) or, with --csv, as CSV with a header. Damaged lines (a power cut) are skipped and reported.
    """,
    "stats": """
    Usage: pomodoro stats [--days N] [--png FILE] [--config FILE]

    Counts the completed focus sessions and focus minutes of today and this week (from Monday), the
    current streak of days with at least one (up to yesterday while today has none yet) and the longest,
    and draws a heatmap of focus minutes a day: a row a weekday, a column a week. --days N sets the
    heatmap's span, the N days ending today (default 84, 12 weeks). --png FILE also writes the heatmap
    and the counts as an image. Completed flows count as focus (their minutes too) and are also counted
    apart. Breaks, egg timers and cancelled sessions are counted apart. Days are
    local dates. Sessions recorded before the wall clock was set are counted on the day of the next one
    recorded with it set, and said so. Damaged lines of history.jsonl are skipped and reported.
    """,
    "ctl": """
    Usage: pomodoro ctl COMMAND [--json] [--socket PATH] [--config FILE]

    Talks to the running device (pomodoro run, or the interactive simulator) through its control socket:
    --socket PATH, else control_socket from the config (default /run/pomodoro/control.sock), else the
    simulator's per-user socket. Commands act as the buttons would, so the device's rules hold:
      status                 the state: running  focus 2/4  17:42 left, ends 14:32
                             (a flow: running  flow  12:34, break 3:00 earned)
      start | pause | resume | toggle
      cancel                 cancel the timer, or silence a ringing alarm (as the cancel button)
      ack                    silence a ringing alarm
      skip                   to the next mode (a running timer is cancelled)
      extend DURATION        more time (or snooze a ringing alarm): extend 5m
      set [MODE] [DURATION]  idle only: set focus 50m, set soft, set 10m
                             (modes: focus, short, long, soft, medium, hard, flow: it counts up,
                             takes no duration, and cancel ends it)
      watch                  the state now and on every change, a line each, until the device stops
    --json prints the device's JSON replies as they are. Exit codes: 0 ok, 1 refused (the reason on
    stderr, "too many clients" among them), 64 usage, 69 no device at the socket (or it closed the
    connection without a reply), 75 no reply within 5 s, 76 bad reply, 77 permission denied (join the
    group pomodoro).
    """,
    "mqtt": """
    Usage: pomodoro mqtt [--config FILE] [--remove]

    The MQTT bridge, a process of its own: watches the device's control socket and publishes its state
    (retained JSON on <mqtt_topic_prefix>/<device>/state, availability online/offline with a last will),
    takes commands on <mqtt_topic_prefix>/<device>/command (the ctl commands, as text or JSON) and
    announces itself to Home Assistant (MQTT discovery under mqtt_discovery_prefix). Reconnects with
    back-off to the broker and to the device. Keys: mqtt_host, mqtt_port, mqtt_device_id, mqtt_topic_prefix,
    mqtt_discovery_prefix, mqtt_user, mqtt_password_file, mqtt_cafile, control_socket.
    It remembers the device it announced in $STATE_DIRECTORY/announced.json (systemd's, under
    /var/lib/pomodoro-mqtt) and withdraws it when mqtt_device_id or a prefix changes.

      --remove   Withdraw this desk's device from Home Assistant (empty retained discovery configs,
                 state and availability) and exit: 0, or 75 when the broker cannot be reached in 10 s.
                 Stop the bridge first (systemctl stop pomodoro-mqtt), or it announces it again.
    """,
  ]

  /// Runs the command line `arguments` (without the program name) and returns the exit code.
  public static func main(_ arguments: [String]) -> Int32 {
    guard let command = arguments.first else {
      print(overview)
      return ExitCode.ok
    }
    let rest = arguments.dropFirst()
    do {
      switch command {
      case "-h", "--help":
        print(overview)
        return ExitCode.ok
      case "-V", "--version":
        print(versionText)
        return ExitCode.ok
      case "help":
        guard let topic = rest.first else {
          print(overview)
          return ExitCode.ok
        }
        guard let text = help[topic] else { throw UsageError("no command '\(topic)'; commands: \(commandList)") }
        print(text)
        return ExitCode.ok
      case "run", "probe", "simulate", "snapshot", "history", "stats", "ctl", "mqtt":
        if rest.contains("-h") || rest.contains("--help") {
          print(help[command]!)
          return ExitCode.ok
        }
        switch command {
        case "run": return try RunCommand.run(rest)
        case "probe": return try ProbeCommand.run(rest)
        case "simulate": return try SimulateCommand.run(rest)
        case "snapshot": return try SnapshotCommand.run(rest)
        case "stats": return try StatsCommand.run(rest)
        case "ctl": return try CtlCommand.run(rest)
        case "mqtt": return try MqttCommand.run(rest)
        default: return try HistoryCommand.run(rest)
        }
      default:
        throw UsageError("unknown command '\(command)'; commands: \(commandList)")
      }
    } catch let e as UsageError {
      fail("pomodoro: \(e)\nTry 'pomodoro --help'.")
      return ExitCode.usage
    } catch let e as ConfigError {
      fail("pomodoro: config error: \(e)")
      return ExitCode.config
    } catch let e as ScriptError {
      fail("pomodoro: script error: \(e)")
      return ExitCode.badScript
    } catch let e as HardwareError {
      fail("pomodoro: \(e)")
      return ExitCode.hardware
    } catch {
      fail("pomodoro: \(error)")
      return ExitCode.failure
    }
  }

  static var commandList: String { help.keys.sorted().joined(separator: ", ") }

  static var versionText: String {
    let gpio = HardwareSupport.gpio ? "libgpiod v\(HardwareSupport.gpiodAPI) API" : "no libgpiod"
    let i2c = HardwareSupport.i2c ? "libi2c" : "no libi2c"
    // The MQTT bridge's libmosquitto, decided as `pomodoro mqtt` decides "not installed".
    let mqtt = MQTTBridge.available ? "libmosquitto" : "no libmosquitto"
    return "pomodoro \(version) (\(gpio), \(i2c), \(mqtt))"
  }

  static func fail(_ message: String) {
    writeToStandardError(message + "\n")
  }

  /// Reads the config at `path`; a missing file means the defaults (said once in the log).
  /// With `pins`, the config must fit that GPIO header (the simulator's).
  static func loadConfig(_ path: String?, defaultPath: String?, log: Log?, pins: PinSet? = nil) throws -> DeviceConfig {
    guard let file = path ?? defaultPath else { return DeviceConfig() }
    let text: String?
    do {
      text = try Files.readText(file)
    } catch {
      throw ConfigError(file: file, line: 0, message: "cannot read it: \(error)")
    }
    guard let text else {
      if path != nil && log == nil {
        throw ConfigError(file: file, line: 0, message: "no such file; pass an existing config or leave --config out")
      }
      log?.notice("no config at \(file); using the defaults")
      return DeviceConfig()
    }
    return try ConfigParser.parse(text, file: file, pins: pins)
  }
}
