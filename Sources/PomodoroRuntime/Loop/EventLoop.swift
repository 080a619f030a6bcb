import PomodoroCore
import PomodoroSystem

/// The one loop: step the device, then sleep until its next deadline or an input. The real
/// device and the interactive simulator use `serve` (real clock, poll); scripts use
/// `runVirtual` (virtual clock, jumping straight to each deadline).
public enum EventLoop {
  /// Serves until a terminating signal; returns it. `onSignal` sees each signal in the order
  /// they came (the SIGHUPs of one wake as one: `Signals.coalesced`) and says whether to carry on (SIGHUP's reload, SIGTSTP's stop); by default every
  /// signal ends the loop. `sources` (the control socket) are served in the same poll, before
  /// `onWake`. `onWake` sees keyboard input and the like; `onStep` runs after each step
  /// (watchdog, STATUS=).
  public static func serve(
    _ device: Device, waiter: Waiter, extraDeadline: () -> Instant? = { nil }, watching: [Int32] = [],
    sources: [LoopSource] = [], onSignal: (Int32) -> Bool = { _ in false }, onWake: (Wake) -> Bool = { _ in true },
    onStep: () -> Void = {}
  ) throws -> Int32 {
    while true {
      let (wake, stop) = try turn(
        device, waiter: waiter, extraDeadline: extraDeadline, watching: watching, sources: sources,
        onSignal: onSignal, onStep: onStep)
      if let stop { return stop }
      if !onWake(wake) { return 0 }
    }
  }

  /// One turn of the loop: step the device, sleep until its next deadline (or `extraDeadline`,
  /// asked after the step, or a source's) or an input; `onSignal` sees the wake's signals and may stop the turn (the
  /// signal is returned); else the sources have the wake. `serve` turns it until a signal ends
  /// it; a test turns it itself, with a waiter that does not sleep.
  public static func turn(
    _ device: Device, waiter: Waiter, extraDeadline: () -> Instant? = { nil }, watching: [Int32] = [],
    sources: [LoopSource] = [],
    onSignal: (Int32) -> Bool = { _ in true }, onStep: () -> Void = {}
  ) throws -> (wake: Wake, stop: Int32?) {
    device.step()
    onStep()
    let deadline = ([device.nextDeadline, extraDeadline()] + sources.map(\.deadline)).compactMap { $0 }.min()
    // The input lines only while they work: a line that failed may stay readable (an error
    // condition) and would wake the loop at once, forever.
    // The save writer's pipe while a thread writes a save: its end wakes the loop.
    let reads =
      [device.inputDescriptor, device.saveDescriptor].compactMap { $0 } + watching + sources.flatMap(\.readDescriptors)
    let writes = sources.flatMap(\.writeDescriptors)
    let wake = try waiter.wait(until: deadline, watching: reads, writable: writes)
    for signal in Signals.coalesced(wake.signals) where !onSignal(signal) { return (wake, signal) }
    for source in sources { source.handle(wake) }
    return (wake, nil)
  }

  /// Runs on a virtual clock up to `end`, as fast as the CPU allows: every deadline the device
  /// asks for is visited exactly, nothing in between. `stop` is asked after every step (a
  /// signal, a closed output); returns false when it said stop, true at `end`.
  @discardableResult
  public static func runVirtual(
    _ device: Device, clock: AdvanceableClock, until end: Instant, stop: () -> Bool = { false }
  ) -> Bool {
    device.step()
    if stop() { return false }
    guard runDeadlines(device, clock: clock, through: end, stop: stop) else { return false }
    if clock.now < end {
      clock.advance(to: end)
      device.step()
      if stop() { return false }
    }
    return true
  }

  /// Visits every deadline up to `limit` and steps at each, without the step at `limit` that
  /// `runVirtual` ends with: a caller that schedules more input edges from just after `limit`
  /// (a long turn fed in chunks) sees exactly the steps one long run would. Returns false when
  /// `stop` said stop.
  public static func runDeadlines(
    _ device: Device, clock: AdvanceableClock, through limit: Instant, stop: () -> Bool = { false }
  ) -> Bool {
    while let deadline = device.nextDeadline, deadline <= limit {
      // A deadline that did not move after a step would spin: step past it by a nanosecond.
      clock.advance(to: deadline > clock.now ? deadline : clock.now + 1)
      device.step()
      if stop() { return false }
    }
    return true
  }
}
