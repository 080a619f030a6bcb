import PomodoroCore
import PomodoroDrivers

/// Input lines requested from a `MockGPIOChip`: edges are the scheduled levels whose time has
/// come on the chip's clock, with active-low applied.
final class MockInputLines: InputLines {
  private let chip: MockGPIOChip
  private var lines: [MockGPIOChip.Line]
  private let activeLow: [Bool]
  private var released = false

  init(chip: MockGPIOChip, lines: [MockGPIOChip.Line], activeLow: [Bool]) {
    self.chip = chip
    self.lines = lines
    self.activeLow = activeLow
  }

  var pollDescriptor: Int32? { chip.pollDescriptor }

  var nextEdgeTime: Instant? {
    guard !released else { return nil }
    var earliest: Instant?
    for line in lines where line.cursor < line.scheduled.count {
      let t = line.scheduled[line.cursor].time
      if earliest.map({ t < $0 }) ?? true { earliest = t }
    }
    return earliest
  }

  func readEdges() throws -> [LineEdge] {
    guard !released else { return [] }
    if let error = chip.readError { throw error }
    let now = chip.clock.now
    var edges: [LineEdge] = []
    for (index, line) in lines.enumerated() {
      var previous = line.levelBeforeCursor
      while line.cursor < line.scheduled.count, line.scheduled[line.cursor].time <= now {
        let edge = line.scheduled[line.cursor]
        line.cursor += 1
        // Like the kernel, only a change of level is an edge.
        if edge.high == previous { continue }
        previous = edge.high
        edges.append(LineEdge(index: index, active: edge.high != activeLow[index], timestamp: edge.time))
      }
      line.dropRead()
    }
    // Oldest first across lines; ties keep request order (the sort is stable by index).
    edges.sort { ($0.timestamp, $0.index) < ($1.timestamp, $1.index) }
    return edges
  }

  func levels() throws -> [Bool] {
    if let error = chip.readError { throw error }
    let now = chip.clock.now
    return lines.enumerated().map { index, line in line.high(at: now) != activeLow[index] }
  }

  func release() {
    guard !released else { return }
    released = true
    for line in lines { line.holder = nil }
  }
}

/// An output line of a `MockGPIOChip`: every write is recorded on the chip with its time.
final class MockOutputLine: OutputLine {
  private let chip: MockGPIOChip
  private let line: MockGPIOChip.Line
  private let activeHigh: Bool
  private var released = false

  init(chip: MockGPIOChip, line: MockGPIOChip.Line, activeHigh: Bool) {
    self.chip = chip
    self.line = line
    self.activeHigh = activeHigh
  }

  func set(_ active: Bool) throws {
    guard !released else { throw GPIOError.io("\(line.name) on \(chip.displayName) was already released") }
    line.record(MockGPIOChip.OutputRecord(time: chip.clock.now, active: active, high: active == activeHigh))
  }

  func release() {
    guard !released else { return }
    try? set(false)
    released = true
    line.holder = nil
  }
}
