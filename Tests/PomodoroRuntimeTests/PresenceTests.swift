import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// A presence sensor (issue 47 item 3): `PresenceWatch` alone (the line's level settled, away
/// after `away_after`, an input is someone there, the pause), then the device on mock hardware
/// (the panel dark and woken, `present` in the state, nothing without a sensor).
final class PresenceTests: XCTestCase {
  let idle = EngineState(now: .zero)

  var config: DeviceConfig {
    var c = DeviceConfig()
    c.presenceLine = "GPIO16"
    return c
  }

  func at(_ s: Int64) -> Instant { .zero + seconds(s) }

  /// The engine state after `sensed`'s events.
  func fed(_ state: EngineState, _ sensed: PresenceWatch.Sensed) -> EngineState {
    sensed.events.reduce(state) { Engine.step($0, $1.1, now: $1.0).0 }
  }

  func testWithoutALineItSaysNothingAndHushesOnlyQuietHours() {
    var watch = PresenceWatch()
    XCTAssertEqual(watch.take(.buttonDown(.start), at: at(1), quietSince: nil, config), false)
    let sensed = watch.advance(DeviceConfig(), state: idle, to: at(3600))
    XCTAssertNil(sensed.said)
    XCTAssertTrue(sensed.events.isEmpty, "no `present` without a sensor")
    XCTAssertNil(watch.hushed(nil, DeviceConfig()))
    XCTAssertEqual(watch.hushed(at(5), DeviceConfig()), at(5))
    XCTAssertNil(watch.nextChange(DeviceConfig()))
  }

  func testNobodySeenForAwayAfterIsAwayAndTheLineSeeingSomeoneWakesThePanel() throws {
    var watch = PresenceWatch()
    XCTAssertNil(watch.take(.presence(true), at: .zero, quietSince: nil, config), "the line's level is no touch")
    var state = fed(idle, watch.advance(config, state: idle, to: .zero))
    XCTAssertEqual(state.present, true, "someone at the start")
    // Nobody from 10 s: a glitch of someone shorter than the settle changes nothing.
    _ = watch.take(.presence(false), at: at(10), quietSince: nil, config)
    XCTAssertEqual(watch.nextChange(config), at(10) + PresenceWatch.settle)
    _ = watch.advance(config, state: state, to: at(10) + PresenceWatch.settle)
    _ = watch.take(.presence(true), at: at(60), quietSince: nil, config)
    _ = watch.take(.presence(false), at: at(60) + ms(20), quietSince: nil, config)
    XCTAssertEqual(watch.awaySince(config), at(10) + minutes(5), "away 5 minutes after the fall")
    XCTAssertEqual(watch.nextChange(config), at(310), "the glitch is gone before it settled")
    XCTAssertNil(watch.advance(config, state: state, to: at(61)).said)
    XCTAssertFalse(watch.silent(nil, config, at: at(309)))
    XCTAssertEqual(watch.hushed(nil, config), at(310), "the panel's care schedules the dark")
    let away = watch.advance(config, state: state, to: at(310))
    XCTAssertEqual(away.said, "away: nobody seen for 5m; the picker's panel goes dark, no click")
    XCTAssertNil(away.woke)
    state = fed(state, away)
    XCTAssertEqual(state.present, false)
    XCTAssertEqual(state.phase, .idle)
    XCTAssertTrue(watch.silent(nil, config, at: at(311)))
    XCTAssertNil(watch.nextChange(config), "nothing to wake for while away")
    // Someone seen: the panel wakes at the edge's instant, once it has settled.
    _ = watch.take(.presence(true), at: at(900), quietSince: nil, config)
    XCTAssertNil(watch.advance(config, state: state, to: at(900) + ms(50)).said)
    let back = watch.advance(config, state: state, to: at(900) + PresenceWatch.settle)
    XCTAssertEqual(back.said, "someone is here again: the panel wakes")
    XCTAssertEqual(back.woke, at(900))
    state = fed(state, back)
    XCTAssertEqual(state.present, true)
    XCTAssertNil(watch.hushed(nil, config))
  }

  func testAnInputIsSomeoneThereItsClickSilentWhenItCameWhileAway() {
    var watch = PresenceWatch()
    _ = watch.take(.presence(false), at: .zero, quietSince: nil, config)
    var state = fed(idle, watch.advance(config, state: idle, to: at(300)))
    XCTAssertEqual(state.present, false)
    XCTAssertEqual(
      watch.take(.buttonDown(.start), at: at(400), quietSince: nil, config), true, "away: the waking press is silent")
    let back = watch.advance(config, state: state, to: at(400))
    XCTAssertEqual(back.said, "someone is here again (an input)")
    XCTAssertNil(back.woke, "the input woke the panel itself")
    state = fed(state, back)
    XCTAssertEqual(state.present, true)
    XCTAssertEqual(watch.take(.buttonDown(.start), at: at(401), quietSince: nil, config), false)
    XCTAssertEqual(watch.take(.buttonDown(.start), at: at(402), quietSince: at(0), config), true, "quiet hours")
    XCTAssertEqual(watch.awaySince(config), at(402) + minutes(5), "the sensor still sees nobody: away again later")
  }

  func testPauseWhenAwayPausesAFocusRunningWhenAwayBeginsAndOnlyAlone() throws {
    var settings = config
    settings.pauseWhenAway = true
    let running = Engine.step(idle, .press(.start), now: .zero).0
    XCTAssertEqual(running.phase, .running)
    var watch = PresenceWatch()
    _ = watch.take(.presence(false), at: .zero, quietSince: nil, settings)
    let sensed = watch.advance(settings, state: running, to: at(301))
    XCTAssertEqual(
      sensed.said,
      "away: nobody seen for 5m; the picker's panel goes dark, no click; the focus pauses (pause_when_away)")
    XCTAssertEqual(sensed.events.map(\.0), [at(300), at(300)], "at the instant away began")
    let paused = fed(running, sensed)
    XCTAssertEqual(paused.phase, .paused)
    XCTAssertEqual(paused.remaining(at: at(301)), minutes(25) - minutes(5))
    // Off by default: the focus runs on.
    var plain = PresenceWatch()
    _ = plain.take(.presence(false), at: .zero, quietSince: nil, config)
    XCTAssertEqual(fed(running, plain.advance(config, state: running, to: at(301))).phase, .running)
    // A break is left running; so is a desk in a room (a pause there would be everyone's).
    var breakWatch = PresenceWatch()
    _ = breakWatch.take(.presence(false), at: .zero, quietSince: nil, settings)
    let long = Engine.step(Engine.step(idle, .select(.longBreak), now: .zero).0, .press(.start), now: .zero).0
    XCTAssertEqual(fed(long, breakWatch.advance(settings, state: long, to: at(301))).phase, .running)
    let inRoom = Engine.step(running, .setRoom(RoomIdentity(name: "team", desk: "desk-a")), now: .zero).0
    var roomWatch = PresenceWatch()
    _ = roomWatch.take(.presence(false), at: .zero, quietSince: nil, settings)
    XCTAssertFalse(
      roomWatch.advance(settings, state: inRoom, to: at(301)).events.contains { $0.1 == .press(.start) })
  }

  // MARK: The device

  func testTheDeviceGoesDarkWhenAwayWakesWhenSomeoneComesAndSaysPresent() throws {
    let harness = try DeviceHarness(directory: DeviceHarness.temporaryDirectory(), config: config, storing: false)
    harness.device.start()
    XCTAssertEqual(harness.device.state.present, true)
    harness.hardware.presence(false, at: harness.clock.now)
    harness.run(for: minutes(4))
    XCTAssertTrue(harness.device.look.on)
    harness.run(for: minutes(2))
    XCTAssertFalse(harness.device.look.on, "away: the picker's panel is dark")
    XCTAssertEqual(harness.device.state.present, false)
    XCTAssertTrue(harness.logLines.contains { $0.1.hasPrefix("away: nobody seen for 5m") })
    harness.hardware.presence(true, at: harness.clock.now)
    harness.run(for: ms(150))
    XCTAssertTrue(harness.device.look.on, "someone seen: lit at once, with no press")
    XCTAssertEqual(harness.device.look.contrast, config.contrast)
    XCTAssertEqual(harness.device.state.present, true)
    XCTAssertEqual(harness.device.state.phase, .idle, "the sensor never acts on the timer")
  }

  /// A sensor whose output is low while it sees someone (`presence_active = low`): the line is
  /// requested active low, so the same levels mean the same.
  func testASensorActiveLowMeansTheSame() throws {
    var low = config
    low.presenceActive = .low
    let harness = try DeviceHarness(directory: DeviceHarness.temporaryDirectory(), config: low, storing: false)
    XCTAssertFalse(harness.hardware.chip.physicalLevel("GPIO16"), "someone at the start: the line rests low")
    harness.device.start()
    XCTAssertEqual(harness.device.state.present, true)
    harness.hardware.presence(false, at: harness.clock.now)
    harness.run(for: minutes(6))
    XCTAssertTrue(harness.hardware.chip.physicalLevel("GPIO16"))
    XCTAssertEqual(harness.device.state.present, false)
    XCTAssertFalse(harness.device.look.on)
  }

  func testWithoutASensorTheStateHasNoPresentAndTheLinesAreTheFive() throws {
    let harness = try DeviceHarness(directory: DeviceHarness.temporaryDirectory(), storing: false)
    harness.device.start()
    harness.run(for: minutes(30))
    XCTAssertNil(harness.device.state.present)
    XCTAssertEqual(DeviceConfig().inputLines, DeviceLine.inputs)
    XCTAssertEqual(config.inputLines, DeviceLine.inputs + [.presence])
    XCTAssertNil(harness.hardware.chip.holder(of: "GPIO16"))
    let sensed = try DeviceHarness(directory: DeviceHarness.temporaryDirectory(), config: config, storing: false)
    XCTAssertEqual(sensed.hardware.chip.holder(of: "GPIO16"), LineRequests.consumer)
  }

  /// The presence line is a pin like the others: on the header, and on a pin of its own.
  func testThePresenceLineIsCheckedAsEveryPinIs() {
    XCTAssertThrowsError(
      try ConfigParser.parse("presence_line = GPIO23\n", file: "p.conf", pins: .raspberryPiHeader)
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "p.conf:1: 'presence_line' is on GPIO23, the pin 'button_start' has (by default); give each signal its own pin")
    }
    XCTAssertThrowsError(
      try ConfigParser.parse("presence_line = GPIO30\n", file: "p.conf", pins: .raspberryPiHeader)
    ) { error in
      XCTAssertTrue("\(error)".hasPrefix("p.conf:1: bad value 'GPIO30' for 'presence_line'"), "\(error)")
    }
    XCTAssertThrowsError(try ConfigParser.parse("presence_active = up\n", file: "p.conf")) { error in
      XCTAssertEqual("\(error)", "p.conf:1: bad value 'up' for 'presence_active'; expected high or low")
    }
  }
}
