import CPomodoroSystem

/// AF_UNIX stream sockets: the control socket's listener, its clients, and `pomodoro ctl`.
public enum UnixSocket {
  /// A failed socket call on `path`, with errno kept for the caller's advice.
  public struct Failure: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var what: String
    public var errno: Int32
    public var description: String { "\(what) \(path): \(String(cString: strerror(errno)))" }
  }

  static func streamSocket() -> Int32 {
    #if os(Linux)
      return socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      let fd = socket(AF_UNIX, SOCK_STREAM, 0)
      if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      return fd
    #endif
  }

  /// Calls `body` with the socket address of `path`.
  static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) throws -> T {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw Failure(path: path, what: "socket path too long (at most 107 bytes):", errno: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }

  /// A blocking connection to the socket at `path`.
  public static func connect(_ path: String) throws -> Int32 {
    let fd = streamSocket()
    guard fd >= 0 else { throw Failure(path: path, what: "cannot create a socket for", errno: currentErrno()) }
    let rc = try withAddress(path) { systemConnect(fd, $0, $1) }
    if rc != 0 {
      let e = currentErrno()
      close(fd)
      throw Failure(path: path, what: "cannot connect to", errno: e)
    }
    return fd
  }

  /// A non-blocking listening socket at `path`, mode `mode`, in group `group` when that group
  /// exists (a failure to change the group is returned as a warning). A stale socket file left
  /// by a killed process is replaced; one that still answers is an error.
  /// The user and group the device's service runs as, and the group its socket is given to.
  public static let serviceUser = "pomodoro"

  /// The user id of the process at the other end of the connected socket `fd`, or nil when the
  /// system cannot say.
  public static func peerUID(_ fd: Int32) -> uid_t? {
    var uid: UInt32 = 0
    return pomo_peer_uid(fd, &uid) == 0 ? uid_t(uid) : nil
  }

  public static func listen(_ path: String, mode: mode_t = 0o660, group: String? = serviceUser) throws -> (
    fd: Int32, warning: String?
  ) {
    if let probe = try? connect(path) {
      close(probe)
      throw Failure(path: path, what: "another process already serves", errno: EADDRINUSE)
    }
    var info = stat()
    if lstat(path, &info) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFSOCK else {
        throw Failure(path: path, what: "not a socket (refusing to replace it):", errno: EEXIST)
      }
      unlink(path)
    }
    let fd = streamSocket()
    guard fd >= 0 else { throw Failure(path: path, what: "cannot create a socket for", errno: currentErrno()) }
    setNonBlocking(fd)
    let bound = try withAddress(path) { bind(fd, $0, $1) }
    guard bound == 0 else {
      let e = currentErrno()
      close(fd)
      throw Failure(path: path, what: "cannot bind", errno: e)
    }
    chmod(path, mode)
    var warning: String?
    if let group, let entry = getgrnam(group), chown(path, uid_t.max, entry.pointee.gr_gid) != 0 {
      warning = "cannot give \(path) to the group \(group): \(String(cString: strerror(currentErrno())))"
    }
    guard systemListen(fd, 32) == 0 else {
      let e = currentErrno()
      close(fd)
      unlink(path)
      throw Failure(path: path, what: "cannot listen on", errno: e)
    }
    return (fd, warning)
  }

  public static func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }

  /// Writes all of `bytes` to a blocking descriptor; false on an error (EPIPE: the peer left).
  @discardableResult
  public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = retryingOnInterrupt {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, sendFlags) }
      }
      guard n >= 0 else { return false }
      offset += n
    }
    return true
  }

  /// MSG_NOSIGNAL where it exists: a peer that left is EPIPE, not a signal.
  public static var sendFlags: Int32 {
    #if os(Linux)
      return Int32(MSG_NOSIGNAL)
    #else
      return 0
    #endif
  }
}

private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
  connect(fd, address, length)
}

private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }

/// Splits a byte stream into lines, refusing lines longer than `limit` (the rest of such a
/// line, up to its newline, is skipped).
public struct LineBuffer {
  public enum Item: Equatable {
    case line(String)
    case tooLong
  }

  let limit: Int
  var pending: [UInt8] = []
  var skipping = false

  public init(limit: Int) { self.limit = limit }

  public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Item] {
    var items: [Item] = []
    for b in bytes {
      if b == 0x0A {
        if skipping {
          skipping = false
        } else {
          if pending.last == 0x0D { pending.removeLast() }
          items.append(.line(String(decoding: pending, as: UTF8.self)))
        }
        pending.removeAll(keepingCapacity: true)
      } else if !skipping {
        pending.append(b)
        if pending.count > limit {
          items.append(.tooLong)
          pending.removeAll(keepingCapacity: true)
          skipping = true
        }
      }
    }
    return items
  }

  /// The unterminated rest at end of input, as a last line (nil when none).
  public mutating func finish() -> String? {
    defer { pending.removeAll() }
    return pending.isEmpty || skipping ? nil : String(decoding: pending, as: UTF8.self)
  }
}
