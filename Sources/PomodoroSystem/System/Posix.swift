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

/// Small, careful file operations: whole-file reads, atomic replacement, durable appends.
public enum Files {
  /// What `read` refuses: a path that is not a regular file (a FIFO would block, /dev/zero
  /// never ends), or a file larger than the reader's cap.
  public struct ReadError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problem: Problem
    public enum Problem: Equatable, Sendable {
      case notRegular(kind: String)
      case tooLarge(limit: Int)
    }

    public var description: String {
      switch problem {
      case .notRegular(let kind): return "\(path) is \(kind), not a regular file; give the path of a file"
      case .tooLarge(let limit): return "\(path) is larger than \(sizeText(limit)); is it the right file?"
      }
    }
  }

  /// The largest config or script `readText` reads by default.
  public static let textLimit = 1 << 20

  static func sizeText(_ n: Int) -> String { n % (1 << 20) == 0 ? "\(n >> 20) MiB" : "\(n) bytes" }

  /// Opens `path` for reading if it is a regular file; nil when it does not exist. O_NONBLOCK:
  /// opening a FIFO must not wait for a writer; O_NOCTTY: a terminal never becomes ours.
  static func openRegular(_ path: String) throws -> Int32? {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    if fd < 0 {
      if currentErrno() == ENOENT { return nil }
      throw SystemError("cannot open \(path)")
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let error = SystemError("cannot stat \(path)")
      close(fd)
      throw error
    }
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG else {
      close(fd)
      let kind: String
      switch type {
      case S_IFDIR: kind = "a directory"
      case S_IFIFO: kind = "a FIFO"
      case S_IFCHR: kind = "a character device"
      case S_IFBLK: kind = "a block device"
      case S_IFSOCK: kind = "a socket"
      default: kind = "a special file"
      }
      throw ReadError(path: path, problem: .notRegular(kind: kind))
    }
    return fd
  }

  /// Reads up to `buffer.count` bytes, retrying on EINTR.
  static func readSome(_ fd: Int32, _ buffer: inout [UInt8], path: String) throws -> Int {
    let n = retryingOnInterrupt { buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) } }
    guard n >= 0 else { throw SystemError("cannot read \(path)") }
    return n
  }

  /// The whole file as bytes, or nil when it does not exist. Only a regular file of at most
  /// `limit` bytes is read; anything else is a `ReadError`.
  public static func read(_ path: String, limit: Int = textLimit) throws -> [UInt8]? {
    guard let fd = try openRegular(path) else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = try readSome(fd, &buffer, path: path)
      if n == 0 { break }
      guard out.count + n <= limit else { throw ReadError(path: path, problem: .tooLarge(limit: limit)) }
      out += buffer[0..<n]
    }
    return out
  }

  /// The last `count` bytes of a regular file (all of it when shorter), read from the end
  /// whatever the file's size (a sparse 1 GiB history costs `count` bytes), or nil when it does
  /// not exist.
  public static func tail(_ path: String, count: Int) throws -> [UInt8]? {
    guard let fd = try openRegular(path) else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError("cannot stat \(path)") }
    var offset = max(0, Int64(info.st_size) - Int64(count))
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: min(max(count, 1), 65536))
    while out.count < count {
      let n = retryingOnInterrupt {
        buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, count - out.count), off_t(offset)) }
      }
      guard n >= 0 else { throw SystemError("cannot read \(path)") }
      if n == 0 { break }
      out += buffer[0..<n]
      offset += Int64(n)
    }
    return out
  }

  /// The file as text (invalid UTF-8 becomes U+FFFD), or nil when it does not exist.
  public static func readText(_ path: String, limit: Int = textLimit) throws -> String? {
    guard let bytes = try read(path, limit: limit) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Streams the lines of a regular file in 64 KiB chunks, memory flat in the file's size:
  /// `body` gets each line's number and its text (a trailing CR dropped), or nil for a line
  /// longer than `maxLine` bytes (skipped without being held). False when there is no file.
  /// From `offset` (a line's start, as `forEachLineBackward` gives it), the lines are numbered
  /// from 1 there.
  @discardableResult
  public static func forEachLine(
    _ path: String, from offset: Int64 = 0, maxLine: Int, _ body: (Int, String?) throws -> Void
  ) throws -> Bool {
    guard let fd = try openRegular(path) else { return false }
    defer { close(fd) }
    if offset > 0, lseek(fd, off_t(offset), SEEK_SET) < 0 { throw SystemError("cannot seek in \(path)") }
    var buffer = [UInt8](repeating: 0, count: 65536)
    var splitter = LineSplitter(maxLine: maxLine)
    while true {
      let n = try readSome(fd, &buffer, path: path)
      if n == 0 { break }
      try splitter.feed(buffer[0..<n], body)
    }
    try splitter.finish(body)
    return true
  }

  /// `forEachLine`'s splitter, fed bytes as they arrive in chunks of any size (a test feeds it
  /// from memory): each line's number and its text (a trailing CR dropped), or nil for a line
  /// longer than `maxLine` bytes, which is never held.
  public struct LineSplitter {
    public let maxLine: Int
    var line: [UInt8] = []
    var tooLong = false
    var number = 0

    public init(maxLine: Int) { self.maxLine = maxLine }

    public mutating func feed(_ chunk: ArraySlice<UInt8>, _ body: (Int, String?) throws -> Void) rethrows {
      try chunk.withUnsafeBufferPointer { bytes in
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        var start = 0
        while start < n {
          // memchr: a generic firstIndex(of:) is most of a debug build's time here.
          let newline = memchr(base + start, 0x0A, n - start).map {
            base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
          }
          let end = newline ?? n
          if !tooLong {
            if line.count + (end - start) > maxLine {
              tooLong = true
              line.removeAll(keepingCapacity: true)
            } else {
              line.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
            }
          }
          guard newline != nil else { break }
          try emit(body)
          start = end + 1
        }
      }
    }

    /// The last line, if the input did not end in LF.
    public mutating func finish(_ body: (Int, String?) throws -> Void) rethrows {
      if !line.isEmpty || tooLong { try emit(body) }
    }

    mutating func emit(_ body: (Int, String?) throws -> Void) rethrows {
      number += 1
      if tooLong {
        try body(number, nil)
      } else {
        if line.last == 0x0D { line.removeLast() }
        try body(number, String(decoding: line, as: UTF8.self))
      }
      line.removeAll(keepingCapacity: true)
      tooLong = false
    }
  }

  /// The lines of a regular file from its last to its first, read in chunks from its end:
  /// `body` gets each line's byte offset and its text (a trailing CR dropped), or nil for a line
  /// longer than `maxLine` bytes (never held), and returns false to stop there. Memory is one
  /// chunk and one line, and the time the lines read, whatever the file's size: what today's
  /// count reads of a history of any length. False when there is no file.
  @discardableResult
  public static func forEachLineBackward(
    _ path: String, maxLine: Int, chunkSize: Int = 65536, _ body: (Int64, String?) throws -> Bool
  ) throws -> Bool {
    guard let fd = try openRegular(path) else { return false }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError("cannot stat \(path)") }
    var end = Int64(info.st_size)
    var splitter = BackwardLineSplitter(maxLine: maxLine, size: end)
    var buffer = [UInt8](repeating: 0, count: max(chunkSize, 1))
    while end > 0 {
      let start = max(0, end - Int64(buffer.count))
      let count = Int(end - start)
      var got = 0
      while got < count {
        let n = retryingOnInterrupt {
          buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(start + Int64(got))) }
        }
        guard n >= 0 else { throw SystemError("cannot read \(path)") }
        guard n > 0 else { throw SystemError("\(path) shrank while being read", errno: EIO) }
        got += n
      }
      guard try splitter.feed(buffer[0..<count], body) else { return true }
      end = start
    }
    try splitter.finish(body)
    return true
  }

  /// `forEachLineBackward`'s splitter, fed the file's chunks from its last to its first (a test
  /// feeds it from memory): the same lines `LineSplitter` gives, in reverse order, each with the
  /// byte offset it starts at. A line longer than `maxLine` bytes is never held.
  public struct BackwardLineSplitter {
    public let maxLine: Int
    /// Where the bytes fed so far begin (the file's size before the first chunk).
    var position: Int64
    /// The line being gathered: its bytes after the chunk fed last, in order.
    var line: [UInt8] = []
    var tooLong = false
    /// Nothing given yet: what follows the file's last newline is a line only if not empty.
    var atEnd = true

    public init(maxLine: Int, size: Int64) {
      self.maxLine = maxLine
      position = size
    }

    /// Feeds the chunk that ends where the previous one began; false when `body` said stop.
    public mutating func feed(_ chunk: ArraySlice<UInt8>, _ body: (Int64, String?) throws -> Bool) rethrows -> Bool {
      let chunkStart = position - Int64(chunk.count)
      position = chunkStart
      return try chunk.withUnsafeBufferPointer { bytes in
        var end = bytes.count
        while end > 0 {
          var newline = end - 1
          while newline >= 0, bytes[newline] != 0x0A { newline -= 1 }
          let start = newline + 1
          gather(UnsafeBufferPointer(rebasing: bytes[start..<end]))
          guard newline >= 0 else { break }
          guard try emit(at: chunkStart + Int64(start), body) else { return false }
          end = newline
        }
        return true
      }
    }

    /// The file's first line, once every chunk is fed.
    public mutating func finish(_ body: (Int64, String?) throws -> Bool) rethrows {
      if !line.isEmpty || tooLong || !atEnd { _ = try emit(at: 0, body) }
    }

    mutating func gather(_ piece: UnsafeBufferPointer<UInt8>) {
      guard !tooLong, !piece.isEmpty else { return }
      if line.count + piece.count > maxLine {
        tooLong = true
        line.removeAll(keepingCapacity: true)
      } else {
        line.insert(contentsOf: piece, at: 0)
      }
    }

    mutating func emit(at offset: Int64, _ body: (Int64, String?) throws -> Bool) rethrows -> Bool {
      defer {
        line.removeAll(keepingCapacity: true)
        tooLong = false
        atEnd = false
      }
      if atEnd, line.isEmpty, !tooLong { return true }
      if tooLong { return try body(offset, nil) }
      if line.last == 0x0D { line.removeLast() }
      return try body(offset, String(decoding: line, as: UTF8.self))
    }
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
  /// `followingLinks`: a link to a folder counts as the folder (an output folder a person
  /// names); without it a link is refused, as for the device's own state folder.
  public static func makeDirectories(
    _ path: String, permissions: UInt32 = 0o700, followingLinks: Bool = false,
    in fs: FileSystem = PosixFileSystem.shared
  ) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      current += "/" + part
      var info = stat()
      if followingLinks, stat(current, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
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
