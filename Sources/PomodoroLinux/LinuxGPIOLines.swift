import CPomodoroHW
import PomodoroCore
import PomodoroDrivers

/// Input lines requested through libgpiod, with both-edge events; `pollDescriptor` is readable
/// while events are pending. Timestamps are the kernel's CLOCK_MONOTONIC (see `SystemClock`).
final class LinuxInputLines: InputLines {
  private let chip: LinuxGPIOChip  // keeps the chip open while its lines are held
  private var handle: OpaquePointer?
  private let count: Int
  private var buffer = [pomo_edge](repeating: pomo_edge(), count: 256)

  init(chip: LinuxGPIOChip, handle: OpaquePointer, count: Int) {
    self.chip = chip
    self.handle = handle
    self.count = count
  }

  deinit { release() }

  var pollDescriptor: Int32? {
    guard let handle else { return nil }
    let fd = pomo_lines_fd(handle)
    return fd >= 0 ? fd : nil
  }

  var nextEdgeTime: Instant? { nil }

  func readEdges() throws -> [LineEdge] {
    guard let handle else { return [] }
    var edges: [LineEdge] = []
    while true {
      let capacity = buffer.count
      let n = buffer.withUnsafeMutableBufferPointer { pomo_lines_read_edges(handle, $0.baseAddress, capacity) }
      guard n >= 0 else { throw GPIOError.io("reading edges on \(chip.path): \(Errno.text(-n))") }
      for e in buffer[0..<Int(n)] {
        edges.append(
          LineEdge(index: Int(e.index), active: e.rising != 0, timestamp: Instant(nanoseconds: e.timestamp_ns)))
      }
      if Int(n) < capacity { break }
    }
    // libgpiod v1 reads line after line: merge into time order, keeping each line's order.
    return edges.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
      .map(\.element)
  }

  func levels() throws -> [Bool] {
    guard let handle else { throw GPIOError.io("lines on \(chip.path) were released") }
    var values = [Int32](repeating: 0, count: count)
    let r = pomo_lines_get_values(handle, &values, count)
    guard r == 0 else { throw GPIOError.io("reading levels on \(chip.path): \(Errno.text(-r))") }
    return values.map { $0 != 0 }
  }

  func release() {
    guard let handle else { return }
    pomo_lines_release(handle)
    self.handle = nil
  }
}

/// One output line through libgpiod; released inactive.
final class LinuxOutputLine: OutputLine {
  private let chip: LinuxGPIOChip
  private var handle: OpaquePointer?
  private let line: String

  init(chip: LinuxGPIOChip, handle: OpaquePointer, line: String) {
    self.chip = chip
    self.handle = handle
    self.line = line
  }

  deinit { release() }

  func set(_ active: Bool) throws {
    guard let handle else { throw GPIOError.io("\(line) on \(chip.path) was already released") }
    let r = pomo_lines_set_value(handle, active ? 1 : 0)
    guard r == 0 else { throw GPIOError.io("setting \(line) on \(chip.path): \(Errno.text(-r))") }
  }

  func release() {
    guard let handle else { return }
    _ = pomo_lines_set_value(handle, 0)
    pomo_lines_release(handle)
    self.handle = nil
  }
}
