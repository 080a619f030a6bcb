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

  /// Replaces `path` atomically: write a temporary file beside it (created with O_EXCL and
  /// O_NOFOLLOW, so a planted link or file is never written through), fsync it, rename it over
  /// `path`, fsync the directory. A power cut leaves either the old file or the new one. A path
  /// that holds anything but a regular file (a symbolic link, a directory) is refused.
  public static func writeAtomically(
    _ path: String, _ bytes: [UInt8], permissions: UInt32 = 0o644, in fs: FileSystem = PosixFileSystem.shared
  ) throws {
    if let kind = try fs.kind(path), kind != .regular {
      if kind == .symbolicLink { throw SystemError("\(path) is a symbolic link; refusing to replace it", errno: ELOOP) }
      throw NotARegularFile(path: path)
    }
    let temporary = path + ".tmp"
    let fd = try createTemporary(temporary, permissions: permissions, in: fs)
    do {
      try writeAll(fd, bytes, path: temporary, in: fs)
      try annotate("cannot sync \(temporary)") { try fs.sync(fd) }
    } catch {
      fs.close(fd)
      try? fs.remove(temporary)
      throw error
    }
    fs.close(fd)
    do {
      try fs.rename(temporary, to: path)
    } catch {
      try? fs.remove(temporary)
      throw error
    }
    try fs.syncDirectory(directory(of: path))
  }

  /// A leftover temporary (from a power cut, or planted) is removed, never opened: unlink takes
  /// away a link, not what it points to. Gives up after a few rounds if something keeps
  /// putting one back.
  static func createTemporary(_ temporary: String, permissions: UInt32, in fs: FileSystem) throws -> Int32 {
    var attempt = 0
    while true {
      do {
        return try fs.createExclusive(temporary, permissions: permissions)
      } catch let error as SystemError where error.errno == EEXIST && attempt < 3 {
        attempt += 1
        try fs.remove(temporary)
      }
    }
  }

  /// Appends one line and fsyncs (and, for a new file, its directory), so that a record that
  /// was reported written survives a power cut. If the file ends in a torn line (a power cut
  /// mid-write), the new line starts on a line of its own. If the write or the sync fails (a
  /// full disk), the file is cut back to its old size, so no torn line is left behind; the
  /// caller keeps the record. A symbolic link or anything but a regular file is refused.
  public static func appendLine(_ path: String, _ line: String, in fs: FileSystem = PosixFileSystem.shared) throws {
    let (fd, created) = try fs.openForAppend(path, permissions: 0o644)
    defer { fs.close(fd) }
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    let size = try annotate("cannot read \(path)") { try fs.size(fd) }
    if size > 0, let last = try? fs.byte(fd, at: size - 1), last != 0x0A { bytes.insert(0x0A, at: 0) }
    do {
      try writeAll(fd, bytes, path: path, in: fs)
      try annotate("cannot sync \(path)") { try fs.sync(fd) }
      if created { try fs.syncDirectory(directory(of: path)) }
    } catch {
      try? fs.truncate(fd, to: size)
      try? fs.sync(fd)
      throw error
    }
  }

  /// Creates a directory and its parents (mode 0700: the state is nobody else's business);
  /// fine if it exists.
  public static func makeDirectories(
    _ path: String, permissions: UInt32 = 0o700, in fs: FileSystem = PosixFileSystem.shared
  ) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      current += "/" + part
      _ = try fs.makeDirectory(current, permissions: permissions)
    }
  }

  public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String, in fs: FileSystem) throws {
    var offset = 0
    while offset < bytes.count {
      let n = try annotate("cannot write \(path)") { try fs.write(fd, bytes[offset...]) }
      guard n > 0 else { throw SystemError("cannot write \(path)", errno: ENOSPC) }
      offset += n
    }
  }

  /// The directory holding `path` ("." for a bare name).
  public static func directory(of path: String) -> String {
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return directory.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : directory
  }

  /// Puts the path into a bare system call's error.
  static func annotate<T>(_ what: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as SystemError { throw SystemError(what, errno: error.errno) }
  }
}
