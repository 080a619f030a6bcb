import PomodoroCore

/// Descriptors the loop serves besides the device's own: the control socket's listener and
/// clients. Asked before every sleep; told what woke the loop.
public protocol LoopSource: AnyObject {
  /// Descriptors to wake on when readable.
  var readDescriptors: [Int32] { get }
  /// Descriptors to wake on when writable (those with bytes waiting to go out).
  var writeDescriptors: [Int32] { get }
  /// Acts on what the wake found readable or writable; must never block.
  func handle(_ wake: Wake)
}

/// The one loop: step the device, then sleep until its next deadline or an input. The real
/// device and the interactive simulator use `serve` (real clock, poll); scripts use
/// `runVirtual` (virtual clock, jumping straight to each deadline).
public enum EventLoop {
  /// Serves until a terminating signal; returns it. `onWake` sees keyboard input and the like;
  /// `onStep` runs after each step (watchdog, STATUS=). `sources` (the control socket) are
  /// served in the same poll, before `onWake`.
  public static func serve(
    _ device: Device, waiter: Waiter, extraDeadline: () -> Instant? = { nil }, watching: [Int32] = [],
    sources: [LoopSource] = [], onWake: (Wake) -> Bool = { _ in true }, onStep: () -> Void = {}
  ) throws -> Int32 {
    while true {
      device.step()
      onStep()
      let deadline = [device.nextDeadline, extraDeadline()].compactMap { $0 }.min()
      let reads = watching + sources.flatMap(\.readDescriptors)
      let writes = sources.flatMap(\.writeDescriptors)
      let wake = try waiter.wait(until: deadline, watching: reads, writable: writes)
      if let signal = wake.signals.first { return signal }
      for source in sources { source.handle(wake) }
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
