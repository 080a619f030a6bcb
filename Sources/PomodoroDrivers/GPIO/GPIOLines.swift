import PomodoroCore

/// One edge seen on an input line: which line (its index in the request, in the order the
/// lines were asked for), the logical level after the edge (active-low already applied, so
/// `true` means "pressed" for a button wired to GND), and the kernel's monotonic timestamp.
public struct LineEdge: Equatable, Sendable {
  public var index: Int
  public var active: Bool
  public var timestamp: Instant

  public init(index: Int, active: Bool, timestamp: Instant) {
    self.index = index
    self.active = active
    self.timestamp = timestamp
  }
}

/// A set of input lines requested together with both-edge events.
public protocol InputLines: AnyObject {
  /// A descriptor that becomes readable when edges are pending (poll(2)); nil for mocks,
  /// whose edges are scheduled on a clock instead (see `nextEdgeTime`).
  var pollDescriptor: Int32? { get }
  /// For scripted (mock) lines: when the next edge is due, so a virtual-time loop can jump
  /// there. Real lines return nil.
  var nextEdgeTime: Instant? { get }
  /// Every pending edge, oldest first, without blocking.
  func readEdges() throws -> [LineEdge]
  /// The current logical level of each line, in request order.
  func levels() throws -> [Bool]
  /// Gives the lines back to the kernel. Idempotent.
  func release()
}

/// One output line (the buzzer).
public protocol OutputLine: AnyObject {
  /// Sets the logical level: `true` = active (buzzer sounding), whatever the wiring polarity.
  func set(_ active: Bool) throws
  /// Drives the line inactive and gives it back to the kernel. Idempotent.
  func release()
}

/// How one input line is asked for.
public struct InputLineSpec: Equatable, Sendable {
  /// A line name (`GPIO17`) or an offset on the chip (`17`).
  public var line: String
  public var activeLow: Bool
  public var pullUp: Bool
  /// Kernel debounce period (libgpiod v2 only; 0 = none). Our own debouncer runs anyway.
  public var debounceMicroseconds: UInt32

  public init(line: String, activeLow: Bool = true, pullUp: Bool = true, debounceMicroseconds: UInt32 = 0) {
    self.line = line
    self.activeLow = activeLow
    self.pullUp = pullUp
    self.debounceMicroseconds = debounceMicroseconds
  }
}

/// Errors a GPIO backend reports, each naming the chip or line (embedded-hal's `ErrorKind` is
/// the model). What an owner should do about them is the runtime's to say (`HardwareAdvice`).
public enum GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
  case notInstalled
  case chipNotFound(String)
  case lineNotFound(chip: String, line: String)
  case lineBusy(chip: String, line: String, consumer: String)
  case permissionDenied(path: String)
  case io(String)

  public var description: String {
    switch self {
    case .notInstalled: return "GPIO support was not compiled in: libgpiod is not installed."
    case .chipNotFound(let chip): return "GPIO chip '\(chip)' not found."
    case .lineNotFound(let chip, let line): return "GPIO line '\(line)' not found on \(chip)."
    case .lineBusy(let chip, let line, let consumer):
      return "GPIO line '\(line)' on \(chip) is busy: held by '\(consumer)'."
    case .permissionDenied(let path): return "Permission denied opening \(path)."
    case .io(let detail): return "GPIO I/O error: \(detail)"
    }
  }
}

/// A GPIO chip that hands out line requests: libgpiod on Linux, or the mock chip.
public protocol GPIOChip: AnyObject {
  /// A name for messages: the device path (/dev/gpiochip0) or the mock's name.
  var displayName: String { get }
  /// Requests `specs` as inputs with both-edge events, under the consumer name `consumer`.
  func requestInputs(_ specs: [InputLineSpec], consumer: String) throws -> InputLines
  /// Requests `line` as an output, initially inactive.
  func requestOutput(line: String, activeHigh: Bool, consumer: String) throws -> OutputLine
}
