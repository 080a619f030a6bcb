// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation
  import PomodoroRuntime
  import PomodoroSystem
  import XCTest

  /// A pseudo-terminal pair with a terminal model fed from the master side.
  package final class PseudoTerminal {
    package struct Timeout: Error, CustomStringConvertible {
      package var what: String
      package init(what: String) { self.what = what }
      package var description: String { "gave up waiting for \(what)" }
    }

    package let master: Int32
    package let slave: Int32
    package var screen: ScreenModel

    package init(columns: Int, rows: Int) throws {
      var master: Int32 = -1
      var slave: Int32 = -1
      guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw SystemError("cannot open a pseudo-terminal") }
      self.master = master
      self.slave = slave
      screen = ScreenModel(columns: columns, rows: rows)
      resize(columns: columns, rows: rows)
    }

    deinit {
      close(slave)
      close(master)
    }

    package func resize(columns: Int, rows: Int) {
      var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
      _ = ioctl(master, UInt(TIOCSWINSZ), &size)
      screen.resize(columns: columns, rows: rows)
    }

    package func slaveModes() -> termios {
      var modes = termios()
      tcgetattr(slave, &modes)
      return modes
    }

    package func send(_ keys: String) {
      let bytes = Array(keys.utf8)
      _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads the simulator's output until `condition` holds for the screen; a generous limit
    /// keeps a broken simulator from hanging the suite (the test waits for output, not for time).
    package func waitFor(_ what: String, _ condition: (ScreenModel) -> Bool) throws {
      let limit = Date().addingTimeInterval(30)
      var buffer = [UInt8](repeating: 0, count: 65536)
      while !condition(screen) {
        let left = limit.timeIntervalSinceNow
        guard left > 0 else { throw Timeout(what: "\(what); the screen shows:\n\(screen.text)") }
        var fd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&fd, 1, Int32(left * 1000)) > 0 else { continue }
        let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard n > 0 else { throw Timeout(what: "\(what) (the terminal closed)") }
        screen.feed(buffer[0..<n])
      }
    }
  }

  /// Just enough of a VT100 to follow the simulator: cursor moves, erases, the alternate screen,
  /// cursor visibility and the bell; UTF-8 text.
  package struct ScreenModel {
    private(set) var cells: [[Character]]
    package private(set) var alternate = false
    package private(set) var cursorVisible = true
    package private(set) var bells = 0
    private var row = 0
    private var column = 0
    private var pending: [UInt8] = []
    private var escape: String?

    package init(columns: Int, rows: Int) {
      cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    package mutating func resize(columns: Int, rows: Int) {
      cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    package var lines: [String] {
      cells.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
    }
    package var text: String { lines.joined(separator: "\n") }

    /// The row that starts with a phase, as a screen reader would find it.
    package var statusLine: String? {
      lines.first { line in ["idle  ", "running  ", "paused  ", "ringing  "].contains { line.hasPrefix($0) } }
    }

    package var hasHalfBlocks: Bool { cells.joined().contains { "\u{2580}\u{2584}\u{2588}".contains($0) } }
    package var hasBraille: Bool {
      cells.joined().contains { $0.unicodeScalars.first.map { (0x2801...0x28FF).contains($0.value) } ?? false }
    }

    package mutating func feed(_ bytes: ArraySlice<UInt8>) {
      pending += bytes
      // Text up to the last ASCII byte is whole UTF-8; keep the rest for the next read.
      guard let cut = pending.lastIndex(where: { $0 < 0x80 }) else { return }
      let text = String(decoding: pending[...cut], as: UTF8.self)
      pending.removeFirst(cut + 1)
      for scalar in text.unicodeScalars { take(scalar) }
    }

    private mutating func take(_ scalar: Unicode.Scalar) {
      if var sequence = escape {
        sequence.unicodeScalars.append(scalar)
        if sequence == "[" || (sequence.count > 1 && (0x20...0x3F).contains(scalar.value)) {
          escape = sequence
        } else {
          escape = nil
          if sequence.hasPrefix("[") { control(String(sequence.dropFirst().dropLast()), final: scalar) }
        }
        return
      }
      switch scalar.value {
      case 0x1B: escape = ""
      case 0x07: bells += 1
      case 0x0D: column = 0
      case 0x0A: row = min(row + 1, cells.count - 1)
      default:
        guard row < cells.count, column < cells[row].count else { return }
        cells[row][column] = Character(scalar)
        column += 1
      }
    }

    private mutating func control(_ parameters: String, final: Unicode.Scalar) {
      let numbers = parameters.split(separator: ";").map { Int($0) ?? 1 }
      switch (final, parameters) {
      case ("H", _):
        row = max(0, (numbers.first ?? 1) - 1)
        column = max(0, (numbers.count > 1 ? numbers[1] : 1) - 1)
      case ("J", "2"):
        for r in cells.indices { cells[r] = Array(repeating: " ", count: cells[r].count) }
      case ("K", _):
        if row < cells.count { for c in column..<cells[row].count { cells[row][c] = " " } }
      case ("h", "?1049"): alternate = true
      case ("l", "?1049"): alternate = false
      case ("h", "?25"): cursorVisible = true
      case ("l", "?25"): cursorVisible = false
      default: break
      }
    }
  }
#endif
