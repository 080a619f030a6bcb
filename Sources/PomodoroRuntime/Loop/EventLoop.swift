import PomodoroCore

/// The one loop: step the device, then sleep until its next deadline or an input. The real
/// device and the interactive simulator use `serve` (real clock, poll); scripts use
/// `runVirtual` (virtual clock, jumping straight to each deadline).
public enum EventLoop {
  /// Serves until a terminating signal; returns it. `onWake` sees keyboard input and the like;
  /// `onStep` runs after each step (watchdog, STATUS=).
  public static func serve(
    _ device: Device, waiter: Waiter, extraDeadline: () -> Instant? = { nil }, watching: [Int32] = [],
    onWake: (Wake) -> Bool = { _ in true }, onStep: () -> Void = {}
  ) throws -> Int32 {
    while true {
      device.step()
      onStep()
      let deadline = [device.nextDeadline, extraDeadline()].compactMap { $0 }.min()
      let wake = try waiter.wait(until: deadline, watching: watching)
      if let signal = wake.signals.first { return signal }
      if !onWake(wake) { return 0 }
    }
  }

  /// Runs on a virtual clock up to `end`, as fast as the CPU allows: every deadline the device
  /// asks for is visited exactly, nothing in between.
  public static func runVirtual(_ device: Device, clock: AdvanceableClock, until end: Instant) {
    device.step()
    while let deadline = device.nextDeadline, deadline <= end {
      // A deadline that did not move after a step would spin: step past it by a nanosecond.
      clock.advance(to: deadline > clock.now ? deadline : clock.now + 1)
      device.step()
    }
    if clock.now < end {
      clock.advance(to: end)
      device.step()
    }
  }
}
