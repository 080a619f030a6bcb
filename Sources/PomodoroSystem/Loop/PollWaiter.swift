import CPomodoroSystem
import PomodoroCore

/// What woke the loop.
public struct Wake: Equatable, Sendable {
  /// Signals received (SIGINT, SIGTERM, SIGHUP), in order.
  public var signals: [Int32] = []
  /// Extra descriptors that became readable (the simulator's keyboard).
  public var readable: [Int32] = []
  /// Descriptors watched for writing that became writable (or hung up).
  public var writable: [Int32] = []

  public init(signals: [Int32] = [], readable: [Int32] = [], writable: [Int32] = []) {
    self.signals = signals
    self.readable = readable
    self.writable = writable
  }
}

/// What the loop sleeps in between steps.
public protocol Waiter: AnyObject {
  /// Returns when an input is pending, a signal arrived, an extra descriptor is readable, or
  /// the clock reached `deadline` (nil: no deadline).
  func wait(until deadline: Instant?, watching extra: [Int32]) throws -> Wake
  /// As `wait(until:watching:)`, also returning when one of `writable` can take bytes.
  func wait(until deadline: Instant?, watching extra: [Int32], writable: [Int32]) throws -> Wake
}

extension Waiter {
  /// Waiters that never watch for writing (a virtual clock) ignore `writable`.
  public func wait(until deadline: Instant?, watching extra: [Int32], writable: [Int32]) throws -> Wake {
    try wait(until: deadline, watching: extra)
  }
}

/// Blocks in poll(2) until a signal arrives, a watched descriptor (the input lines' while they
/// work, the keyboard, the control socket) is readable, or the monotonic clock reaches the
/// deadline: a timerfd on CLOCK_MONOTONIC armed to the absolute instant (on systems without
/// timerfd, poll's own timeout). No busy polling: with no deadline it sleeps until something
/// happens.
public final class PollWaiter: Waiter {
  let clock: MonotonicClock
  let timer: Int32
  let signals: Int32
  var armed: Instant?

  /// `catchingSignals`: SIGINT, SIGTERM and SIGHUP wake the wait (and no longer end the
  /// process by themselves); a short-lived client (ctl) leaves them at their default.
  public init(clock: MonotonicClock, catchingSignals: Bool = true) throws {
    self.clock = clock
    timer = pomo_timer_create()
    signals = catchingSignals ? pomo_signal_pipe() : -1
    guard signals >= 0 || !catchingSignals else { throw SystemError("cannot install signal handlers") }
  }

  deinit { if timer >= 0 { close(timer) } }

  public func wait(until deadline: Instant?, watching extra: [Int32]) throws -> Wake {
    try wait(until: deadline, watching: extra, writable: [])
  }

  public func wait(until deadline: Instant?, watching extra: [Int32], writable: [Int32]) throws -> Wake {
    var fds: [pollfd] = []
    func watch(_ fd: Int32) { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
    if signals >= 0 { watch(signals) }
    extra.forEach(watch)
    let writableRange = fds.count..<(fds.count + writable.count)
    for fd in writable { fds.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)) }
    var timeout: Int32 = -1
    if timer >= 0 {
      if deadline != armed {
        pomo_timer_set(timer, deadline.map { max(1, $0.nanoseconds) } ?? 0)
        armed = deadline
      }
      watch(timer)
    } else if let deadline {
      let left = deadline - clock.now
      timeout = left <= 0 ? 0 : Int32(min(Int64(Int32.max), wholeMillisecondsRoundedUp(left)))
    }
    if let deadline, deadline <= clock.now { timeout = 0 }
    let n = poll(&fds, nfds_t(fds.count), timeout)
    if n < 0 && currentErrno() != EINTR { throw SystemError("poll failed") }
    var wake = Wake()
    while signals >= 0, case let signo = pomo_signal_next(signals), signo > 0 { wake.signals.append(Int32(signo)) }
    if timer >= 0 && pomo_timer_clear(timer) == 1 { armed = nil }
    for (i, fd) in fds.enumerated() where fd.revents != 0 {
      if writableRange.contains(i) {
        wake.writable.append(fd.fd)
      } else if extra.contains(fd.fd) {
        wake.readable.append(fd.fd)
      }
    }
    return wake
  }
}
