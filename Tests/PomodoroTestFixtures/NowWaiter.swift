import PomodoroCore
import PomodoroSystem

/// A waiter that never sleeps: one poll(2) with timeout 0 over what the loop watches. Tests turn
/// a loop themselves with it (as the MQTT tests turn theirs), and the bench's serving thread,
/// which has polled already; the device never ships it.
public final class NowWaiter: Waiter {
  public init() {}

  public func wait(until deadline: Instant?, watching extra: [Int32]) throws -> Wake {
    try wait(until: deadline, watching: extra, writable: [])
  }

  public func wait(until deadline: Instant?, watching extra: [Int32], writable: [Int32]) throws -> Wake {
    var fds =
      extra.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      + writable.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
    var wake = Wake()
    guard !fds.isEmpty, poll(&fds, nfds_t(fds.count), 0) > 0 else { return wake }
    for (i, p) in fds.enumerated() where p.revents != 0 {
      if i < extra.count { wake.readable.append(p.fd) } else { wake.writable.append(p.fd) }
    }
    return wake
  }
}
