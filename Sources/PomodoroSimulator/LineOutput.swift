import PomodoroRuntime
import PomodoroSystem

/// The transcript's way out: whole lines only, buffered and written with write(2) in runs of
/// whole lines, so that whatever ends the process (a signal, a crash) never leaves a line torn,
/// and a signal's summary follows the last whole line.
public final class LineOutput {
  let fd: Int32
  let limit: Int
  var buffer: [UInt8] = []
  /// Set when the reader went away (EPIPE) or the output failed; nothing more is written.
  public private(set) var failed: SystemError?

  public init(fd: Int32 = STDOUT_FILENO, bufferSize: Int = 65_536) {
    self.fd = fd
    limit = bufferSize
    buffer.reserveCapacity(bufferSize)
  }

  deinit { flush() }

  /// Adds `text` and a newline; writes the buffer out when it is full.
  public func line(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    buffer.append(0x0A)
    if buffer.count >= limit { flush() }
  }

  /// Writes every whole line buffered so far.
  public func flush() {
    defer { buffer.removeAll(keepingCapacity: true) }
    guard failed == nil else { return }
    let e = buffer.withUnsafeBytes { writeEverything(fd, $0) }
    if e != 0 { failed = SystemError("cannot write the transcript to the output", errno: e) }
  }
}
