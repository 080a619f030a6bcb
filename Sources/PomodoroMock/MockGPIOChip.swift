import PomodoroCore
import PomodoroDrivers

/// A scripted GPIO chip behind the `GPIOChip` protocol, on a `MonotonicClock` shared with the
/// engine (a `VirtualClock` in tests and headless runs).
///
/// Inputs are driven by scheduled *physical* levels (`true` = high) with timestamps; a request
/// applies active-low as the kernel does, so an active-low button scheduled low reads active.
/// An input line nobody drives sits high, as a pulled-up open contact does. Outputs are recorded
/// with the clock's time. Error paths are switches: `isPresent`, `markBusy`, `readError`.
public final class MockGPIOChip: GPIOChip {
  /// What was written to an output line, and when.
  public struct OutputRecord: Equatable, Sendable {
    public var time: Instant
    /// Logical level (`true` = active).
    public var active: Bool
    /// Physical level after the wiring's polarity.
    public var high: Bool

    public init(time: Instant, active: Bool, high: Bool) {
      self.time = time
      self.active = active
      self.high = high
    }
  }

  final class Line {
    let name: String
    /// The edges not yet dropped, oldest first: those already read (before `cursor`) are
    /// dropped in batches, so a long script keeps memory flat (see `dropRead`).
    var scheduled: [ScriptedLevel] = []
    var initialHigh = true
    /// The level before `scheduled[0]`: the last dropped edge's, or `initialHigh`.
    var droppedHigh = true
    /// Index in `scheduled` of the first edge not yet read by the holder.
    var cursor = 0
    var holder: String?
    var outputs: [OutputRecord] = []

    init(name: String) { self.name = name }

    /// The physical level at `now` (the clock's now or later: dropped edges are gone).
    func high(at now: Instant) -> Bool {
      var level = droppedHigh
      for edge in scheduled {
        if edge.time > now { break }
        level = edge.high
      }
      return level
    }

    /// The level of the last edge read (or the level before every kept edge).
    var levelBeforeCursor: Bool { cursor > 0 ? scheduled[cursor - 1].high : droppedHigh }

    /// The physical level the line will have once everything scheduled so far has happened.
    var finalHigh: Bool { scheduled.last?.high ?? droppedHigh }

    /// Forgets the edges already read once they are at least half of what is kept (and at
    /// least `MockGPIOChip.dropBatch`): amortised constant time per edge, memory bounded by
    /// the edges still to come.
    func dropRead() {
      guard cursor >= MockGPIOChip.dropBatch, cursor * 2 >= scheduled.count else { return }
      droppedHigh = scheduled[cursor - 1].high
      scheduled.removeFirst(cursor)
      cursor = 0
    }

    func record(_ output: OutputRecord) {
      if outputs.count >= MockGPIOChip.outputHistoryLimit {
        outputs.removeFirst(MockGPIOChip.outputHistoryLimit / 2)
      }
      outputs.append(output)
    }
  }

  /// Read edges are dropped in batches of at least this many.
  static let dropBatch = 256
  /// Output writes kept per line; past it, the older half is forgotten (a long script's clicks).
  public static let outputHistoryLimit = 65_536

  public let clock: MonotonicClock
  public let displayName: String
  /// When false, the chip is "not there": every request throws `GPIOError.chipNotFound`.
  public var isPresent = true
  /// When set, reads on requested inputs throw it (a line that went away mid-run).
  public var readError: GPIOError?
  /// The descriptor requested inputs give the event loop to wait on (nil: none, the default;
  /// a test of the loop sets one).
  public var pollDescriptor: Int32?
  var lines: [Line]
  private var rng: SplitMix64

  /// - Parameters:
  ///   - clock: the clock that says which scheduled edges have happened.
  ///   - lineNames: the chip's lines, by offset.
  ///   - name: the chip's name in messages.
  ///   - seed: seeds the bounce generator, so scripted bounce reproduces.
  public init(clock: MonotonicClock, lineNames: [String], name: String = "mock-gpiochip0", seed: UInt64 = 1) {
    self.clock = clock
    self.displayName = name
    self.lines = lineNames.map { Line(name: $0) }
    self.rng = SplitMix64(seed: seed)
  }

  /// A chip named like a Raspberry Pi's header chip: lines GPIO0 ... GPIO27.
  public static func raspberryPiHeader(clock: MonotonicClock, seed: UInt64 = 1) -> MockGPIOChip {
    MockGPIOChip(clock: clock, lineNames: (0..<28).map { "GPIO\($0)" }, seed: seed)
  }

  /// The names of the lines, by offset.
  public var lineNames: [String] { lines.map(\.name) }

  /// The offset of a line given by name (`GPIO17`) or by offset (`17`).
  public func offset(of line: String) -> Int? {
    if let index = lines.firstIndex(where: { $0.name == line }) { return index }
    if let offset = Int(line), offset >= 0, offset < lines.count { return offset }
    return nil
  }

  private func resolve(_ line: String) throws -> Line {
    guard isPresent else { throw GPIOError.chipNotFound(displayName) }
    guard let offset = offset(of: line) else { throw GPIOError.lineNotFound(chip: displayName, line: line) }
    return lines[offset]
  }

  // MARK: Error switches

  /// Marks `line` as held by another program called `consumer`; requests for it then throw
  /// `GPIOError.lineBusy`. A nil consumer frees it.
  public func markBusy(_ line: String, consumer: String?) {
    guard let offset = offset(of: line) else { preconditionFailure("no line \(line) on \(displayName)") }
    lines[offset].holder = consumer
  }

  /// Who holds `line` (our consumer name once requested), or nil when it is free.
  public func holder(of line: String) -> String? {
    offset(of: line).flatMap { lines[$0].holder }
  }

  // MARK: Scripting inputs

  /// Makes `line`, before any edge is scheduled on it, rest at the physical level `high` (a
  /// line nobody drives rests high): a part that drives its output, like a presence sensor.
  public func rest(_ line: String, high: Bool) {
    guard let offset = offset(of: line) else { preconditionFailure("no line \(line) on \(displayName)") }
    precondition(lines[offset].scheduled.isEmpty, "\(line) has edges scheduled already")
    lines[offset].initialHigh = high
    lines[offset].droppedHigh = high
  }

  /// Schedules `line` to go to the physical level `high` at `time`, with `bounce` of contact
  /// chatter after it (0 = a clean edge). `time` must not be before `clock.now`.
  public func schedule(_ line: String, high: Bool, at time: Instant, bounce: Nanoseconds = 0) {
    guard let offset = offset(of: line) else { preconditionFailure("no line \(line) on \(displayName)") }
    precondition(time >= clock.now, "cannot schedule an edge in the past")
    for edge in MockGPIOScript.settle(high: high, at: time, bounce: bounce, rng: &rng) {
      insert(edge, into: lines[offset])
    }
  }

  private func insert(_ edge: ScriptedLevel, into line: Line) {
    // After every edge at the same instant or earlier: read edges are never displaced.
    var index = line.scheduled.count
    while index > line.cursor, line.scheduled[index - 1].time > edge.time { index -= 1 }
    line.scheduled.insert(edge, at: index)
  }

  /// Schedules `detents` detents of an active-low quadrature encoder on lines `a` and `b`,
  /// one every `spacing` from `start`, each of `transitionsPerDetent` evenly spaced Gray-code
  /// transitions (positive detents: A leads B). Continues from the levels already scheduled.
  /// Returns the instant after the last detent (`start + |detents| * spacing`).
  @discardableResult
  public func scheduleTurn(
    a: String, b: String, detents: Int, start: Instant, spacing: Nanoseconds, bounce: Nanoseconds = 0,
    transitionsPerDetent: Int = 4
  ) -> Instant {
    guard let ia = offset(of: a), let ib = offset(of: b) else {
      preconditionFailure("no line \(a) or \(b) on \(displayName)")
    }
    var state = MockGPIOScript.encoderState(a: lines[ia].finalHigh, b: lines[ib].finalHigh)
    let direction = detents >= 0 ? 1 : -1
    let step = spacing / Int64(transitionsPerDetent)
    var t = start
    for _ in 0..<abs(detents) {
      for _ in 0..<transitionsPerDetent {
        let before = MockGPIOScript.encoderLevels(state: state)
        state += direction
        let after = MockGPIOScript.encoderLevels(state: state)
        if before.a != after.a { schedule(a, high: after.a, at: t, bounce: bounce) }
        if before.b != after.b { schedule(b, high: after.b, at: t, bounce: bounce) }
        t = t + step
      }
    }
    return start + Int64(abs(detents)) * spacing
  }

  /// Schedules a press of an active-low button on `line`: low at `at`, high again `holding`
  /// later, with `bounce` of chatter on both edges. Returns the release instant.
  @discardableResult
  public func schedulePress(
    _ line: String, at time: Instant, holding: Nanoseconds = ms(80), bounce: Nanoseconds = 0
  ) -> Instant {
    schedule(line, high: false, at: time, bounce: bounce)
    schedule(line, high: true, at: time + holding, bounce: bounce)
    return time + holding
  }

  /// A long press: `schedulePress` held for `holding` (1.5 s by default).
  @discardableResult
  public func scheduleHold(
    _ line: String, at time: Instant, holding: Nanoseconds = ms(1500), bounce: Nanoseconds = 0
  ) -> Instant {
    schedulePress(line, at: time, holding: holding, bounce: bounce)
  }

  /// How many scheduled edges of `line` the chip still holds: those to come, and read ones
  /// not yet dropped (at most about as many again, and `dropBatch`).
  public func keptEdgeCount(_ line: String) -> Int {
    offset(of: line).map { lines[$0].scheduled.count } ?? 0
  }

  /// The physical level of `line` now.
  public func physicalLevel(_ line: String) -> Bool {
    guard let offset = offset(of: line) else { preconditionFailure("no line \(line) on \(displayName)") }
    let l = lines[offset]
    return l.outputs.last?.high ?? l.high(at: clock.now)
  }

  // MARK: Outputs

  /// What was written to output `line`, oldest first (the last `outputHistoryLimit` writes at least).
  public func outputHistory(_ line: String) -> [OutputRecord] {
    offset(of: line).map { lines[$0].outputs } ?? []
  }

  // MARK: GPIOChip

  public func requestInputs(_ specs: [InputLineSpec], consumer: String) throws -> InputLines {
    var picked: [Line] = []
    for spec in specs {
      let line = try resolve(spec.line)
      if let holder = line.holder {
        throw GPIOError.lineBusy(chip: displayName, line: spec.line, consumer: holder)
      }
      if picked.contains(where: { $0 === line }) {
        throw GPIOError.lineBusy(chip: displayName, line: spec.line, consumer: consumer)
      }
      picked.append(line)
    }
    let now = clock.now
    for line in picked {
      line.holder = consumer
      line.cursor = line.scheduled.firstIndex { $0.time > now } ?? line.scheduled.count
    }
    return MockInputLines(chip: self, lines: picked, activeLow: specs.map(\.activeLow))
  }

  public func requestOutput(line: String, activeHigh: Bool, consumer: String) throws -> OutputLine {
    let l = try resolve(line)
    if let holder = l.holder { throw GPIOError.lineBusy(chip: displayName, line: line, consumer: holder) }
    l.holder = consumer
    let output = MockOutputLine(chip: self, line: l, activeHigh: activeHigh)
    try output.set(false)
    return output
  }
}
