import PomodoroCore
import PomodoroSystem

/// The loop's sleep on a virtual clock: jumps straight to the deadline (or to a scripted
/// signal), so a test runs the very loop the device runs, minutes of device time in
/// milliseconds.
public final class VirtualWaiter: Waiter {
  public struct NothingWillHappen: Error {}

  let clock: AdvanceableClock
  var signals: [(Instant, Int32)]

  /// `signals`: (instant, signal number) to deliver, e.g. SIGTERM at 30 s.
  public init(clock: AdvanceableClock, signals: [(Instant, Int32)] = []) {
    self.clock = clock
    self.signals = signals.sorted { $0.0 < $1.0 }
  }

  public func wait(until deadline: Instant?, watching extra: [Int32]) throws -> Wake {
    let nextSignal = signals.first?.0
    guard let target = [deadline, nextSignal].compactMap({ $0 }).min() else { throw NothingWillHappen() }
    clock.advance(to: target)
    var wake = Wake()
    while let (at, signal) = signals.first, at <= clock.now {
      wake.signals.append(signal)
      signals.removeFirst()
    }
    return wake
  }
}
