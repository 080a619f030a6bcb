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
  /// What the last engine step did (`StateChange`): the watch lines' `changes`, hooks' events.
  public private(set) var changes: [StateChange] = []
  public weak var observer: DeviceObserver?
  /// Labels history records and says what "today" is; never used to count time.
  let wallClock: () -> WallTime
  let parts: DeviceParts
  /// The state and history on disk (nil: kept nowhere).
  let recorder: SessionRecorder?
  let screen: Screen
  package let log: Log
  let display: DisplayKeeper
  var inputs: DeviceInputs
  var presses = PressRouter()
  var sound: DeviceSound
  /// The latest instant the engine was handed (events are fed in time order).
  var engineTime: Instant
  var news = ChangeFilter()
  /// When the local day was last looked at (each minute: a new day is counted afresh).
  var dayCheckedAt: Instant
  var panel: PanelCare
  public var look: DisplayCare.Look { panel.look }
  var quiet = QuietWatch()
  var presence = PresenceWatch()
  /// The pairing code `pomodoro web` asked for, shown over the timer's screen.
  public internal(set) var pairing = PairingPrompt()
  /// Makes the pairing screen's QR code (libqrencode's shim; a seam for tests, `package`).
  package var qrEncoder: (String) -> Result<QRModules, PairingQR.Reason> = { PairingQR.encode($0) }
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
    panel = PanelCare(DisplayCare(config), contrast: config.contrast, at: now)
    sound = DeviceSound(parts: parts, kind: config.buzzerKind)
    display = DisplayKeeper(driver: parts.display, description: parts.displayName, log: log)
    inputs = DeviceInputs(parts.inputs) { InputMapper(config: config, initialLevels: $0) }
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
        panel.care = DisplayCare(config)
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
        for said in state.restoredTexts(saved, at: now) { log.notice(said) }
      }
      recountToday(at: now)
    }
    joinRoom()
    sound.silence()
    display.bringUp(at: now)
    step()
  }

  /// Does everything due now: reads edges, settles buttons, feeds the engine in time order,
  /// acts on its effects, drives the buzzer and repaints what changed.
  public func step() {
    collectSave()
    let now = clock.now
    if let change = quiet.check(config.quietHours, at: now, wallClock: wallClock) {
      log.info(QuietWatch.text(change, panel: config.quietPanel))
    }
    for (at, action) in inputs.actions(to: now, log: log) { handle(action, at: at) }
    let sensed = presence.advance(config, state: state, to: now)
    if let said = sensed.said { log.info(said) }
    if let woke = sensed.woke { panel.touch(at: woke) }
    for (at, event) in sensed.events { feed(event, at: at) }
    feed(.tick, at: now)
    if storage != nil && now - dayCheckedAt >= seconds(60) { recountToday(at: now) }
    sound.tickIfDue(state, tick: config.tick, quiet: quiet.since != nil, at: now)
    let heard = sound.drive(volume: config.volume, at: now, log: log)  // with or without an observer
    observer?.heard(heard, at: now)
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

  /// One input, in time order, where `PressRouter` sends it.
  func handle(_ action: InputMapper.Action, at: Instant) {
    guard let silent = presence.take(action, at: at, quietSince: quiet.since, config) else { return }  // not a touch
    let waking = !look.on
    panel.touch(at: at)
    if waking { refreshLook(at: at) }
    let route = presses.route(action, waking: waking, state: state)
    if route.pressedDown {
      // A press at the desk puts the timer's screen back (one that wakes the panel shows the code).
      if !waking { pairing.pressedAway(at: at) }
      // The click sounds from now (the press settled `debounce` ago, longer than a click).
      if config.click && !silent { sound.click(at: clock.now) }
    }
    if let event = route.event { feed(event, at: at) }
  }

  /// The descriptor that is readable when the input lines have edges (`DeviceInputs`).
  public var inputDescriptor: Int32? { inputs.descriptor }

  /// Feeds an event from outside (a control socket command) at the clock's now, as a button
  /// would; the next `step()` drives the buzzer and the panel. Returns the state it leaves.
  @discardableResult
  public func perform(_ event: Event) -> EngineState {
    panel.touch(at: clock.now)  // a command is a touch too: it wakes a dimmed panel
    feed(event, at: clock.now)
    return state
  }

  /// When `step()` must run next if no input arrives: the engine's next wake, an animation
  /// frame, a button settling, the buzzer pattern's next change, a display retry, a scripted edge.
  public var nextDeadline: Instant? {
    let now = clock.now
    return [
      Engine.nextWake(state, now: now), look.on ? screen.nextFrame(state, now) : nil,
      look.on ? pairing.nextFrame(after: now) : nil, inputs.nextDeadline, sound.nextChange(after: now),
      display.nextRetry, presence.nextChange(config),
      panel.nextChange(state, quietSince: presence.hushed(quiet.since, config), after: now), quiet.boundary,
    ].compactMap { $0 }.min()
  }

  /// Takes a config read again on SIGHUP whose hardware keys are unchanged (`ConfigReload`):
  /// the timer settings and the click apply from now on; the timer itself is kept as it is, and
  /// the idle picker shows a new preset of its mode unless its time was dialed
  /// (`Event.configure`). The next `step()` paints it.
  public func reconfigure(_ config: DeviceConfig, layers: ConfigLayers? = nil) {
    self.config = config
    if let layers { self.layers = layers }
    panel.care = DisplayCare(config)
    quiet.lookAgain()
    feed(.configure(config.engine), at: clock.now)
    joinRoom()
  }

  /// The wall clock was set (a script's `clock` line): quiet hours are looked at again at the
  /// next step.
  public func wallClockChanged() { quiet.lookAgain() }

  /// Buzzer off, state saved, panel parked, lines released.
  public func shutdown() {
    let now = clock.now
    sound.silence()
    parts.tone?.release()
    recorder?.settle()
    save(at: now)
    recorder?.close()
    display.park()
    parts.buzzer.release()
    parts.inputs.release()
  }

  /// Hands the engine one event, in time order, and acts on what it says.
  func feed(_ event: Event, at time: Instant) {
    let at = max(engineTime, time)
    engineTime = at
    let (next, effects) = Engine.step(state, event, now: at)
    (changes, state) = (StateChange.of(event, from: state, to: next, effects: effects), next)
    switch news.news(state) {
    case .changed:
      log.info("state " + StateFields.logText(StateFields.journal(state, at: at)))
      observer?.stateChanged(state, at: at)
    case .shown: observer?.stateShown(state, at: at)
    case nil: break
    }
    for effect in effects {
      switch effect {
      case .alarm(true): sound.alarm(state.mode, tunes: config, at: state.phaseSince)
      case .alarm(false): sound.stopAlarm()
      case .persist: if storage != nil { saveDue = true }
      case .record(let record): append(record, at: at)
      }
    }
  }
}
