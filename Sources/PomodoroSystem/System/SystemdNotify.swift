import PomodoroCore

/// systemd's notify protocol, spoken to $NOTIFY_SOCKET directly (a datagram per message):
/// READY=1, WATCHDOG=1, STOPPING=1, STATUS=... Silent when not started by systemd.
public final class SystemdNotify {
  private let socketPath: String?
  private var fd: Int32 = -1
  /// How often the loop must send WATCHDOG=1: half of WATCHDOG_USEC, or nil when off.
  public let watchdogInterval: Nanoseconds?

  public init(environment: [String: String]) {
    socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    if let usec = environment["WATCHDOG_USEC"].flatMap({ Int64($0) }), usec > 0,
      environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true
    {
      watchdogInterval = microseconds(usec) / 2
    } else {
      watchdogInterval = nil
    }
  }

  public var enabled: Bool { socketPath != nil }

  public func ready() { send("READY=1") }
  public func watchdog() { send("WATCHDOG=1") }
  public func stopping() { send("STOPPING=1") }
  public func status(_ text: String) { send("STATUS=" + text) }

  /// Sends one datagram; returns false when it could not be sent (logged by the caller).
  @discardableResult
  public func send(_ message: String) -> Bool {
    guard var path = socketPath else { return false }
    if fd < 0 {
      #if os(Linux)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      #else
        fd = socket(AF_UNIX, SOCK_DGRAM, 0)
      #endif
      if fd < 0 { return false }
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let abstract = path.hasPrefix("@")
    if abstract { path.removeFirst() }
    var bytes = Array(path.utf8)
    if abstract { bytes.insert(0, at: 0) }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    let payload = Array(message.utf8)
    let sent = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, length) }
      }
    }
    return sent == payload.count
  }

  deinit { if fd >= 0 { close(fd) } }
}
