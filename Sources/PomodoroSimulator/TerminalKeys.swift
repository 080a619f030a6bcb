import PomodoroRuntime

/// What a key on the simulator's keyboard means on the device.
public enum SimulatorKey: Equatable, Sendable {
  /// The encoder: +1 one detent clockwise (more time), -1 one detent back; `fast` for a quick spin.
  case turn(Int, fast: Bool)
  /// The encoder's push button.
  case push
  /// The start/pause button.
  case startPause
  /// The cancel button.
  case cancel
  /// Toggle 60x fast-forward.
  case fastForward
  /// The presence sensor (`presence_line`) sees nobody, or someone again: a toggle.
  case presence
  case quit
  /// Ctrl-Z (raw mode delivers it as a key): suspend like SIGTSTP, back on `fg`.
  case suspend
}

/// Decodes the bytes a terminal in raw mode sends into simulator keys. Escape sequences split
/// across reads are kept until the rest arrives; unknown sequences and keys are ignored.
///
/// Encoder: Right, Up, `k`, `l` = +1 detent; Left, Down, `j`, `h` = -1; Shift (or any modifier)
/// with an arrow, or `K L J H`, spins fast. Push: Enter, `e`. Start/pause: Space. Cancel: `c`,
/// Backspace, Delete. Fast-forward: `f`. Presence away/here: `p`. Quit: `q`, Ctrl-C.
public struct TerminalKeyDecoder {
  private var pending: [UInt8] = []

  public init() {}

  /// The keys in `bytes`, in order.
  public mutating func feed<S: Sequence>(_ bytes: S) -> [SimulatorKey] where S.Element == UInt8 {
    pending.append(contentsOf: bytes)
    var keys: [SimulatorKey] = []
    var i = 0
    while i < pending.count {
      let byte = pending[i]
      if byte == 0x1B {
        switch Self.escape(pending[(i + 1)...]) {
        case .incomplete:
          pending.removeFirst(i)
          return keys
        case .sequence(let length, let key):
          if let key { keys.append(key) }
          i += length
        }
      } else {
        if let key = Self.plain(byte) { keys.append(key) }
        i += 1
      }
    }
    pending.removeAll()
    return keys
  }

  enum EscapeResult: Equatable {
    case incomplete
    /// `length` bytes including the ESC, and the key they mean (nil: ignored).
    case sequence(length: Int, key: SimulatorKey?)
  }

  /// Decodes the bytes after an ESC.
  static func escape(_ rest: ArraySlice<UInt8>) -> EscapeResult {
    guard let introducer = rest.first else { return .incomplete }
    switch introducer {
    case UInt8(ascii: "["):
      // CSI: parameters and intermediates (0x20...0x3F), then a final byte (0x40...0x7E).
      var index = rest.startIndex + 1
      while index < rest.endIndex, (0x20...0x3F).contains(rest[index]) { index += 1 }
      guard index < rest.endIndex else { return .incomplete }
      let parameters = String(decoding: rest[(rest.startIndex + 1)..<index], as: UTF8.self)
      let length = index - rest.startIndex + 2
      return .sequence(length: length, key: csi(parameters: parameters, final: rest[index]))
    case UInt8(ascii: "O"):
      // SS3: application-mode arrows.
      guard rest.count >= 2 else { return .incomplete }
      return .sequence(length: 3, key: arrow(rest[rest.startIndex + 1], fast: false))
    case 0x1B:
      // A lone ESC followed by another sequence: drop the first.
      return .sequence(length: 1, key: nil)
    default:
      // Alt+key: the key itself.
      return .sequence(length: 2, key: plain(introducer))
    }
  }

  static func csi(parameters: String, final: UInt8) -> SimulatorKey? {
    let fields = parameters.split(separator: ";", omittingEmptySubsequences: false)
    switch final {
    case UInt8(ascii: "A"), UInt8(ascii: "B"), UInt8(ascii: "C"), UInt8(ascii: "D"):
      // xterm: ESC [ 1 ; m X with modifier m > 1 (2 = Shift).
      let modifier = fields.count >= 2 ? Int(fields[1]) ?? 1 : 1
      return arrow(final, fast: modifier > 1)
    case UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "c"), UInt8(ascii: "d"):
      // rxvt: Shift-arrows end in lower case.
      return arrow(final - 0x20, fast: true)
    case UInt8(ascii: "~"):
      return parameters == "3" ? .cancel : nil
    default:
      return nil
    }
  }

  static func arrow(_ final: UInt8, fast: Bool) -> SimulatorKey? {
    switch final {
    case UInt8(ascii: "A"), UInt8(ascii: "C"): return .turn(1, fast: fast)
    case UInt8(ascii: "B"), UInt8(ascii: "D"): return .turn(-1, fast: fast)
    default: return nil
    }
  }

  static func plain(_ byte: UInt8) -> SimulatorKey? {
    switch byte {
    case UInt8(ascii: "k"), UInt8(ascii: "l"): return .turn(1, fast: false)
    case UInt8(ascii: "j"), UInt8(ascii: "h"): return .turn(-1, fast: false)
    case UInt8(ascii: "K"), UInt8(ascii: "L"): return .turn(1, fast: true)
    case UInt8(ascii: "J"), UInt8(ascii: "H"): return .turn(-1, fast: true)
    case 0x0D, 0x0A, UInt8(ascii: "e"), UInt8(ascii: "E"): return .push
    case UInt8(ascii: " "): return .startPause
    case UInt8(ascii: "c"), UInt8(ascii: "C"), 0x7F, 0x08: return .cancel
    case UInt8(ascii: "f"), UInt8(ascii: "F"): return .fastForward
    case UInt8(ascii: "p"), UInt8(ascii: "P"): return .presence
    case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03: return .quit
    case 0x1A: return .suspend
    default: return nil
    }
  }
}
