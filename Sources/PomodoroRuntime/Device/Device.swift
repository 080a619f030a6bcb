import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroSystem

/// The imperative shell around the engine: edges and ticks in; engine; screen, driver, bytes
/// out. `step()` does everything due at the clock's now; `nextDeadline` says when it must run
/// again if no input arrives. The same code runs the real device, the simulator and scripts.
public final class Device {
  public private(set) var config: DeviceConfig
  /// Where the settable keys come from: the defaults, the config file, the overlay in the state
  /// directory (`ctl config set`, the page). Its settable keys are `config`'s.
  public internal(set) var layers: ConfigLayers
  public let clock: MonotonicClock
  public private(set) var state: EngineState
  public weak var observer: DeviceObserver?
  /// Labels history records and says what "today" is; never used to count time.
  let wallClock: () -> WallTime
  let parts: DeviceParts
  /// The state and history on disk (nil: kept nowhere).
  let recorder: SessionRecorder?
  let screen: Screen
  package let log: Log
  let display: DisplayKeeper
  var mapper: InputMapper
  var player = BuzzerPlayer()
  /// The passive buzzer's tunes, click and tick (`buzzer_kind = passive`: `parts.tone`).
  var melody = MelodyPlayer()
  /// When the focus's next tick is due (`tick`), as the last step found it.
  var tickAt: Instant?
  /// The latest instant the engine was handed (events are fed in time order).
  var engineTime: Instant
  var inputsFailed = false
  var buzzerFailed = false
  var lastObserved: (Phase, Mode, Nanoseconds?, SessionLabel?)?
  /// What else the state's fields show and may change alone (the interruptions, today's count,
  /// the goal, the recent labels): a change is said to the control socket's watchers (the page,
  /// the bridge), not in the journal nor the transcript (`DeviceObserver.stateShown`).
  var lastShown: (Interruptions?, Int, Int, [SessionLabel], RoomStanding?)?
  /// When the local day was last looked at (each minute: a new day is counted afresh).
  var dayCheckedAt: Instant
  /// Buttons whose press already acted at its settled press-down (or woke the panel): the rest
  /// of that press (its release or long press) says nothing more.
  var pressHandled: Set<Button> = []
  /// OLED care: where the pixel shift's steps count from (the device's start, moved on by the
  /// time the panel was off: the orbit stands still meanwhile), when the panel went off, the
  /// last input or phase change, and the look the panel was last given.
  var care: DisplayCare
  var shiftOrigin: Instant
  var offSince: Instant?
  var activeAt: Instant
  public internal(set) var look: DisplayCare.Look
  /// Quiet hours (`quiet_hours`): since when they hold (nil: not now), the next boundary (the
  /// loop's deadline: found from the wall clock's local time, never polled), and when the wall
  /// clock was last looked at (each minute the loop runs anyway, and at once after a change of
  /// the config or the clock; nil: at the next step).
  public internal(set) var quietSince: Instant?
  var quietBoundary: Instant?
  var quietCheckedAt: Instant?
  /// The pairing code `pomodoro web` asked for, shown over the timer's screen.
  public internal(set) var pairing = PairingPrompt()
  /// Makes the pairing screen's QR code (libqrencode's shim; a test may hand another).
  public var qrEncoder: (String) -> Result<QRModules, PairingQR.Reason> = { PairingQR.encode($0) }
  /// Why no QR code could be made was logged (once a run).
  var qrRefusalSaid = false
  /// The state changed in a way the file must follow (the engine's `.persist`, a record): saved
  /// once by `saveIfDue()` at the end of the step, or after a batch of commands, rather than once
  /// an event (a burst of 800 toggles is one save, not 1,600 fsyncs).
  public internal(set) var saveDue = false {
    didSet { if saveDue && !oldValue { saveDueSince = clock.now } }
  }
  var saveDueSince = Instant.zero
  /// State saves started since start (tests and the bench count them).
  public internal(set) var saves = 0
  /// Told when a save has ended (`savesEnded` moved): the control socket sends the replies
  /// that waited for it.
  public var onSaveEnded: (() -> Void)?

  /// - Parameters:
  ///   - config: the config file's (the defaults where it says nothing); `start()` lays the
  ///     overlay kept in the state directory over it.
  ///   - wallClock: labels history records (scripted runs pass a virtual one).
  ///   - configFile: where `config` was read, and the line that sets each key there: what
  ///     `ctl config` says a value comes from.
  public init(
    config: DeviceConfig, parts: DeviceParts, clock: MonotonicClock, screen: Screen, storage: Storage?, log: Log,
    wallClock: @escaping () -> WallTime = WallTime.now, configFile: String = DeviceConfig.defaultPath,
    configLines: [String: Int] = [:]
  ) {
    self.wallClock = wallClock
    self.config = config
    layers = ConfigLayers(file: configFile, fileConfig: config, fileLines: configLines)
    self.parts = parts
    self.clock = clock
    self.screen = screen
    recorder = storage.map { SessionRecorder(storage: $0, log: log, wallClock: wallClock) }
    self.log = log
    let now = clock.now
    state = EngineState(settings: config.engine, now: now)
    engineTime = now
    dayCheckedAt = now
    shiftOrigin = now
    activeAt = now
    care = DisplayCare(config)
    look = DisplayCare.Look(on: true, contrast: config.contrast, shift: .zero)
    display = DisplayKeeper(driver: parts.display, description: parts.displayName, log: log)
    let levels = (try? parts.inputs.levels()) ?? []
    mapper = InputMapper(config: config, initialLevels: levels)
  }

  /// Restores the saved state, counts today's sessions, and puts the first frame on the panel
  /// (a panel that does not answer is logged and retried by `step()`).
  public func start() {
    let now = clock.now
    if recorder != nil {
      // The settings set with `ctl config set` win over the file's from the first frame on.
      if let overlay = readOverlay(), !overlay.isEmpty {
        layers = layers.with(overlay: overlay)
        config = layers.config
        care = DisplayCare(config)
        state = EngineState(settings: config.engine, now: now)
      }
    }
    if let recorder {
      if let saved = recorder.recover() {
        let (restored, effects) = Engine.restore(saved, settings: config.engine, now: now)
        state = restored
        for case .record(let record) in effects { append(record, at: now) }
        if effects.contains(.persist) { saveDue = true }
        saveIfDue()
        recorder.settle()  // written before the history is counted and READY=1 is said
        if state.restored {
          // A flow counts up: its clock is the time counted, not the time left.
          let clock = formatClock(state.shownSeconds(at: now))
          let how: String
          switch state.count(at: now) {
          case .up: how = "counted"
          case .down: how = "left"
          }
          log.notice("restored a \(saved.mode.rawValue) timer with \(clock) \(how), paused")
        }
      }
      recountToday(at: now)
    }
    joinRoom()
    try? player.silence(parts.buzzer)
    if let tone = parts.tone { try? melody.silence(tone) }
    display.bringUp(at: now)
    step()
  }

  /// Does everything due now: reads edges, settles buttons, feeds the engine in time order,
  /// acts on its effects, drives the buzzer and repaints what changed.
  public func step() {
    collectSave()
    let now = clock.now
    checkQuietHours(at: now)
    var actions: [(Instant, InputMapper.Action)] = []
    if !inputsFailed {
      do {
        actions = mapper.feed(try parts.inputs.readEdges())
      } catch {
        inputsFailed = true
        log.error(
          "reading the input lines failed (\(HardwareAdvice.text(error))); the timer keeps time but buttons and the encoder are ignored until restart"
        )
      }
    }
    actions += mapper.advance(to: now)
    actions.sort { $0.0 < $1.0 }
    for (at, action) in actions { handle(action, at: at) }
    feed(.tick, at: now)
    if storage != nil && now - dayCheckedAt >= seconds(60) { recountToday(at: now) }
    tickIfDue(at: now)
    driveBuzzer(at: now)
    refreshLook(at: now)
    guard look.on else {
      display.retryIfDue(at: now)
      saveIfDue()
      return
    }
    let frame = pairing.frame(at: now, height: config.height) ?? screen.render(state, now)
    let shifted = look.shift == .zero ? frame : frame.shifted(dx: look.shift.dx, dy: look.shift.dy)
    let bytes = display.show(shifted, at: now)
    if bytes > 0 { observer?.frameFlushed(bytes: bytes, shown: state.clockText(at: now), at: now) }
    saveIfDue()
  }

  /// One input, in time order. A press acts at its settled press-down where a short and a long
  /// press mean the same in the phase (Engine.actsAtPressDown), else at its release or its long
  /// press. An input that wakes a blank panel does nothing else.
  func handle(_ action: InputMapper.Action, at: Instant) {
    let waking = !look.on
    activeAt = max(activeAt, at)
    if waking { refreshLook(at: at) }
    switch action {
    case .buttonDown(let button):
      pressHandled.remove(button)
      // A press at the desk puts the timer's screen back (one that wakes the panel shows the code).
      if !waking { pairing.pressedAway(at: at) }
      // The click sounds from now (the press settled `debounce` ago, longer than a click),
      // never over the alarm.
      if config.click && quietSince == nil && !alarmSounding { startClick(at: clock.now) }
      if waking {
        pressHandled.insert(button)
      } else if Engine.actsAtPressDown(button, in: state) {
        pressHandled.insert(button)
        feed(.press(button), at: at)
      }
    case .engine(.press(let button)), .engine(.longPress(let button)):
      if pressHandled.contains(button) { return }
      if case .engine(let event) = action { feed(event, at: at) }
    case .engine(let event):
      if !waking { feed(event, at: at) }
    }
  }

  /// The descriptor that is readable when the input lines have edges, while they work (nil
  /// after a read failed: they are ignored until restart, and a failed line may stay readable).
  public var inputDescriptor: Int32? { inputsFailed ? nil : parts.inputs.pollDescriptor }

  /// Feeds an event from outside (a control socket command) at the clock's now, as a button
  /// would; the next `step()` drives the buzzer and the panel. Returns the state it leaves.
  @discardableResult
  public func perform(_ event: Event) -> EngineState {
    activeAt = max(activeAt, clock.now)  // a command is a touch too: it wakes a dimmed panel
    feed(event, at: clock.now)
    return state
  }

  /// When `step()` must run next if no input arrives: the engine's next wake, an animation
  /// frame, a button settling, the buzzer pattern's next change, a display retry, a scripted edge.
  public var nextDeadline: Instant? {
    let now = clock.now
    return [
      Engine.nextWake(state, now: now), look.on ? screen.nextFrame(state, now) : nil,
      look.on ? pairing.nextFrame(after: now) : nil, mapper.nextDeadline,
      player.nextChange(after: now), melody.nextChange(after: now), tickAt, display.nextRetry,
      inputsFailed ? nil : parts.inputs.nextEdgeTime,
      care.nextChange(
        phase: state.phase, activeAt: max(activeAt, state.phaseSince), origin: shiftOrigin, now: now,
        quietSince: quietSince),
      quietBoundary,
    ].compactMap { $0 }.min()
  }

  /// Takes a config read again on SIGHUP whose hardware keys are unchanged (`ConfigReload`):
  /// the timer settings and the click apply from now on; the timer itself is kept as it is, and
  /// the idle picker shows a new preset of its mode unless its time was dialed
  /// (`Event.configure`). The next `step()` paints it.
  public func reconfigure(_ config: DeviceConfig, layers: ConfigLayers? = nil) {
    self.config = config
    if let layers { self.layers = layers }
    care = DisplayCare(config)
    quietCheckedAt = nil
    feed(.configure(config.engine), at: clock.now)
    joinRoom()
  }

  /// The wall clock was set (a script's `clock` line): quiet hours are looked at again at the
  /// next step.
  public func wallClockChanged() { quietCheckedAt = nil }

  /// Finds whether quiet hours hold from the wall clock's local time, and the next boundary,
  /// when one is due: at a boundary, a minute after the last look while the loop runs, or after
  /// a change of the config or the clock.
  func checkQuietHours(at now: Instant) {
    guard let hours = config.quietHours else {
      if quietSince != nil { log.info("quiet hours end (quiet_hours is off)") }
      quietSince = nil
      quietBoundary = nil
      return
    }
    let due = quietCheckedAt.map { now - $0 >= seconds(60) } ?? true
    guard due || quietBoundary.map({ now >= $0 }) ?? true else { return }
    quietCheckedAt = now
    let wall = wallClock()
    let (quiet, boundary) = hours.at(wall)
    quietBoundary = now + seconds(max(1, boundary - wall.epochSeconds))
    if quiet && quietSince == nil {
      quietSince = now
      log.info(
        "quiet hours \(hours.text) begin: the picker's panel \(config.quietPanel == .off ? "goes dark" : "dims"), no click"
      )
    } else if !quiet && quietSince != nil {
      quietSince = nil
      log.info("quiet hours \(hours.text) end")
    }
  }

  /// Buzzer off, state saved, panel parked, lines released.
  public func shutdown() {
    let now = clock.now
    try? player.silence(parts.buzzer)
    if let tone = parts.tone {
      try? melody.silence(tone)
      tone.release()
    }
    recorder?.settle()
    save(at: now)
    recorder?.close()
    display.park()
    parts.buzzer.release()
    parts.inputs.release()
  }

  // MARK: -

  func feed(_ event: Event, at time: Instant) {
    let at = max(engineTime, time)
    engineTime = at
    let (next, effects) = Engine.step(state, event, now: at)
    state = next
    let observed = (state.phase, state.mode, state.duration, state.label)
    let shown = (state.interruptions, state.completedToday, state.settings.dailyGoal, state.recentLabels, state.room)
    if lastObserved.map({ $0 != observed }) ?? true {
      lastObserved = observed
      lastShown = shown
      log.info("state " + StateFields.logText(StateFields.journal(state, at: at)))
      observer?.stateChanged(state, at: at)
    } else if lastShown.map({ $0 != shown }) ?? true {
      lastShown = shown
      observer?.stateShown(state, at: at)
    }
    for effect in effects {
      switch effect {
      case .alarm(true): startAlarm(at: state.phaseSince)
      case .alarm(false):
        player.stop()
        melody.stop()
      case .persist: if storage != nil { saveDue = true }
      case .record(let record): append(record, at: at)
      }
    }
  }

}
