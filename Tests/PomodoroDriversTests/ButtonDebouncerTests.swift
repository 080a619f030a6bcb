import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

/// A button on a mock chip, run as the device's loop runs it: wake at the next edge or the
/// debouncer's deadline, whichever comes first.
private final class ButtonRig {
  let clock = VirtualClock(start: Instant(nanoseconds: 5_000_000_000))
  let chip: MockGPIOChip
  let lines: InputLines
  var debouncer: ButtonDebouncer
  var events: [ButtonEvent] = []

  init(seed: UInt64 = 1, stableFor: Nanoseconds = ms(20), longPress: Nanoseconds = seconds(1)) throws {
    chip = MockGPIOChip.raspberryPiHeader(clock: clock, seed: seed)
    lines = try chip.requestInputs([InputLineSpec(line: "GPIO23")], consumer: "test")
    debouncer = ButtonDebouncer(stableFor: stableFor, longPressAfter: longPress)
  }

  func run() throws {
    while true {
      let wake = [lines.nextEdgeTime, debouncer.nextDeadline].compactMap { $0 }.min()
      guard let wake else { return }
      clock.advance(to: wake)
      for edge in try lines.readEdges() { events += debouncer.edge(active: edge.active, at: edge.timestamp) }
      events += debouncer.advance(to: clock.now)
    }
  }

  var presses: Int { events.filter { if case .pressed = $0 { true } else { false } }.count }
  var releases: Int { events.filter { if case .released = $0 { true } else { false } }.count }
  var longPresses: Int { events.filter { if case .longPress = $0 { true } else { false } }.count }
}

final class ButtonDebouncerTests: XCTestCase {
  func testACleanPressAndRelease() throws {
    let rig = try ButtonRig()
    let t = rig.clock.now + ms(100)
    rig.chip.schedulePress("GPIO23", at: t, holding: ms(80))
    try rig.run()
    XCTAssertEqual(rig.events, [.pressed(at: t), .released(at: t + ms(80), held: ms(80))])
  }

  func testChatterNeverYieldsADoublePress() throws {
    for seed in 1...50 as ClosedRange<UInt64> {
      let rig = try ButtonRig(seed: seed)
      rig.chip.schedulePress("GPIO23", at: rig.clock.now + ms(10), holding: ms(60), bounce: ms(5))
      try rig.run()
      XCTAssertEqual(rig.presses, 1, "seed \(seed)")
      XCTAssertEqual(rig.releases, 1, "seed \(seed)")
      XCTAssertEqual(rig.longPresses, 0, "seed \(seed)")
    }
  }

  func testReleaseBounceNeverYieldsAPress() throws {
    let rig = try ButtonRig()
    let t = rig.clock.now + ms(10)
    rig.chip.schedule("GPIO23", high: false, at: t)
    // Release with 15 ms of chatter: each closed blip is shorter than 20 ms.
    rig.chip.schedule("GPIO23", high: true, at: t + ms(200), bounce: ms(15))
    try rig.run()
    XCTAssertEqual(rig.presses, 1)
    XCTAssertEqual(rig.releases, 1)
    XCTAssertEqual(rig.events.first, .pressed(at: t))
  }

  func testAGlitchShorterThanTheStablePeriodIsIgnored() throws {
    let rig = try ButtonRig()
    let t = rig.clock.now + ms(10)
    rig.chip.schedulePress("GPIO23", at: t, holding: ms(19))
    try rig.run()
    XCTAssertEqual(rig.events, [])
  }

  func testTheStablePeriodIsConfigurable() throws {
    let rig = try ButtonRig(stableFor: ms(5))
    let t = rig.clock.now + ms(10)
    rig.chip.schedulePress("GPIO23", at: t, holding: ms(8))
    try rig.run()
    XCTAssertEqual(rig.events, [.pressed(at: t), .released(at: t + ms(8), held: ms(8))])
  }

  func testLongPressIsReportedOnceAtItsInstantThenTheRelease() throws {
    let rig = try ButtonRig()
    let t = rig.clock.now + ms(10)
    rig.chip.scheduleHold("GPIO23", at: t, holding: ms(2500), bounce: ms(3))
    try rig.run()
    XCTAssertEqual(rig.presses, 1)
    XCTAssertEqual(rig.longPresses, 1)
    guard rig.events.count == 3, case .pressed(let p) = rig.events[0], case .longPress(let l) = rig.events[1],
      case .released(let r, let held) = rig.events[2]
    else { return XCTFail("events \(rig.events)") }
    XCTAssertEqual(l, p + seconds(1))
    XCTAssertEqual(held, r - p)
  }

  func testLongPressThresholdIsConfigurable() throws {
    let rig = try ButtonRig(longPress: ms(400))
    rig.chip.schedulePress("GPIO23", at: rig.clock.now + ms(10), holding: ms(500))
    try rig.run()
    XCTAssertEqual(rig.longPresses, 1)
  }

  func testDeadlinesAreNilWhenNothingCanHappen() {
    var d = ButtonDebouncer()
    XCTAssertNil(d.nextDeadline)
    _ = d.edge(active: true, at: Instant(nanoseconds: 0))
    XCTAssertEqual(d.nextDeadline, Instant(nanoseconds: 0) + ms(20))
    XCTAssertEqual(d.advance(to: Instant(nanoseconds: 0) + ms(20)), [.pressed(at: Instant(nanoseconds: 0))])
    XCTAssertEqual(d.nextDeadline, Instant(nanoseconds: 0) + seconds(1))
    _ = d.advance(to: Instant(nanoseconds: 0) + seconds(1))
    XCTAssertNil(d.nextDeadline)
  }

  func testAnEdgeAfterAMissedDeadlineStillReportsWhatSettledFirst() {
    var d = ButtonDebouncer()
    _ = d.edge(active: true, at: .zero)
    // Nobody woke at the deadline: the release edge reports the press first.
    XCTAssertEqual(d.edge(active: false, at: .zero + ms(50)), [.pressed(at: .zero)])
    XCTAssertEqual(d.advance(to: .zero + ms(70)), [.released(at: .zero + ms(50), held: ms(50))])
  }

  func testAButtonHeldAtStartUpReportsNoPress() {
    var d = ButtonDebouncer(initiallyPressed: true)
    XCTAssertEqual(d.advance(to: .zero + seconds(5)), [])
    _ = d.edge(active: false, at: .zero + seconds(5))
    XCTAssertEqual(d.advance(to: .zero + seconds(6)), [.released(at: .zero + seconds(5), held: 0)])
  }
}
