import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

final class MockGPIOChipTests: XCTestCase {
  private let clock = VirtualClock(start: Instant(nanoseconds: 1_000_000))

  func testEdgesAreDeliveredWhenTheirTimeComesWithActiveLowApplied() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let lines = try chip.requestInputs(
      [InputLineSpec(line: "GPIO22"), InputLineSpec(line: "24", activeLow: false)], consumer: "pomodoro")
    XCTAssertEqual(try lines.levels(), [false, true])  // pulled up: inactive low-active, active high-active
    let t = clock.now + ms(10)
    chip.schedule("GPIO22", high: false, at: t)
    chip.schedule("GPIO24", high: false, at: t + ms(5))
    XCTAssertEqual(lines.nextEdgeTime, t)
    XCTAssertEqual(try lines.readEdges(), [])
    clock.advance(to: t)
    XCTAssertEqual(try lines.readEdges(), [LineEdge(index: 0, active: true, timestamp: t)])
    XCTAssertEqual(lines.nextEdgeTime, t + ms(5))
    clock.advance(by: seconds(1))
    XCTAssertEqual(try lines.readEdges(), [LineEdge(index: 1, active: false, timestamp: t + ms(5))])
    XCTAssertEqual(try lines.levels(), [true, false])
    XCTAssertNil(lines.nextEdgeTime)
  }

  func testEdgesOfSeveralLinesComeOldestFirst() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let lines = try chip.requestInputs([InputLineSpec(line: "GPIO1"), InputLineSpec(line: "GPIO2")], consumer: "x")
    chip.schedule("GPIO2", high: false, at: clock.now + 3)
    chip.schedule("GPIO1", high: false, at: clock.now + 2)
    chip.schedule("GPIO1", high: true, at: clock.now + 4)
    clock.advance(by: 10)
    XCTAssertEqual(try lines.readEdges().map(\.index), [0, 1, 0])
  }

  func testSameLevelIsNoEdge() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let lines = try chip.requestInputs([InputLineSpec(line: "GPIO5")], consumer: "x")
    chip.schedule("GPIO5", high: true, at: clock.now + 1)  // already high
    clock.advance(by: 5)
    XCTAssertEqual(try lines.readEdges(), [])
  }

  func testBounceIsReproducibleFromTheSeedAndSettlesOnTheLevel() throws {
    func script(seed: UInt64) throws -> [LineEdge] {
      let clock = VirtualClock()
      let chip = MockGPIOChip.raspberryPiHeader(clock: clock, seed: seed)
      let lines = try chip.requestInputs([InputLineSpec(line: "GPIO23")], consumer: "x")
      chip.schedulePress("GPIO23", at: .zero + ms(1), holding: ms(50), bounce: ms(2))
      clock.advance(by: seconds(1))
      return try lines.readEdges()
    }
    let a = try script(seed: 7)
    XCTAssertEqual(a, try script(seed: 7))
    XCTAssertNotEqual(a, try script(seed: 8))
    XCTAssertGreaterThan(a.count, 2)
    XCTAssertEqual(a.last?.active, false)
    XCTAssertTrue(a.allSatisfy { $0.timestamp <= .zero + ms(53) })
    // Levels alternate: every edge is a real change.
    XCTAssertTrue(zip(a, a.dropFirst()).allSatisfy { $0.active != $1.active })
  }

  func testEdgesBeforeTheRequestAreLevelsNotEvents() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    chip.schedule("GPIO23", high: false, at: clock.now + 1)
    clock.advance(by: 2)
    let lines = try chip.requestInputs([InputLineSpec(line: "GPIO23")], consumer: "x")
    XCTAssertEqual(try lines.readEdges(), [])
    XCTAssertEqual(try lines.levels(), [true])
  }

  func testBusyLineNamesItsConsumer() {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    chip.markBusy("GPIO17", consumer: "gpiozero")
    XCTAssertThrowsError(try chip.requestInputs([InputLineSpec(line: "GPIO17")], consumer: "pomodoro")) {
      XCTAssertEqual($0 as? GPIOError, .lineBusy(chip: "mock-gpiochip0", line: "GPIO17", consumer: "gpiozero"))
      XCTAssertTrue("\($0)".contains("held by 'gpiozero'"))
    }
    XCTAssertThrowsError(try chip.requestOutput(line: "GPIO17", activeHigh: true, consumer: "pomodoro"))
  }

  func testOurOwnRequestHoldsTheLineUntilReleased() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let lines = try chip.requestInputs([InputLineSpec(line: "GPIO17")], consumer: "pomodoro")
    XCTAssertEqual(chip.holder(of: "GPIO17"), "pomodoro")
    XCTAssertThrowsError(try chip.requestInputs([InputLineSpec(line: "GPIO17")], consumer: "other")) {
      XCTAssertEqual($0 as? GPIOError, .lineBusy(chip: "mock-gpiochip0", line: "GPIO17", consumer: "pomodoro"))
    }
    lines.release()
    lines.release()
    XCTAssertNil(chip.holder(of: "GPIO17"))
    XCTAssertNoThrow(try chip.requestInputs([InputLineSpec(line: "GPIO17")], consumer: "other"))
  }

  func testMissingChipAndUnknownLine() {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    XCTAssertThrowsError(try chip.requestInputs([InputLineSpec(line: "GPIO99")], consumer: "x")) {
      XCTAssertEqual($0 as? GPIOError, .lineNotFound(chip: "mock-gpiochip0", line: "GPIO99"))
    }
    XCTAssertThrowsError(try chip.requestOutput(line: "28", activeHigh: true, consumer: "x"))
    chip.isPresent = false
    XCTAssertThrowsError(try chip.requestOutput(line: "GPIO25", activeHigh: true, consumer: "x")) {
      XCTAssertEqual($0 as? GPIOError, .chipNotFound("mock-gpiochip0"))
    }
  }

  func testReadErrorsAreThrownFromReads() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let lines = try chip.requestInputs([InputLineSpec(line: "GPIO17")], consumer: "x")
    chip.readError = .io("line gone")
    XCTAssertThrowsError(try lines.readEdges())
    XCTAssertThrowsError(try lines.levels())
  }

  func testOutputsAreRecordedWithTimeAndPolarity() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let out = try chip.requestOutput(line: "GPIO25", activeHigh: true, consumer: "pomodoro")
    clock.advance(by: ms(3))
    try out.set(true)
    out.release()
    XCTAssertThrowsError(try out.set(true))
    XCTAssertEqual(
      chip.outputHistory("GPIO25"),
      [
        .init(time: clock.now - ms(3), active: false, high: false),
        .init(time: clock.now, active: true, high: true),
        .init(time: clock.now, active: false, high: false),
      ])
    XCTAssertFalse(chip.physicalLevel("GPIO25"))
  }

  func testScheduledTurnEndsAtRestAndReturnsItsEnd() throws {
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let end = chip.scheduleTurn(a: "GPIO17", b: "GPIO27", detents: -3, start: clock.now, spacing: ms(10))
    XCTAssertEqual(end, clock.now + ms(30))
    clock.advance(to: end)
    XCTAssertTrue(chip.physicalLevel("GPIO17"))
    XCTAssertTrue(chip.physicalLevel("GPIO27"))
  }
}

/// A long script must not cost memory in its length: read edges are dropped.
final class MockGPIOChipMemoryTests: XCTestCase {
  func testReadEdgesAreDroppedAndLevelsStayRight() throws {
    let clock = VirtualClock(start: Instant(nanoseconds: 1_000_000))
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let lines = try chip.requestInputs([InputLineSpec(line: "GPIO23")], consumer: "pomodoro")
    var most = 0
    var presses = 0
    for _ in 0..<10_000 {
      let release = chip.schedulePress("GPIO23", at: clock.now + ms(1), holding: ms(5))
      clock.advance(to: release - ms(1))
      presses += try lines.readEdges().filter(\.active).count
      XCTAssertFalse(chip.physicalLevel("GPIO23"), "held down (physically low)")
      clock.advance(to: release + ms(1))
      _ = try lines.readEdges()
      most = max(most, chip.keptEdgeCount("GPIO23"))
    }
    XCTAssertEqual(presses, 10_000, "every press delivered")
    XCTAssertTrue(chip.physicalLevel("GPIO23"), "released (pulled up)")
    XCTAssertEqual(try lines.levels(), [false])
    XCTAssertLessThanOrEqual(most, 2 * 256 + 2, "20,000 edges scheduled, a few hundred kept at most")
  }

  func testOutputHistoryIsBounded() throws {
    let clock = VirtualClock()
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    let buzzer = try chip.requestOutput(line: "GPIO25", activeHigh: true, consumer: "pomodoro")
    for i in 0..<(MockGPIOChip.outputHistoryLimit + 10) {
      clock.advance(by: 1)
      try buzzer.set(i % 2 == 0)
    }
    let history = chip.outputHistory("GPIO25")
    XCTAssertLessThanOrEqual(history.count, MockGPIOChip.outputHistoryLimit)
    XCTAssertEqual(history.last?.time, clock.now, "the newest write is kept")
    XCTAssertEqual(history.last?.active, (MockGPIOChip.outputHistoryLimit + 9) % 2 == 0)
  }
}
