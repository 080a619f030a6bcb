import PomodoroCore

/// The device as a service: the loop until a terminating signal, with systemd's notify
/// protocol (READY=1 after the first frame, WATCHDOG=1 at half of WATCHDOG_USEC, STATUS= with
/// the phase and time left, STOPPING=1), then an orderly shutdown.
public final class DeviceService {
  let device: Device
  let notify: SystemdNotify
  let log: Log
  /// The control socket, served in the same loop; its counts join STATUS=.
  public var control: ControlServer?

  public init(device: Device, notify: SystemdNotify, log: Log) {
    self.device = device
    self.notify = notify
    self.log = log
  }

  /// Serves until SIGTERM/SIGINT/SIGHUP and returns the exit code.
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
        device, waiter: waiter, extraDeadline: { nextWatchdog }, sources: control.map { [$0] } ?? [],
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
      log.info("stopping on signal \(signal)")
    } catch {
      log.error("the event loop failed: \(error); stopping")
      code = ExitCode.failure
    }
    notify.stopping()
    control?.close()
    device.shutdown()
    return code
  }
}
