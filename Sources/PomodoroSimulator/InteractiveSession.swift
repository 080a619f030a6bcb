import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem

/// One run of the interactive simulator: the device on mock hardware with a scaled real
/// clock, the terminal it draws on, and the keys it turns into GPIO edges.
final class InteractiveSession: DeviceObserver {
  /// The last warning or error the device logged (shown under the keys; stderr would tear the screen).
  final class LogTail {
    var message: String?
  }

  let config: DeviceConfig
  let bell: Bool
  let realClock = SystemClock()
  let clock: ScaledClock
  let hardware: MockHardware
  let device: Device
  let terminal: TerminalSession
  let logTail = LogTail()
  var canvas = TerminalCanvas()
  var decoder = TerminalKeyDecoder()
  var shownSize: TerminalSize?
  /// The panel as last drawn, and the controller's transaction count it was decoded at.
  var panel: (transactions: Int, image: Framebuffer?, style: TerminalPanel.Style, rows: [String]) = (
    -1, nil, .halfBlocks, []
  )
  var buzzing = false
  var note: String?
  var bellDue = false
  var lastBell: Instant?
  /// When the screen was last drawn, and when a draw held back by the frame limit is due (real clock).
  var lastDraw: Instant?
  var drawDue: Instant?
  /// When each mock input (by line name, "encoder" for A/B) is free for the next key's edges.
  var busyUntil: [String: Instant] = [:]
  /// Whether the presence sensor sees someone (`p` toggles it; with a `presence_line` only).
  var here = true
  /// Set while stopping for Ctrl-Z/SIGTSTP, until the SIGCONT that follows has been seen.
  var stoppedOurselves = false
  /// An I/O failure met inside the loop's callbacks, rethrown once the loop has stopped.
  var failure: Error?
  /// Where to serve the control socket (nil: not at all), and the server once it listens.
  var controlPath: String?
  var control: ControlServer?

  init(
    config: DeviceConfig, bell: Bool, io: TerminalIO, screen: Screen,
    configFile: (path: String, lines: [String: Int])? = nil
  ) throws {
    self.config = config
    self.bell = bell
    clock = ScaledClock(base: realClock)
    hardware = try MockHardware(config: config, clock: clock)
    let tail = logTail
    let log = Log(sink: { level, message in
      if level.rawValue <= Log.Level.warning.rawValue { tail.message = message }
    })
    // No storage: a setting from `ctl config set` lasts until the simulator stops.
    device = Device(
      config: config, parts: hardware.parts, clock: clock, screen: screen, storage: nil, log: log,
      configFile: configFile?.path ?? DeviceConfig.defaultPath, configLines: configFile?.lines ?? [:])
    terminal = TerminalSession(io: io)
    device.observer = self
  }

  func run() throws -> Int32 {
    // Signal handlers first: a Ctrl-C from here on ends the loop and restores the terminal.
    let waiter = try PollWaiter(clock: realClock)
    // Job control and every other signal that would end the process come through the loop too,
    // so that the terminal is given back first.
    let watched = [SIGTSTP, SIGCONT] + Signals.otherTerminating
    try Signals.watch(watched)
    defer { Signals.unwatch(watched) }
    let resize = TerminalResize.descriptor
    if let controlPath {
      let tail = logTail
      let log = Log(sink: { level, message in
        if level.rawValue <= Log.Level.warning.rawValue { tail.message = message }
      })
      control = try ControlServer(path: controlPath, device: device, log: log)
      logTail.message = "control socket: \(controlPath)  (pomodoro ctl --socket \(controlPath) status)"
    }
    defer { control?.close() }
    defer { terminal.restore() }
    try terminal.enter()
    device.start()
    _ = try EventLoop.serve(
      device, waiter: waiter,
      extraDeadline: { [self] in
        // The waiter sleeps on the real clock: the device's deadline converted from scaled time.
        if failure != nil { return realClock.now }
        return [device.nextDeadline.map(clock.baseInstant(for:)), drawDue].compactMap { $0 }.min()
      },
      watching: [terminal.io.input] + (resize.map { [$0] } ?? []), sources: control.map { [$0] } ?? [],
      onSignal: { [self] signal in
        switch signal {
        case SIGTSTP:
          suspend()
          return failure == nil
        case SIGCONT:
          // After our own stop, `suspend` has taken the terminal back already; after a SIGSTOP
          // (which cannot be caught) it is taken back here.
          if stoppedOurselves {
            stoppedOurselves = false
          } else {
            resume()
          }
          return failure == nil
        case _ where Signals.otherTerminating.contains(signal):
          // The terminal first, then the signal's own default action (the process ends there).
          device.shutdown()
          terminal.restore()
          Signals.defaultAction(signal)
          return false
        default:
          return false
        }
      },
      onWake: { [self] wake in
        if let resize, wake.readable.contains(resize) {
          TerminalResize.drain()
          canvas.invalidate()
        }
        guard failure == nil else { return false }
        guard wake.readable.contains(terminal.io.input) else { return true }
        do {
          guard let bytes = try terminal.read() else { return false }
          let keys = decoder.feed(bytes)
          if let cut = keys.firstIndex(of: .suspend) {
            // Ctrl-Z in raw mode is a key: the keys before it act, then the job stops.
            guard clock.pinned({ handle(Array(keys[..<cut])) }) else { return false }
            suspend()
            return failure == nil && clock.pinned { handle(Array(keys[(cut + 1)...])) }
          }
          return clock.pinned { handle(keys) }
        } catch {
          failure = error
          return false
        }
      },
      onStep: { [self] in draw() })
    device.shutdown()
    if let failure { throw failure }
    return 0
  }

  /// Ctrl-Z or SIGTSTP: gives the terminal back (cooked modes, the normal screen, the cursor),
  /// stops as SIGTSTP would, and on `fg` (SIGCONT) takes it again and redraws everything.
  func suspend() {
    terminal.restore()
    stoppedOurselves = true
    Signals.defaultAction(SIGTSTP)
    resume()
  }

  /// Raw mode and the alternate screen again, and a whole redraw.
  func resume() {
    do {
      try terminal.reenter()
    } catch {
      failure = error
      return
    }
    canvas.invalidate()
    shownSize = nil
    lastDraw = nil
    draw()
  }

  /// Acts on keys; false to quit.
  func handle(_ keys: [SimulatorKey]) -> Bool {
    for key in keys {
      switch key {
      case .quit: return false
      case .suspend: break  // handled before the keys reach here (it stops the process)
      case .fastForward: clock.setRate(clock.rate == 1 ? InteractiveSimulator.fastForwardRate : 1)
      case .turn(let detents, let fast): turn(fast ? detents * InteractiveSimulator.spinDetents : detents, fast: fast)
      case .push: press(.encoder)
      case .startPause: press(.start)
      case .cancel: press(.cancel)
      case .presence:
        here.toggle()
        hardware.presence(here, at: clock.now)
      }
    }
    return true
  }

  /// When edges for `key` may start: now, or after the edges already queued for it; nil when
  /// the queue is already `maxBacklog` long (a key held down faster than the device takes it).
  func slot(_ key: String) -> Instant? {
    let now = clock.now
    let start = max(now, busyUntil[key] ?? now)
    return start - now < InteractiveSimulator.maxBacklog ? start : nil
  }

  func turn(_ detents: Int, fast: Bool) {
    guard let start = slot("encoder") else { return }
    busyUntil["encoder"] = hardware.turn(detents, fast: fast, at: start)
  }

  func press(_ button: Button) {
    let line = hardware.config.pin(button)
    guard let start = slot(line) else { return }
    busyUntil[line] = hardware.press(button, at: start)
  }

  /// Redraws the rows that changed, and rings the bell when the buzzer came on.
  func draw() {
    guard failure == nil else { return }
    // At most one frame per `frameInterval` reaches the terminal (fast-forward steps far more often).
    let realNow = realClock.now
    if let lastDraw, realNow - lastDraw < InteractiveSimulator.frameInterval {
      drawDue = lastDraw + InteractiveSimulator.frameInterval
      return
    }
    lastDraw = realNow
    drawDue = nil
    let size = terminal.size()
    if size != shownSize {
      shownSize = size
      canvas.invalidate()
    }
    let now = clock.now
    // The panel is decoded from the controller's RAM and drawn only after the driver wrote to it.
    let image = hardware.emulator.transactions == panel.transactions ? panel.image : nil
    let picture = image ?? hardware.visibleImage()
    let style = TerminalLayout.style(forImageWidth: picture.width, height: picture.height, in: size)
    if image == nil || style != panel.style {
      panel = (hardware.emulator.transactions, picture, style, TerminalPanel.rows(picture, style: style))
    }
    var view = SimulatorView(
      image: picture, label: "\(config.controller.rawValue.uppercased()) 128x\(config.height)\(careLabel)",
      status: device.state.statusLine(at: now) + (device.state.present == false ? "   away" : ""))
    view.buzzing = buzzing
    view.note = note
    view.fastForward = clock.rate > 1
    view.message = logTail.message
    let rows = TerminalLayout.rows(view, panel: panel.rows, style: style, in: size)
    var out = canvas.update(rows, columns: size.columns)
    if bellDue {
      bellDue = false
      out += "\u{07}"
    }
    guard !out.isEmpty else { return }
    do { try terminal.write(out) } catch { failure = error }
  }

  /// What OLED care did to the panel, beside its name: dimmed or off (a key wakes it).
  var careLabel: String {
    if !hardware.emulator.isDisplayOn { return "  (off: any key wakes it)" }
    if hardware.emulator.contrast < config.contrast { return "  (dimmed)" }
    return ""
  }

  // MARK: DeviceObserver

  func buzzerChanged(_ on: Bool, at: Instant) {
    buzzing = on
    guard on, bell else { return }
    // One bell per beep, but no more than a few a second under fast-forward.
    let now = realClock.now
    if lastBell.map({ now - $0 >= ms(250) }) ?? true {
      lastBell = now
      bellDue = true
    }
  }

  func noteChanged(_ midi: Int?, at: Instant) {
    note = midi.map(Tune.noteName(midi:))
  }

  func stateChanged(_ state: EngineState, at: Instant) {}
  func frameFlushed(bytes: Int, shown: String, at: Instant) {}
  func recorded(_ entry: HistoryEntry, at: Instant) {}
}
