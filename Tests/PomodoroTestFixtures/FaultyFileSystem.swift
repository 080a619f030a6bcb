import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem

/// An in-memory file system that fails on demand and can show what a power cut at any step
/// would leave, for the storage tests and the soak (as embedded-hal-mock injects bus errors).
///
/// The power-cut model: what was fsynced survives; data written but not fsynced may be lost,
/// kept, or kept up to any byte; a name created, renamed or removed survives only after an
/// fsync of its directory, and may or may not survive before that. `crashImage(seed:)` picks
/// among those outcomes with a seeded generator, so each seed is one reproducible worst case.
/// Faults: `fault` fails every write-side call with ENOSPC, EIO or EROFS; `capacity` is a disk
/// that fills up (a write gets what fits, then ENOSPC), as a real one does.
public final class FaultyFileSystem: FileSystem {
  public enum Fault: Sendable, Equatable {
    case noSpace
    case ioError
    case readOnly

    package var errno: Int32 {
      switch self {
      case .noSpace: return ENOSPC
      case .ioError: return EIO
      case .readOnly: return EROFS
      }
    }
  }

  package final class Inode {
    package var data: [UInt8]
    package var durable: [UInt8]
    package init(data: [UInt8] = [], durable: [UInt8] = []) {
      self.data = data
      self.durable = durable
    }
  }

  package var names: [String: Inode] = [:]
  package var durableNames: [String: Inode] = [:]
  package var directories: Set<String> = ["/", "."]
  package var open: [Int32: Inode] = [:]
  package var nextFD: Int32 = 3

  /// While set, every call that would change the disk fails with this fault's errno.
  public var fault: Fault?
  /// The disk's size in bytes (file data only); nil: unlimited.
  public var capacity: Int?
  /// Calls that changed (or tried to change) the disk so far: create, open, write, truncate,
  /// fsync, rename, unlink, directory fsync, mkdir.
  public private(set) var steps = 0
  /// Called after every step, with the step's number: where a test takes `crashImage`.
  public var onStep: ((Int) -> Void)?
  /// Write-side calls that failed because of `fault` or `capacity`.
  public private(set) var faultsInjected = 0

  public init() {}

  /// Bytes held by the files that exist or are open.
  public var used: Int {
    var seen = Set<ObjectIdentifier>()
    var total = 0
    for inode in Array(names.values) + Array(open.values) where seen.insert(ObjectIdentifier(inode)).inserted {
      total += inode.data.count
    }
    return total
  }

  /// The files as a program would read them now, by path.
  public var files: [String: [UInt8]] { names.mapValues { $0.data } }

  /// Puts a file in place as if it had always been there (durable).
  public func install(_ path: String, _ bytes: [UInt8]) {
    let inode = Inode(data: bytes, durable: bytes)
    names[path] = inode
    durableNames[path] = inode
  }

  /// What the disk holds after a power cut now, and the machine restarts: one worst case of
  /// the model above, chosen by `seed`. Everything in the image is durable.
  public func crashImage(seed: UInt64) -> FaultyFileSystem {
    var rng = SplitMix64(seed: seed)
    let image = FaultyFileSystem()
    image.directories = directories
    var chosen: [ObjectIdentifier: [UInt8]] = [:]
    for path in Set(names.keys).union(durableNames.keys).sorted() {
      let now = names[path]
      let before = durableNames[path]
      let survivor: Inode?
      if now === before { survivor = now } else { survivor = rng.next() % 2 == 0 ? before : now }
      guard let inode = survivor else { continue }
      let bytes: [UInt8]
      if let done = chosen[ObjectIdentifier(inode)] {
        bytes = done
      } else {
        bytes = Self.survivingBytes(inode, &rng)
        chosen[ObjectIdentifier(inode)] = bytes
      }
      image.install(path, bytes)
    }
    return image
  }

  /// Unsynced data: lost, kept, or kept up to some byte past what the durable and the current
  /// contents share.
  package static func survivingBytes(_ inode: Inode, _ rng: inout SplitMix64) -> [UInt8] {
    if inode.data == inode.durable { return inode.data }
    var common = 0
    while common < min(inode.data.count, inode.durable.count), inode.data[common] == inode.durable[common] {
      common += 1
    }
    switch rng.next() % 3 {
    case 0: return inode.durable
    case 1: return inode.data
    default:
      guard inode.data.count > common else { return inode.durable }
      let keep = common + Int(rng.next() % UInt64(inode.data.count - common))
      return Array(inode.data[0..<keep])
    }
  }

  // MARK: - FileSystem

  public func createExclusive(_ path: String, permissions: UInt32) throws -> Int32 {
    try step("cannot create \(path)")
    defer { stepped() }
    guard names[path] == nil else { throw SystemError("cannot create \(path)", errno: EEXIST) }
    try requireDirectory(of: path)
    let inode = Inode()
    names[path] = inode
    return descriptor(inode)
  }

  public func openForAppend(_ path: String, permissions: UInt32) throws -> (fd: Int32, created: Bool) {
    if let inode = names[path] {
      if fault == .readOnly { try step("cannot open \(path) for appending") }
      return (descriptor(inode), false)
    }
    try step("cannot open \(path) for appending")
    defer { stepped() }
    guard !directories.contains(path) else { throw NotARegularFile(path: path) }
    try requireDirectory(of: path)
    let inode = Inode()
    names[path] = inode
    return (descriptor(inode), true)
  }

  public func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws -> Int {
    let inode = try file(fd)
    try step("write")
    defer { stepped() }
    var n = bytes.count
    if let capacity {
      n = min(n, max(0, capacity - used))
      if n == 0 && !bytes.isEmpty {
        faultsInjected += 1
        throw SystemError("write", errno: ENOSPC)
      }
    }
    inode.data += bytes.prefix(n)
    return n
  }

  public func size(_ fd: Int32) throws -> Int64 { Int64(try file(fd).data.count) }

  public func byte(_ fd: Int32, at offset: Int64) throws -> UInt8? {
    let data = try file(fd).data
    return offset >= 0 && offset < data.count ? data[Int(offset)] : nil
  }

  public func truncate(_ fd: Int32, to size: Int64) throws {
    let inode = try file(fd)
    // Shrinking needs no space, so a full disk does not stop it.
    try step("truncate", failsWhenFull: false)
    defer { stepped() }
    let size = Int(size)
    if size < inode.data.count {
      inode.data.removeLast(inode.data.count - size)
    } else {
      inode.data += [UInt8](repeating: 0, count: size - inode.data.count)
    }
  }

  public func sync(_ fd: Int32) throws {
    let inode = try file(fd)
    try step("sync", failsWhenFull: false)
    defer { stepped() }
    inode.durable = inode.data
  }

  public func close(_ fd: Int32) { open[fd] = nil }

  public func rename(_ from: String, to: String) throws {
    try step("cannot rename \(from) to \(to)", failsWhenFull: false)
    defer { stepped() }
    guard let inode = names[from] else { throw SystemError("cannot rename \(from) to \(to)", errno: ENOENT) }
    guard !directories.contains(to) else { throw SystemError("cannot rename \(from) to \(to)", errno: EISDIR) }
    names[from] = nil
    names[to] = inode
  }

  public func remove(_ path: String) throws {
    try step("cannot remove \(path)", failsWhenFull: false)
    defer { stepped() }
    names[path] = nil
  }

  public func syncDirectory(_ path: String) throws {
    try step("cannot sync directory \(path)", failsWhenFull: false)
    defer { stepped() }
    guard directories.contains(path) else { throw SystemError("cannot open directory \(path)", errno: ENOENT) }
    for name in Set(names.keys).union(durableNames.keys) where Files.directory(of: name) == path {
      durableNames[name] = names[name]
    }
  }

  public func makeDirectory(_ path: String, permissions: UInt32) throws -> Bool {
    if directories.contains(path) { return false }
    try step("cannot create directory \(path)")
    defer { stepped() }
    guard names[path] == nil else { throw SystemError("cannot create directory \(path)", errno: EEXIST) }
    directories.insert(path)
    return true
  }

  public func kind(_ path: String) throws -> FileKind? {
    if directories.contains(path) { return .directory }
    return names[path] == nil ? nil : .regular
  }

  public func read(_ path: String) throws -> [UInt8]? {
    if directories.contains(path) { throw SystemError("cannot read \(path)", errno: EISDIR) }
    return names[path]?.data
  }

  // MARK: -

  /// Counts a step and fails it if a fault is on; the caller then does its work and calls
  /// `stepped()` (deferred), so `onStep` sees the disk after the step.
  package func step(_ what: String, failsWhenFull: Bool = true) throws {
    steps += 1
    if let fault, fault != .noSpace || failsWhenFull {
      faultsInjected += 1
      throw SystemError(what, errno: fault.errno)
    }
  }

  package func stepped() { onStep?(steps) }

  package func descriptor(_ inode: Inode) -> Int32 {
    let fd = nextFD
    nextFD += 1
    open[fd] = inode
    return fd
  }

  package func file(_ fd: Int32) throws -> Inode {
    guard let inode = open[fd] else { throw SystemError("fd \(fd)", errno: EBADF) }
    return inode
  }

  package func requireDirectory(of path: String) throws {
    guard directories.contains(Files.directory(of: path)) else {
      throw SystemError("cannot create \(path)", errno: ENOENT)
    }
  }
}
