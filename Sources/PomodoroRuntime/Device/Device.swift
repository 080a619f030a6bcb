import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics

/// What the device is made of, whichever backend (Linux or mock) provided it.
public struct DeviceParts {
  /// The input lines, requested in `DeviceLine.inputs` order.
  public var inputs: InputLines
  public var buzzer: OutputLine
  public var display: OLEDDriver
  /// Where the display is, for messages: "0x3c on /dev/i2c-1".
  public var displayName: String

  public init(inputs: InputLines, buzzer: OutputLine, display: OLEDDriver, displayName: String) {
    self.inputs = inputs
    self.buzzer = buzzer
    self.display = display
    self.displayName = displayName
  }
}

/// Where the timer state and the history are kept.
public struct Storage {
  public var state: StateStore
  public var history: HistoryLog

  public init(directory: String) {
    state = StateStore(directory: directory)
    history = HistoryLog(directory: directory)
  }
}

/// The picture: one renderer from engine state to pixels, and when it next changes by itself.
public struct Screen {
  public var render: (EngineState, Instant) -> Framebuffer
  public var nextFrame: (EngineState, Instant) -> Instant?

  public init(
    render: @escaping (EngineState, Instant) -> Framebuffer, nextFrame: @escaping (EngineState, Instant) -> Instant?
  ) {
    self.render = render
    self.nextFrame = nextFrame
  }
}

/// Who watches the device from outside (the transcript, the simulator, systemd's STATUS=).
public protocol DeviceObserver: AnyObject {
  /// Phase, mode or dialed duration changed.
  func stateChanged(_ state: EngineState, at: Instant)
  /// A flush that sent `bytes` on the wire; `shown` is the time text on screen.
  func frameFlushed(bytes: Int, shown: String, at: Instant)
  func buzzerChanged(_ on: Bool, at: Instant)
  func recorded(_ entry: HistoryEntry, at: Instant)
}

/// The imperative shell around the engine: edges and ticks in; engine; screen, driver, bytes
/// out. `step()` does everything due at the clock's now; `nextDeadline` says when it must run
/// again if no input arrives. The same code runs the real device, the simulator and scripts.
public final class Device {
  public let config: DeviceConfig
  public let clock: MonotonicClock
  public private(set) var state: EngineState
  public weak var observer: DeviceObserver?
  /// Labels history records and says what "today" is; never used to count time.
  let wallClock: () -> WallTime
  let parts: DeviceParts
  let storage: Storage?
  let screen: Screen
  let log: Log
  let display: DisplayKeeper
  var mapper: InputMapper
  var player = BuzzerPlayer()
  /// The latest instant the engine was handed (events are fed in time order).
  var engineTime: Instant
  var inputsFailed = false
  var buzzerFailed = false
  var lastObserved: (Phase, Mode, Nanoseconds)?
  var dayCheckedAt: Instant
  var day = 0

  /// - Parameter wallClock: labels history records (scripted runs pass a virtual one).
  public init(
    config: DeviceConfig, parts: DeviceParts, clock: MonotonicClock, screen: Screen, storage: Storage?, log: Log,
    wallClock: @escaping () -> WallTime = WallTime.now
  ) {
    self.wallClock = wallClock
    self.config = config
    self.parts = parts
    self.clock = clock
    self.screen = screen
    self.storage = storage
    self.log = log
    let now = clock.now
    state = EngineState(settings: config.engine, now: now)
    engineTime = now
    dayCheckedAt = now
    display = DisplayKeeper(driver: parts.display, description: parts.displayName, log: log)
    let levels = (try? parts.inputs.levels()) ?? []
    mapper = InputMapper(config: config, initialLevels: levels)
  }

  /// Restores the saved state, counts today's sessions, and puts the first frame on the panel
  /// (a panel that does not answer is logged and retried by `step()`).
  public func start() {
    let now = clock.now
    if let storage {
      do {
        if let saved = try storage.state.load() {
          let (restored, effects) = Engine.restore(saved, settings: config.engine, now: now)
          state = restored
          for case .record(let record) in effects { append(record, at: now) }
          if effects.contains(.persist) { save(storage, at: now) }
          if state.restored {
            log.notice(
              "restored a \(saved.mode.rawValue) timer with \(formatClock(state.shownSeconds(at: now))) left, paused")
          }
        }
      } catch {
        log.warning("\(error)")
      }
      recountToday(at: now)
    }
    try? player.silence(parts.buzzer)
    display.bringUp(at: now)
    step()
  }

  /// Does everything due now: reads edges, settles buttons, feeds the engine in time order,
  /// acts on its effects, drives the buzzer and repaints what changed.
  public func step() {
    let now = clock.now
    var actions: [(Instant, InputMapper.Action)] = []
    if !inputsFailed {
      do {
        actions = mapper.feed(try parts.inputs.readEdges())
      } catch {
        inputsFailed = true
        log.error(
          "reading the input lines failed (\(error)); the timer keeps time but buttons and the encoder are ignored until restart"
        )
      }
    }
    actions += mapper.advance(to: now)
    actions.sort { $0.0 < $1.0 }
    for (at, action) in actions {
      switch action {
      case .engine(let event): feed(event, at: at)
      case .buttonDown:
        // The click sounds from now (the press settled `debounce` ago, longer than a click),
        // never over the alarm.
        if config.click && player.pattern?.repeats != true { player.start(.click, at: now) }
      }
    }
    feed(.tick, at: now)
    if storage != nil && now - dayCheckedAt >= seconds(60) { recountToday(at: now) }
    driveBuzzer(at: now)
    let frame = screen.render(state, now)
    let bytes = display.show(frame, at: now)
    if bytes > 0 { observer?.frameFlushed(bytes: bytes, shown: state.clockText(at: now), at: now) }
  }

  /// Feeds an event from outside (a control socket command) at the clock's now, as a button
  /// would; the next `step()` drives the buzzer and the panel. Returns the state it leaves.
  @discardableResult
  public func perform(_ event: Event) -> EngineState {
    feed(event, at: clock.now)
    return state
  }

  /// When `step()` must run next if no input arrives: the engine's next wake, an animation
  /// frame, a button settling, the buzzer pattern's next change, a display retry, a scripted edge.
  public var nextDeadline: Instant? {
    let now = clock.now
    return [
      Engine.nextWake(state, now: now), screen.nextFrame(state, now), mapper.nextDeadline,
      player.nextChange(after: now), display.nextRetry, parts.inputs.nextEdgeTime,
    ].compactMap { $0 }.min()
  }

  /// Buzzer off, state saved, panel parked, lines released.
  public func shutdown() {
    let now = clock.now
    try? player.silence(parts.buzzer)
    if let storage { save(storage, at: now) }
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
    let observed = (state.phase, state.mode, state.duration)
    if lastObserved.map({ $0 != observed }) ?? true {
      lastObserved = observed
      log.info(
        "state phase=\(state.phase.rawValue) mode=\(state.mode.rawValue) remaining_ms=\(state.remaining(at: at) / 1_000_000) total_ms=\(state.duration / 1_000_000)"
      )
      observer?.stateChanged(state, at: at)
    }
    for effect in effects {
      switch effect {
      case .alarm(true): player.start(.alarm, at: state.phaseSince)
      case .alarm(false): player.stop()
      case .persist: if let storage { save(storage, at: at) }
      case .record(let record): append(record, at: at)
      }
    }
  }

  func save(_ storage: Storage, at now: Instant) {
    do {
      try storage.state.save(state.saved(at: now))
      log.forget("state-save")
    } catch {
      log.once(
        "state-save", .error,
        "saving the timer state failed: \(error); check that \(storage.state.path)'s directory exists and is writable")
    }
  }

  func append(_ record: SessionRecord, at now: Instant) {
    var wall = wallClock()
    wall.epochSeconds -= (now - record.endedAt) / nanosecondsPerSecond
    let entry = HistoryEntry(ended: wall, record: record)
    if let storage {
      do {
        try storage.history.append(entry)
      } catch {
        log.error("appending to the history failed: \(error); check that \(storage.history.path) is writable")
      }
    }
    observer?.recorded(entry, at: now)
  }

  func driveBuzzer(at now: Instant) {
    let before = player.lineLevel
    do {
      try player.drive(parts.buzzer, at: now)
      buzzerFailed = false
    } catch {
      if !buzzerFailed { log.error("setting the buzzer line failed: \(error)") }
      buzzerFailed = true
    }
    if let after = player.lineLevel, after != before { observer?.buzzerChanged(after, at: now) }
  }

  func recountToday(at now: Instant) {
    guard let storage else { return }
    dayCheckedAt = now
    let wall = wallClock()
    guard wall.localDay != day else { return }
    day = wall.localDay
    do {
      let (entries, damaged) = try storage.history.read()
      for line in damaged {
        log.once("history-\(line)", .warning, "\(storage.history.path) line \(line) is damaged (a power cut?); skipped")
      }
      feed(.setCompletedToday(HistoryLog.completedFocus(in: entries, onDayOf: wall)), at: now)
    } catch {
      log.warning("reading the history failed: \(error)")
    }
  }
}
