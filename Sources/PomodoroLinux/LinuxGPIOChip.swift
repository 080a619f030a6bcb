import CPomodoroHW
import PomodoroCore
import PomodoroDrivers

/// A GPIO chip through libgpiod (v1 or v2, whichever the shim was built against).
///
/// Opened by a path (/dev/gpiochip0), a name (gpiochip0), a label (pinctrl-rp1, a Pi 5's
/// header chip) or `auto`: the chip that has the line `lineHint` (GPIO17), so one config works
/// on a Pi 3/4 (gpiochip0) and a Pi 5 (the RP1 chip, gpiochip4 or gpiochip0 by kernel).
public final class LinuxGPIOChip: GPIOChip {
  /// What the kernel says about one line (for `pomodoro probe`).
  public struct LineInfo: Equatable, Sendable {
    public var offset: Int
    public var name: String
    public var used: Bool
    /// Who holds the line ("" when free or unnamed).
    public var consumer: String
  }

  public let path: String
  public let name: String
  public let label: String
  public let lineCount: Int
  public var displayName: String { path }
  let handle: OpaquePointer

  /// Opens the chip `spec`; `lineHint` names the line `auto` looks for.
  /// - Throws: `GPIOError.notInstalled`, `.chipNotFound`, `.permissionDenied`, `.io`.
  public init(spec: String, lineHint: String? = nil) throws {
    // Without libgpiod the shim answers -ENOSYS, which `chipOpen` maps to `.notInstalled`.
    var chip: OpaquePointer?
    let r = pomo_chip_open(spec, lineHint, &chip)
    guard r == 0, let chip else { throw LinuxGPIOErrors.chipOpen(errno: -r, spec: spec, lineHint: lineHint) }
    handle = chip
    path = String(cString: pomo_chip_path(chip))
    name = String(cString: pomo_chip_name(chip))
    label = String(cString: pomo_chip_label(chip))
    lineCount = Int(pomo_chip_num_lines(chip))
  }

  deinit { pomo_chip_close(handle) }

  /// The offset of `line`, a name (GPIO17) or an offset (17).
  public func offset(of line: String) throws -> Int {
    let r = pomo_chip_find_line(handle, line)
    guard r >= 0 else { throw GPIOError.lineNotFound(chip: path, line: line) }
    return Int(r)
  }

  /// Whether `line` is in use and by whom.
  public func lineInfo(_ line: String) throws -> LineInfo {
    try lineInfo(offset: offset(of: line))
  }

  public func lineInfo(offset: Int) throws -> LineInfo {
    var used: Int32 = 0
    var name = [CChar](repeating: 0, count: 64)
    var consumer = [CChar](repeating: 0, count: 64)
    let r = pomo_chip_line_info(handle, UInt32(offset), &used, &name, name.count, &consumer, consumer.count)
    guard r == 0 else { throw GPIOError.io("reading line \(offset) of \(path): \(Errno.text(-r))") }
    return LineInfo(
      offset: offset, name: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
      used: used != 0,
      consumer: String(decoding: consumer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }

  public func requestInputs(_ specs: [InputLineSpec], consumer: String) throws -> InputLines {
    let offsets = try specs.map { try offset(of: $0.line) }
    let cSpecs = zip(specs, offsets).map { spec, offset in
      pomo_input_spec(
        offset: UInt32(offset), active_low: spec.activeLow ? 1 : 0, pull_up: spec.pullUp ? 1 : 0,
        debounce_us: spec.debounceMicroseconds)
    }
    var lines: OpaquePointer?
    let r = pomo_request_inputs(handle, consumer, cSpecs, cSpecs.count, &lines)
    guard r == 0, let lines else { throw requestError(-r, specs.map(\.line), offsets) }
    return LinuxInputLines(chip: self, handle: lines, count: specs.count)
  }

  public func requestOutput(line: String, activeHigh: Bool, consumer: String) throws -> OutputLine {
    let offset = try offset(of: line)
    var lines: OpaquePointer?
    let r = pomo_request_output(handle, consumer, UInt32(offset), activeHigh ? 0 : 1, &lines)
    guard r == 0, let lines else { throw requestError(-r, [line], [offset]) }
    return LinuxOutputLine(chip: self, handle: lines, line: line)
  }

  private func requestError(_ e: Int32, _ names: [String], _ offsets: [Int]) -> GPIOError {
    LinuxGPIOErrors.request(errno: e, chip: path, lines: names) {
      for (name, offset) in zip(names, offsets) {
        if let info = try? lineInfo(offset: offset), info.used {
          return (name, info.consumer.isEmpty ? "an unnamed consumer" : info.consumer)
        }
      }
      return nil
    }
  }
}
