import PomodoroCore
import PomodoroGraphics
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// `pomodoro simulate`: the device in the terminal, or a script run headless with a transcript.
enum SimulateCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config", "--script", "--png", "--control"], switches: ["--no-bell"])
    guard args.positional.isEmpty else { throw UsageError("simulate takes no arguments, got '\(args.positional[0])'") }
    let (config, lines) = try PomodoroCLI.loadConfigFile(
      args.values["--config"], defaultPath: nil, log: nil, pins: .raspberryPiHeader)
    guard let scriptPath = args.values["--script"] else {
      guard args.values["--png"] == nil else { throw UsageError("--png goes with --script") }
      if let control = args.values["--control"], control != "off", !control.hasPrefix("/") {
        throw UsageError("--control takes an absolute socket path or off, got '\(control)'")
      }
      guard isatty(0) == 1 && isatty(1) == 1 else {
        throw UsageError("the interactive simulator needs a terminal; for a run without one use --script FILE")
      }
      // The per-user control socket (or --control PATH, or --control off), said before the screen takes over.
      let control = args.values["--control"] ?? ControlPaths.simulator
      let path = control == "off" ? nil : control
      if args.values["--control"] == nil, control.hasPrefix(ControlPaths.privateDirectory + "/") {
        try ControlPaths.makePrivate(ControlPaths.privateDirectory)
      }
      if let path { PomodoroCLI.fail("pomodoro simulate: control socket at \(path)") }
      return try InteractiveSimulator.run(
        config: config, bell: !args.switches.contains("--no-bell"), control: path,
        configFile: args.values["--config"].map { ($0, lines) })
    }
    let read: String?
    do {
      read = try Files.readText(scriptPath)
    } catch {
      throw ScriptError(file: scriptPath, line: 0, message: "cannot read it: \(error)")
    }
    guard let text = read else {
      throw UsageError("no script at \(scriptPath)")
    }
    let script = try ScriptParser.parse(text, file: scriptPath, config: config)
    let pngDirectory = args.values["--png"]
    if let pngDirectory { try Files.makeDirectories(pngDirectory, followingLinks: true) }
    // A signal ends the run after the step in progress, with a summary saying so (exit 128+n);
    // the transcript leaves in whole lines only, so nothing is ever torn.
    try Signals.watch([SIGQUIT])
    let output = LineOutput()
    let runner = try ScriptRunner(
      config: config, screen: .standard(height: config.height), log: Log(sink: { _, _ in }),
      write: { output.line($0) })
    var pngError: Error?
    let interruption: () -> String? = {
      if let signo = Signals.first { return Signals.name(signo) }
      return output.failed != nil ? Signals.name(SIGPIPE) : nil
    }
    let unmet = runner.run(script, file: scriptPath, interruption: interruption) { line in
      guard let pngDirectory, pngError == nil else { return }
      let image = runner.hardware.visibleImage()
      let look = PanelLook(contrast: runner.hardware.emulator.contrast)
      let name = "\(pngDirectory)/line-\(pad(line.number)).png"
      do { try Files.writeAtomically(name, PNGEncoder.encode(image, look: look)) } catch { pngError = error }
    }
    output.flush()
    if let failed = output.failed {
      // The reader went away (`| head`): stop quietly, as the default SIGPIPE would.
      if failed.errno == EPIPE { return Signals.exitCode(SIGPIPE) }
      throw failed
    }
    if let signo = Signals.first {
      PomodoroCLI.fail(
        "pomodoro: \(Signals.name(signo)) stopped the script; the transcript ends with a summary marked \"interrupted\""
      )
      return Signals.exitCode(signo)
    }
    if let pngError { throw pngError }
    if let unmet {
      PomodoroCLI.fail("pomodoro: \(unmet)")
      return ExitCode.failure
    }
    return ExitCode.ok
  }

  static func pad(_ n: Int) -> String {
    let s = String(n)
    return String(repeating: "0", count: max(0, 3 - s.count)) + s
  }
}
