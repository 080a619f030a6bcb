import PomodoroCore
import PomodoroSystem

/// The device as a service: the loop until a terminating signal, with systemd's notify
/// protocol (READY=1 after the first frame, WATCHDOG=1 at half of WATCHDOG_USEC, STATUS= with
/// the phase and time left, STOPPING=1), then an orderly shutdown.
public final class DeviceService {
  let device: Device
  let notify: SystemdNotify
  let log: Log
  /// The config file SIGHUP reads again (nil: SIGHUP only says it has nothing to reload).
  let configFile: String?
  let readConfig: (String) throws -> String?
  /// The control socket, served in the same loop; its counts join STATUS=.
  public var control: ControlServer?

  /// - Parameters:
  ///   - configFile: the file the running config came from, read again on SIGHUP.
  ///   - readConfig: reads it (nil: no such file, meaning the defaults).
  public init(
    device: Device, notify: SystemdNotify, log: Log, configFile: String? = nil,
    readConfig: @escaping (String) throws -> String? = { try Files.readText($0) }
  ) {
    self.device = device
    self.notify = notify
    self.log = log
    self.configFile = configFile
    self.readConfig = readConfig
  }

  /// The signals that end the service; each is an orderly shutdown (state saved, exit 0).
  /// SIGHUP reloads the config instead (`ConfigReload`). The caller watches SIGQUIT
  /// (`Signals.watch`) so that it reaches the loop rather than the runtime's crash reporter.
  public static let stopSignals: [Int32] = [SIGTERM, SIGINT, SIGQUIT]

  /// Serves until SIGTERM, SIGINT or SIGQUIT and returns the exit code.
  public func serve(waiter: Waiter) -> Int32 {
    let clock = device.clock
    device.start()
    notify.ready()
    log.info("ready")
    var nextWatchdog = notify.watchdogInterval.map { clock.now + $0 }
    var lastStatus = ""
    var code = ExitCode.ok
    do {
      let signal = try EventLoop.serve(
        device, waiter: waiter,
        extraDeadline: { [self] in [nextWatchdog, pendingReload?.due].compactMap { $0 }.min() },
        sources: control.map { [$0] } ?? [],
        onSignal: { [self] signal in
          guard signal == SIGHUP else { return !Self.stopSignals.contains(signal) }
          hangUp()
          return true
        },
        onWake: { [self] _ in
          // A reload's second read, between the wake and the step that paints what it changed.
          reloadIfDue()
          return true
        },
        onStep: {
          let now = clock.now
          if let interval = notify.watchdogInterval, let due = nextWatchdog, now >= due {
            notify.watchdog()
            nextWatchdog = now + interval
          }
          if notify.enabled {
            var status = device.state.statusLine(at: now)
            if let control { status += "  " + control.summary }
            if status != lastStatus {
              notify.status(status)
              lastStatus = status
            }
          }
        })
      log.info("stopping on \(Signals.name(signal))")
    } catch {
      log.error("the event loop failed: \(error); stopping")
      code = ExitCode.failure
    }
    notify.stopping()
    control?.close()
    device.shutdown()
    return code
  }

  /// SIGHUP: reads the config now and again `settleTime` later, in the loop (a deadline, never a
  /// sleep); `reloadIfDue` applies it when both reads agree. Any number of SIGHUPs before then
  /// are this one reload (the second read sees what they announced).
  func hangUp() {
    guard let file = configFile else {
      log.notice("SIGHUP: no config file to reload; carrying on")
      return
    }
    guard pendingReload == nil else { return }
    guard let text = read(file) else { return }
    pendingReload = PendingReload(text: text, due: device.clock.now + Self.settleTime, reads: 1)
  }

  /// A reload under way: the text of the last read, and when to read it again.
  struct PendingReload {
    var text: String?
    var due: Instant
    var reads: Int
  }
  var pendingReload: PendingReload?
  /// How long apart the two reads of a reload are: an editor that truncates then writes
  /// (nano, `cat >`) has written the whole file by then.
  public static let settleTime: Nanoseconds = ms(200)
  /// A file still changing after this many reads (2 s) is not applied.
  public static let mostReads = 10

  /// Reads the config again when the reload's deadline has come: applies it when it reads as it
  /// did `settleTime` before; otherwise waits another `settleTime`, up to `mostReads` reads.
  func reloadIfDue() {
    guard let file = configFile, let pending = pendingReload, device.clock.now >= pending.due else { return }
    pendingReload = nil
    guard let text = read(file) else { return }
    if text == pending.text { return apply(text, file: file) }
    let waited = DurationText.format(Int64(pending.reads) * Self.settleTime)
    if pending.reads + 1 >= Self.mostReads {
      log.error(
        "\(file) was still changing \(waited) after SIGHUP (being written?); keeping the config it has "
          + "(send SIGHUP again once it is saved)")
      return
    }
    log.notice(
      "\(file) changed between two reads \(DurationText.format(Self.settleTime)) apart after SIGHUP (still being "
        + "written?); reading it again in \(DurationText.format(Self.settleTime)) before applying it")
    pendingReload = PendingReload(text: text, due: device.clock.now + Self.settleTime, reads: pending.reads + 1)
  }

  /// The file's text (nil inside: no such file); nil when it cannot be read, which is logged.
  func read(_ file: String) -> String?? {
    do {
      return .some(try readConfig(file))
    } catch {
      log.error("\(file):0: cannot read it on SIGHUP: \(error); still running on the config it had")
      return nil
    }
  }

  func apply(_ text: String?, file: String) {
    // The overlay read again too: a line taken out of it by hand (or the file deleted) is undone.
    let layers = device.readOverlay().map { device.layers.with(overlay: $0) } ?? device.layers
    switch ConfigReload.reload(text, file: file, running: device.config, layers: layers) {
    case .apply(let config, let changed, let waiting, let layers):
      device.reconfigure(config, layers: layers)
      let what =
        !changed.isEmpty
        ? "applied " + changed.joined(separator: ", ")
        : waiting.isEmpty ? "nothing changed" : "nothing to apply now"
      log.notice("reloaded \(file) on SIGHUP: \(what); the timer carries on")
      for message in waiting { log.warning(message) }
    case .kept(let reason):
      log.error(reason)
    }
  }
}
