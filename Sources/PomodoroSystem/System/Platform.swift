// The C library, for this module and every module that imports it: the one place it is imported.
#if canImport(Glibc)
  @_exported @preconcurrency import Glibc
#elseif canImport(Darwin)
  @_exported import Darwin
#endif

// The one platform shim: the C library calls whose Swift module differs between Linux (Glibc)
// and macOS (Darwin), and whose plain names the types here shadow with methods of their own
// (read, write, close, rename), and the constants whose Swift types differ (SOCK_STREAM).
// Everything else the runtime calls is the same on both.

/// The text of a C string in a buffer: its bytes up to the first NUL (all of them when there is
/// none) as UTF-8, invalid bytes replaced. Never reads past the buffer, as `String(cString:)` on an
/// unterminated one would.
public func text(ofCString chars: [CChar]) -> String {
  String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// errno of the calling thread.
@inline(__always) public func currentErrno() -> Int32 {
  #if canImport(Glibc)
    return Glibc.errno
  #else
    return Darwin.errno
  #endif
}

/// read(2).
@inline(__always) public func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  #if canImport(Glibc)
    return Glibc.read(fd, bytes, count)
  #else
    return Darwin.read(fd, bytes, count)
  #endif
}

/// write(2).
@inline(__always) public func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
  #if canImport(Glibc)
    return Glibc.write(fd, bytes, count)
  #else
    return Darwin.write(fd, bytes, count)
  #endif
}

/// send(2) with `UnixSocket.sendFlags` (a peer that left is EPIPE, not a signal).
@inline(__always) public func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
  #if canImport(Glibc)
    return Glibc.send(fd, bytes, count, UnixSocket.sendFlags)
  #else
    return Darwin.send(fd, bytes, count, UnixSocket.sendFlags)
  #endif
}

/// close(2).
@inline(__always) @discardableResult public func systemClose(_ fd: Int32) -> Int32 {
  #if canImport(Glibc)
    return Glibc.close(fd)
  #else
    return Darwin.close(fd)
  #endif
}

/// rename(2).
@inline(__always) public func systemRename(_ from: String, _ to: String) -> Int32 {
  #if canImport(Glibc)
    return Glibc.rename(from, to)
  #else
    return Darwin.rename(from, to)
  #endif
}

/// SOCK_STREAM as socket(2) takes it: an enum case on Linux, an Int32 on macOS.
public var streamSocketType: Int32 {
  #if os(Linux)
    return Int32(SOCK_STREAM.rawValue)
  #else
    return SOCK_STREAM
  #endif
}

/// Makes a system call again while a signal interrupts it (-1 with EINTR): the one retry loop.
/// Returns the last result; errno is the call's when that is an error.
@inlinable public func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
  while true {
    let r = call()
    if r >= 0 || currentErrno() != EINTR { return r }
  }
}

/// Writes all of `bytes` to `fd`, waiting for room when the descriptor is non-blocking (EAGAIN)
/// and going on after a signal: 0, or the errno of the write that failed (EPIPE: the reader left).
public func writeEverything(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
  var offset = 0
  while offset < bytes.count {
    let n = retryingOnInterrupt { systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset) }
    if n >= 0 {
      offset += n
      continue
    }
    let e = currentErrno()
    guard e == EAGAIN || e == EWOULDBLOCK else { return e }
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    _ = poll(&p, 1, -1)
  }
  return 0
}

/// Writes `text` to stderr as it is (C's unbuffered stream, so a line is never held back).
public func writeToStandardError(_ text: String) { _ = text.withCString { fputs($0, stderr) } }

/// Sends what stdout's buffer holds (a line a watcher waits for).
public func flushStandardOutput() { fflush(stdout) }

/// Standard output a line at a time, into a pipe or a file too (a live echo that `| tee` shows).
public func lineBufferStandardOutput() { setvbuf(stdout, nil, _IOLBF, 0) }
