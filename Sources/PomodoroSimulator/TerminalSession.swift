import PomodoroRuntime
import PomodoroSystem

/// Where the simulator reads keys and draws: the process's stdin and stdout, or a
/// pseudo-terminal or pipes in tests.
public struct TerminalIO: Sendable {
  public var input: Int32
  public var output: Int32

  public init(input: Int32, output: Int32) {
    self.input = input
    self.output = output
  }

  public static let standard = TerminalIO(input: STDIN_FILENO, output: STDOUT_FILENO)
}

/// The terminal while the simulator owns it: raw keys, the alternate screen, no cursor.
/// `restore()` puts everything back and may be called any number of times.
final class TerminalSession {
  /// Leaves the alternate screen with the cursor shown and attributes reset.
  static let restoreSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
  static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"

  let io: TerminalIO
  private var savedModes: termios?
  private(set) var isActive = false

  init(io: TerminalIO) { self.io = io }

  /// Raw mode (when the input is a terminal) and the alternate screen.
  func enter() throws {
    if isatty(io.input) == 1 {
      var modes = termios()
      guard tcgetattr(io.input, &modes) == 0 else { throw SystemError("cannot read the terminal's modes") }
      savedModes = modes
      var raw = modes
      cfmakeraw(&raw)
      // Keep output processing off too: the screen is drawn with absolute cursor moves.
      guard tcsetattr(io.input, TCSANOW, &raw) == 0 else {
        savedModes = nil
        throw SystemError("cannot put the terminal in raw mode")
      }
    }
    isActive = true
    try write(Self.enterSequence)
  }

  /// After a stop the shell had the terminal: raw mode and the alternate screen again (the
  /// modes to restore are re-read: they are the shell's now). Harmless when already in them.
  func reenter() throws {
    if isActive, var modes = savedModes {
      // Stopped by SIGSTOP (no chance to restore): the modes were never given back.
      tcsetattr(io.input, TCSANOW, &modes)
    }
    isActive = false
    savedModes = nil
    try enter()
  }

  /// Back to the modes and screen the simulator found.
  func restore() {
    guard isActive else { return }
    isActive = false
    try? write(Self.restoreSequence)
    if var modes = savedModes {
      tcsetattr(io.input, TCSANOW, &modes)
      savedModes = nil
    }
  }

  /// The window size of the output terminal (or the input's), else $COLUMNS x $LINES, else 80x24.
  func size() -> TerminalSize {
    for fd in [io.output, io.input] {
      var window = winsize()
      if ioctl(fd, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 {
        return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
      }
    }
    func environment(_ name: String) -> Int? { getenv(name).flatMap { Int(String(cString: $0)) } }
    return TerminalSize(columns: environment("COLUMNS") ?? 80, rows: environment("LINES") ?? 24)
  }

  /// Writes all of `text`, waiting while the terminal is slow (a busy ssh link).
  func write(_ text: String) throws {
    let bytes = Array(text.utf8)
    let e = bytes.withUnsafeBytes { writeEverything(io.output, $0) }
    if e != 0 { throw SystemError("cannot write to the terminal", errno: e) }
  }

  /// The bytes waiting on the input (call when poll says it is readable); nil at end of input.
  func read() throws -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 512)
    let n = retryingOnInterrupt { buffer.withUnsafeMutableBytes { systemRead(io.input, $0.baseAddress, $0.count) } }
    if n > 0 { return Array(buffer[0..<n]) }
    if n == 0 { return nil }
    if currentErrno() == EAGAIN { return [] }
    throw SystemError("cannot read keys from the terminal")
  }
}

/// SIGWINCH turned into a readable descriptor, so that a resize wakes the event loop (the
/// loop's own signal pipe covers only the terminating signals).
enum TerminalResize {
  /// The read end of the pipe the handler writes to, or nil if it could not be set up.
  static let descriptor: Int32? = install()

  /// Empties the pipe after a wake.
  static func drain() {
    guard let fd = descriptor else { return }
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ systemRead(fd, $0.baseAddress, $0.count) }) > 0 {}
  }

  private static func install() -> Int32? {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    for fd in ends {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    resizePipeWriteEnd = ends[1]
    signal(SIGWINCH) { _ in
      var byte: UInt8 = 1
      _ = systemWrite(resizePipeWriteEnd, &byte, 1)
    }
    return ends[0]
  }
}

/// The write end of the resize pipe, read by the signal handler (which cannot capture).
/// Set once, before the handler is installed, and never changed: safe to share.
nonisolated(unsafe) private var resizePipeWriteEnd: Int32 = -1
