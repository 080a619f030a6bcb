import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

final class QuadratureDecoderTests: XCTestCase {
  func testCleanEdgesAtOneThousandDetentsPerSecondLoseNothing() throws {
    let rig = try EncoderRig()
    let back = rig.turn(500, spacing: ms(1))
    rig.turn(-500, spacing: ms(1), at: back)
    try rig.drain()
    XCTAssertEqual(rig.steps, Array(repeating: 1, count: 500) + Array(repeating: -1, count: 500))
    XCTAssertEqual(rig.decoder.detents, 0)
    XCTAssertEqual(rig.decoder.skipped, 0)
  }

  func testBounceOfHalfAMillisecondOnEveryEdgeAtTwoHundredDetentsPerSecond() throws {
    for seed in 1...20 as ClosedRange<UInt64> {
      let rig = try EncoderRig(seed: seed)
      let back = rig.turn(60, spacing: ms(5), bounce: 500_000)
      rig.turn(-25, spacing: ms(5), bounce: 500_000, at: back)
      try rig.drain()
      XCTAssertEqual(
        rig.steps, Array(repeating: 1, count: 60) + Array(repeating: -1, count: 25), "seed \(seed)")
    }
  }

  func testEachDetentCarriesTheTimestampOfItsCompletingEdge() throws {
    let rig = try EncoderRig()
    let start = rig.clock.now
    rig.turn(3, spacing: ms(100))
    try rig.drain()
    // Four transitions 25 ms apart: the fourth, at +75 ms, completes the detent.
    XCTAssertEqual(rig.detents.map(\.timestamp), [start + ms(75), start + ms(175), start + ms(275)])
  }

  func testADirectionChangeLosesNoStep() throws {
    let rig = try EncoderRig()
    var t = rig.clock.now
    for d in [1, -1, 1, 1, -1, -1, -1, 1] { t = rig.turn(d, spacing: ms(20), at: t) }
    try rig.drain()
    XCTAssertEqual(rig.steps, [1, -1, 1, 1, -1, -1, -1, 1])
  }

  func testAHalfTurnAndBackIsNoDetent() {
    var decoder = QuadratureDecoder()
    let t = Instant.zero
    XCTAssertNil(decoder.edge(.a, active: true, at: t))
    XCTAssertNil(decoder.edge(.b, active: true, at: t))
    XCTAssertNil(decoder.edge(.b, active: false, at: t))
    XCTAssertNil(decoder.edge(.a, active: false, at: t))
    XCTAssertEqual(decoder.detents, 0)
  }

  func testBounceAtTheDetentBoundaryReportsOnce() {
    var decoder = QuadratureDecoder()
    let t = Instant.zero
    _ = decoder.edge(.a, active: true, at: t)
    _ = decoder.edge(.b, active: true, at: t)
    _ = decoder.edge(.a, active: false, at: t)
    var reported: [Int] = []
    // The last contact chatters as it reaches the rest position.
    for active in [false, true, false, true, false] {
      if let d = decoder.edge(.b, active: active, at: t) { reported.append(d.steps) }
    }
    XCTAssertEqual(reported, [1])
  }

  func testInvertedCountsTheOtherWay() throws {
    let rig = try EncoderRig(inverted: true)
    let back = rig.turn(3, spacing: ms(10))
    rig.turn(-1, spacing: ms(10), at: back)
    try rig.drain()
    XCTAssertEqual(rig.steps, [-1, -1, -1, 1])
  }

  func testTwoAndOneTransitionsPerDetent() throws {
    for n in [2, 1] {
      let rig = try EncoderRig(transitionsPerDetent: n)
      let back = rig.turn(7, spacing: ms(4))
      rig.turn(-3, spacing: ms(4), at: back)
      try rig.drain()
      XCTAssertEqual(rig.steps, Array(repeating: 1, count: 7) + Array(repeating: -1, count: 3), "n=\(n)")
    }
  }

  func testAFourTransitionDecoderOnATwoTransitionEncoderCountsHalf() throws {
    // Wrong detent size is the classic fault: one detent per two clicks. Settings matter.
    let rig = try EncoderRig(transitionsPerDetent: 4)
    rig.chip.scheduleTurn(
      a: "GPIO17", b: "GPIO27", detents: 8, start: rig.clock.now, spacing: ms(5), transitionsPerDetent: 2)
    try rig.drain()
    XCTAssertEqual(rig.decoder.detents, 4)
  }

  func testAMissedEdgeContinuesTheLastDirection() {
    var decoder = QuadratureDecoder()
    let t = Instant.zero
    _ = decoder.edge(.a, active: true, at: t)  // state 1, forward
    // Both contacts change at once (an edge was lost): state 1 -> 3.
    XCTAssertNil(decoder.levels(a: false, b: true, at: t))
    XCTAssertEqual(decoder.skipped, 1)
    XCTAssertEqual(decoder.edge(.b, active: false, at: t)?.steps, 1)
  }

  func testStartingMidCycleAlignsToTheRestPosition() {
    // Started with A closed (state 1): three more forward transitions reach rest: one detent.
    var decoder = QuadratureDecoder(a: true, b: false)
    let t = Instant.zero
    XCTAssertNil(decoder.edge(.b, active: true, at: t))
    XCTAssertNil(decoder.edge(.a, active: false, at: t))
    XCTAssertEqual(decoder.edge(.b, active: false, at: t)?.steps, 1)
  }

  func testRepeatedLevelsAreIgnored() {
    var decoder = QuadratureDecoder()
    for _ in 0..<5 { XCTAssertNil(decoder.levels(a: false, b: false, at: .zero)) }
    XCTAssertEqual(decoder.transitions, 0)
  }
}

/// An encoder on a mock chip, read through its line request into a decoder, as the device does.
final class EncoderRig {
  let clock = VirtualClock(start: Instant(nanoseconds: 1_000_000_000))
  let chip: MockGPIOChip
  let lines: InputLines
  var decoder: QuadratureDecoder
  var detents: [Detent] = []

  init(transitionsPerDetent: Int = 4, inverted: Bool = false, seed: UInt64 = 1) throws {
    chip = MockGPIOChip.raspberryPiHeader(clock: clock, seed: seed)
    lines = try chip.requestInputs([InputLineSpec(line: "GPIO17"), InputLineSpec(line: "GPIO27")], consumer: "test")
    let levels = try lines.levels()
    decoder = QuadratureDecoder(
      transitionsPerDetent: transitionsPerDetent, inverted: inverted, a: levels[0], b: levels[1])
  }

  /// Schedules a turn starting at the current end of the script.
  @discardableResult
  func turn(_ detents: Int, spacing: Nanoseconds, bounce: Nanoseconds = 0, at start: Instant? = nil) -> Instant {
    chip.scheduleTurn(
      a: "GPIO17", b: "GPIO27", detents: detents, start: start ?? clock.now, spacing: spacing, bounce: bounce,
      transitionsPerDetent: decoder.transitionsPerDetent)
  }

  /// Runs the clock edge by edge until no edge is pending, feeding the decoder.
  func drain() throws {
    while let next = lines.nextEdgeTime {
      clock.advance(to: next)
      for edge in try lines.readEdges() {
        if let d = decoder.edge(edge.index == 0 ? .a : .b, active: edge.active, at: edge.timestamp) {
          detents.append(d)
        }
      }
    }
  }

  var steps: [Int] { detents.map(\.steps) }
}
