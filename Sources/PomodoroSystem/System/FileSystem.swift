/// What a path names, as lstat(2) sees it (a symbolic link is not followed).
public enum FileKind: Equatable, Sendable {
  case regular
  case directory
  case symbolicLink
  case other
}

/// The system calls the state and history files are written with, one method a call, so that a
/// test can fail any of them (a full disk, an I/O error, a read-only file system) or cut the
/// power after any of them. `PosixFileSystem` is the real one; `FaultyFileSystem` (in
/// PomodoroSimulator) the fault-injecting twin. Errors are `SystemError`s carrying errno.
public protocol FileSystem: AnyObject {
  /// Creates `path` for writing; fails with EEXIST if anything is there, a symbolic link
  /// included (O_CREAT | O_EXCL | O_NOFOLLOW).
  func createExclusive(_ path: String, permissions: UInt32) throws -> Int32
  /// Opens `path` for appending without following a symbolic link, creating it if missing;
  /// `created` says whether it did. Refuses anything but a regular file.
  func openForAppend(_ path: String, permissions: UInt32) throws -> (fd: Int32, created: Bool)
  /// One write(2): may write fewer bytes than given.
  func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws -> Int
  func size(_ fd: Int32) throws -> Int64
  /// The byte at `offset`, nil past the end.
  func byte(_ fd: Int32, at offset: Int64) throws -> UInt8?
  func truncate(_ fd: Int32, to size: Int64) throws
  func sync(_ fd: Int32) throws
  func close(_ fd: Int32)
  func rename(_ from: String, to: String) throws
  /// unlink(2); a missing file is not an error.
  func remove(_ path: String) throws
  /// fsync of a directory, which makes the names created or renamed in it durable.
  func syncDirectory(_ path: String) throws
  /// mkdir(2); false when a directory was already there.
  func makeDirectory(_ path: String, permissions: UInt32) throws -> Bool
  /// lstat(2)'s file type; nil when nothing is there.
  func kind(_ path: String) throws -> FileKind?
  /// The whole file, or nil when it does not exist.
  func read(_ path: String) throws -> [UInt8]?
  /// The file's last `count` bytes (all of it when shorter), or nil when it does not exist:
  /// what recovery reads of a history of any size.
  func tail(_ path: String, count: Int) throws -> [UInt8]?
  /// The file's lines in order (see `Files.forEachLine`): each line's number and text, nil for
  /// one longer than `maxLine` bytes; false when there is no file.
  @discardableResult
  func forEachLine(_ path: String, maxLine: Int, _ body: (Int, String?) throws -> Void) throws -> Bool
  /// The file's lines from byte `offset` on (a line's start, as `forEachLineBackward` gives it),
  /// numbered from 1 there; false when there is no file.
  @discardableResult
  func forEachLine(_ path: String, from offset: Int64, maxLine: Int, _ body: (Int, String?) throws -> Void) throws
    -> Bool
  /// The file's lines from its last to its first (see `Files.forEachLineBackward`): each line's
  /// byte offset and text, nil for one longer than `maxLine` bytes, until `body` returns false;
  /// false when there is no file.
  @discardableResult
  func forEachLineBackward(_ path: String, maxLine: Int, _ body: (Int64, String?) throws -> Bool) throws -> Bool
}

extension FileSystem {
  public func readText(_ path: String) throws -> String? {
    try read(path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The tail of the whole file read at once (a test's in-memory file system; the real one
  /// reads only the tail).
  public func tail(_ path: String, count: Int) throws -> [UInt8]? {
    try read(path).map { Array($0.suffix(count)) }
  }

  /// Lines from the whole file read at once (a test's in-memory file system; the real one
  /// streams).
  @discardableResult
  public func forEachLine(_ path: String, maxLine: Int, _ body: (Int, String?) throws -> Void) throws -> Bool {
    guard let bytes = try read(path) else { return false }
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    for (index, var line) in lines.enumerated() {
      if line.last == 0x0D { line = line.dropLast() }
      try body(index + 1, line.count > maxLine ? nil : String(decoding: line, as: UTF8.self))
    }
    return true
  }

  /// Lines from `offset` of the whole file read at once (a test's in-memory file system; the
  /// real one seeks).
  @discardableResult
  public func forEachLine(_ path: String, from offset: Int64, maxLine: Int, _ body: (Int, String?) throws -> Void)
    throws -> Bool
  {
    guard let bytes = try read(path) else { return false }
    var splitter = Files.LineSplitter(maxLine: maxLine)
    try splitter.feed(bytes[min(bytes.count, Int(max(0, offset)))...], body)
    try splitter.finish(body)
    return true
  }

  /// Lines from the end of the whole file read at once (a test's in-memory file system; the
  /// real one reads from the end only).
  @discardableResult
  public func forEachLineBackward(_ path: String, maxLine: Int, _ body: (Int64, String?) throws -> Bool) throws -> Bool
  {
    guard let bytes = try read(path) else { return false }
    var splitter = Files.BackwardLineSplitter(maxLine: maxLine, size: Int64(bytes.count))
    if try splitter.feed(bytes[...], body) { try splitter.finish(body) }
    return true
  }
}

/// The real file system.
public final class PosixFileSystem: FileSystem, Sendable {
  public static let shared = PosixFileSystem()

  public init() {}

  public func createExclusive(_ path: String, permissions: UInt32) throws -> Int32 {
    let fd = retryingOnInterrupt {
      open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
    }
    guard fd >= 0 else { throw SystemError("cannot create \(path)") }
    return fd
  }

  public func openForAppend(_ path: String, permissions: UInt32) throws -> (fd: Int32, created: Bool) {
    // O_NONBLOCK: a FIFO or a device planted at the path must not hang the open before it is refused.
    let flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
    var created = false
    var fd = retryingOnInterrupt { open(path, flags) }
    if fd < 0 && currentErrno() == ENOENT {
      fd = retryingOnInterrupt { open(path, flags | O_CREAT | O_EXCL, mode_t(permissions)) }
      created = fd >= 0
    }
    guard fd >= 0 else {
      if currentErrno() == ELOOP { throw SystemError("\(path) is a symbolic link; refusing to write through it") }
      throw SystemError("cannot open \(path) for appending")
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let e = currentErrno()
      _ = systemClose(fd)
      throw SystemError("cannot stat \(path)", errno: e)
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      _ = systemClose(fd)
      throw NotARegularFile(path: path)
    }
    return (fd, created)
  }

  public func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws -> Int {
    let n = retryingOnInterrupt { bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) } }
    guard n >= 0 else { throw SystemError("write") }
    return n
  }

  public func size(_ fd: Int32) throws -> Int64 {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError("fstat") }
    return Int64(info.st_size)
  }

  public func byte(_ fd: Int32, at offset: Int64) throws -> UInt8? {
    var b: UInt8 = 0
    let n = retryingOnInterrupt { pread(fd, &b, 1, off_t(offset)) }
    guard n >= 0 else { throw SystemError("read") }
    return n == 1 ? b : nil
  }

  public func truncate(_ fd: Int32, to size: Int64) throws {
    guard retryingOnInterrupt({ ftruncate(fd, off_t(size)) }) == 0 else { throw SystemError("truncate") }
  }

  public func sync(_ fd: Int32) throws {
    guard retryingOnInterrupt({ fsync(fd) }) == 0 else { throw SystemError("sync") }
  }

  public func close(_ fd: Int32) { _ = systemClose(fd) }

  public func rename(_ from: String, to: String) throws {
    guard systemRename(from, to) == 0 else { throw SystemError("cannot rename \(from) to \(to)") }
  }

  public func remove(_ path: String) throws {
    guard unlink(path) == 0 || currentErrno() == ENOENT else { throw SystemError("cannot remove \(path)") }
  }

  public func syncDirectory(_ path: String) throws {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard fd >= 0 else { throw SystemError("cannot open directory \(path)") }
    defer { _ = systemClose(fd) }
    guard retryingOnInterrupt({ fsync(fd) }) == 0 else { throw SystemError("cannot sync directory \(path)") }
  }

  public func makeDirectory(_ path: String, permissions: UInt32) throws -> Bool {
    if mkdir(path, mode_t(permissions)) == 0 { return true }
    let e = currentErrno()
    if e == EEXIST, try kind(path) == .directory { return false }
    throw SystemError("cannot create directory \(path)", errno: e)
  }

  public func kind(_ path: String) throws -> FileKind? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if currentErrno() == ENOENT { return nil }
      throw SystemError("cannot stat \(path)")
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regular
    case S_IFDIR: return .directory
    case S_IFLNK: return .symbolicLink
    default: return .other
    }
  }

  public func read(_ path: String) throws -> [UInt8]? { try Files.read(path) }

  public func tail(_ path: String, count: Int) throws -> [UInt8]? { try Files.tail(path, count: count) }

  @discardableResult
  public func forEachLine(_ path: String, maxLine: Int, _ body: (Int, String?) throws -> Void) throws -> Bool {
    try Files.forEachLine(path, maxLine: maxLine, body)
  }

  @discardableResult
  public func forEachLine(_ path: String, from offset: Int64, maxLine: Int, _ body: (Int, String?) throws -> Void)
    throws -> Bool
  {
    try Files.forEachLine(path, from: offset, maxLine: maxLine, body)
  }

  @discardableResult
  public func forEachLineBackward(_ path: String, maxLine: Int, _ body: (Int64, String?) throws -> Bool) throws -> Bool
  {
    try Files.forEachLineBackward(path, maxLine: maxLine, body)
  }

}

/// A state or history path that holds something other than a regular file (a directory, a
/// FIFO, a device): refused rather than written through.
public struct NotARegularFile: Error, CustomStringConvertible, Equatable {
  public var path: String
  public init(path: String) { self.path = path }
  public var description: String { "\(path) is not a regular file; refusing to write it (move it away)" }
}
