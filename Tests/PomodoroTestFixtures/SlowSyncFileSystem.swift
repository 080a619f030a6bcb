import PomodoroCore
import PomodoroSystem

/// The real file system on a slow card: every fsync (of a file or a directory) takes `delay`
/// longer, as an SD card's 10-20 ms do, for the bench that measures the device under a burst of
/// commands. The delay blocks as the card would; it stands for the disk, not for the device's
/// own waiting (which is never a sleep).
public final class SlowSyncFileSystem: FileSystem {
  package let inner: FileSystem
  public let delay: Nanoseconds
  /// fsyncs so far.
  public private(set) var syncs = 0

  public init(delay: Nanoseconds, inner: FileSystem = PosixFileSystem.shared) {
    self.delay = delay
    self.inner = inner
  }

  package func slow() {
    syncs += 1
    guard delay > 0 else { return }
    var span = timespec(tv_sec: Int(delay / nanosecondsPerSecond), tv_nsec: Int(delay % nanosecondsPerSecond))
    var left = timespec()
    while nanosleep(&span, &left) != 0 && currentErrno() == EINTR { span = left }
  }

  public func createExclusive(_ path: String, permissions: UInt32) throws -> Int32 {
    try inner.createExclusive(path, permissions: permissions)
  }
  public func openForAppend(_ path: String, permissions: UInt32) throws -> (fd: Int32, created: Bool) {
    try inner.openForAppend(path, permissions: permissions)
  }
  public func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws -> Int { try inner.write(fd, bytes) }
  public func size(_ fd: Int32) throws -> Int64 { try inner.size(fd) }
  public func byte(_ fd: Int32, at offset: Int64) throws -> UInt8? { try inner.byte(fd, at: offset) }
  public func truncate(_ fd: Int32, to size: Int64) throws { try inner.truncate(fd, to: size) }
  public func sync(_ fd: Int32) throws {
    try inner.sync(fd)
    slow()
  }
  public func close(_ fd: Int32) { inner.close(fd) }
  public func rename(_ from: String, to: String) throws { try inner.rename(from, to: to) }
  public func remove(_ path: String) throws { try inner.remove(path) }
  public func syncDirectory(_ path: String) throws {
    try inner.syncDirectory(path)
    slow()
  }
  public func makeDirectory(_ path: String, permissions: UInt32) throws -> Bool {
    try inner.makeDirectory(path, permissions: permissions)
  }
  public func kind(_ path: String) throws -> FileKind? { try inner.kind(path) }
  public func read(_ path: String) throws -> [UInt8]? { try inner.read(path) }
  public func tail(_ path: String, count: Int) throws -> [UInt8]? { try inner.tail(path, count: count) }
  @discardableResult
  public func forEachLine(_ path: String, maxLine: Int, _ body: (Int, String?) throws -> Void) throws -> Bool {
    try inner.forEachLine(path, maxLine: maxLine, body)
  }
  @discardableResult
  public func forEachLine(_ path: String, from offset: Int64, maxLine: Int, _ body: (Int, String?) throws -> Void)
    throws -> Bool
  {
    try inner.forEachLine(path, from: offset, maxLine: maxLine, body)
  }
}
