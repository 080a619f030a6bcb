#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failed system call, with the path or thing it was about and errno's words.
public struct SystemError: Error, CustomStringConvertible, Equatable {
  public var what: String
  public var errno: Int32

  public init(_ what: String, errno: Int32 = currentErrno()) {
    self.what = what
    self.errno = errno
  }

  public var description: String { "\(what): \(String(cString: strerror(errno)))" }
}

@inline(__always) public func currentErrno() -> Int32 {
  #if canImport(Glibc)
    return Glibc.errno
  #else
    return Darwin.errno
  #endif
}

/// Small, careful file operations: whole-file reads, atomic replacement, durable appends.
public enum Files {
  /// The whole file as bytes, or nil when it does not exist.
  public static func read(_ path: String) throws -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if currentErrno() == ENOENT { return nil }
      throw SystemError("cannot open \(path)")
    }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if currentErrno() == EINTR { continue }
        throw SystemError("cannot read \(path)")
      }
      if n == 0 { break }
      out += buffer[0..<n]
    }
    return out
  }

  public static func readText(_ path: String) throws -> String? {
    guard let bytes = try read(path) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Replaces `path` atomically: write a temporary file, fsync it, rename it over `path`,
  /// fsync the directory. A power cut leaves either the old file or the new one.
  public static func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw SystemError("cannot create \(temporary)") }
    do {
      try writeAll(fd, bytes, path: temporary)
      guard fsync(fd) == 0 else { throw SystemError("cannot sync \(temporary)") }
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    guard rename(temporary, path) == 0 else { throw SystemError("cannot rename \(temporary) to \(path)") }
    syncDirectory(of: path)
  }

  /// Appends one line and fsyncs, so that a record that was reported written survives a power
  /// cut. If the file ends in a torn line (a power cut mid-write), the new line starts on a
  /// line of its own.
  public static func appendLine(_ path: String, _ line: String) throws {
    let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw SystemError("cannot open \(path) for appending") }
    defer { close(fd) }
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    let size = lseek(fd, 0, SEEK_END)
    if size > 0 {
      var last: UInt8 = 0
      if pread(fd, &last, 1, size - 1) == 1, last != 0x0A { bytes.insert(0x0A, at: 0) }
    }
    try writeAll(fd, bytes, path: path)
    guard fsync(fd) == 0 else { throw SystemError("cannot sync \(path)") }
  }

  /// Creates a directory and its parents (mode 0755); fine if it exists.
  public static func makeDirectories(_ path: String) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      current += "/" + part
      if mkdir(current, 0o755) != 0 && currentErrno() != EEXIST {
        throw SystemError("cannot create directory \(current)")
      }
    }
  }

  public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
      if n < 0 {
        if currentErrno() == EINTR { continue }
        throw SystemError("cannot write \(path)")
      }
      offset += n
    }
  }

  static func syncDirectory(of path: String) {
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    let fd = open(directory.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : directory, O_RDONLY | O_CLOEXEC)
    if fd >= 0 {
      fsync(fd)
      close(fd)
    }
  }
}
