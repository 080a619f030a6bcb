import PomodoroCore
import XCTest

/// What each step did, in the words hooks and watch lines use (`StateChange`): a cancel and a
/// skip, a countdown that rang and a flow that was ended, a snooze and an auto-start told apart.
final class StateChangeTests: XCTestCase {
  /// The changes of each event sent, in order.
  struct Recorder {
    var h: Harness
    var said: [[StateChange]] = []

    init(_ settings: EngineSettings = EngineSettings()) { h = Harness(settings: settings) }

    mutating func send(_ event: Event) -> [StateChange] {
      let before = h.state
      let (next, effects) = Engine.step(before, event, now: h.now)
      h.state = next
      return StateChange.of(event, from: before, to: next, effects: effects)
    }

    /// Runs to `span` later, tick by tick as the shell would, and gives every change on the way.
    mutating func advance(_ span: Nanoseconds) -> [StateChange] {
      let end = h.now + span
      var all: [StateChange] = []
      while let wake = Engine.nextWake(h.state, now: h.now), wake <= end {
        h.now = max(h.now, wake)
        all += send(.tick)
      }
      h.now = end
      return all
    }
  }

  func testATimerStartsPausesResumesRingsAndIsAcknowledged() {
    var r = Recorder()
    XCTAssertEqual(r.send(.press(.start)), [.started])
    XCTAssertEqual(r.send(.press(.start)), [.paused])
    XCTAssertEqual(r.send(.press(.start)), [.resumed])
    XCTAssertEqual(r.advance(minutes(25) + seconds(1)), [.completed, .ringing])
    XCTAssertEqual(r.send(.press(.cancel)), [.acknowledged])
    XCTAssertEqual(r.h.state.phase, .idle)
  }

  func testACancelAndASkipAreToldApart() {
    var r = Recorder()
    _ = r.send(.press(.start))
    XCTAssertEqual(r.send(.press(.cancel)), [.cancelled])
    _ = r.send(.press(.start))
    XCTAssertEqual(r.send(.skip), [.skipped], "a skip ends the timer as a cancel does, and is said as a skip")
    XCTAssertEqual(r.send(.skip), [.skipped], "the picker moved on")
  }

  func testASnoozeResumesAndAutoStartStarts() {
    var r = Recorder()
    _ = r.send(.press(.start))
    _ = r.advance(minutes(25) + seconds(1))
    XCTAssertEqual(r.send(.extend(minutes(1))), [.acknowledged, .resumed])
    var auto = EngineSettings()
    auto.autoStart = true
    var a = Recorder(auto)
    _ = a.send(.press(.start))
    _ = a.advance(minutes(25) + seconds(1))
    XCTAssertEqual(a.send(.press(.start)), [.acknowledged, .started])
  }

  func testAFlowEndedIsCompletedWithoutRinging() {
    var r = Recorder()
    _ = r.send(.select(.flow))
    XCTAssertEqual(r.send(.press(.start)), [.started])
    _ = r.advance(minutes(30))
    XCTAssertEqual(r.send(.press(.cancel)), [.completed])
  }

  func testALabelAndAnInterruption() throws {
    var r = Recorder()
    XCTAssertEqual(r.send(.setLabel(try SessionLabel.parse("Write").get())), [.label])
    _ = r.send(.press(.start))
    XCTAssertEqual(r.send(.interrupt(.external)), [.interrupted])
    XCTAssertEqual(r.send(.tick), [])
  }
}
