import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem
import XCTest

/// The device's small values, each alone (issue 45): where a press goes (`PressRouter`), which
/// states are news (`ChangeFilter`), when quiet hours are looked at (`QuietWatch`), and the one
/// sound interface both buzzers answer (`Voice`, `DeviceSound`).
final class DeviceValuesTests: XCTestCase {
  let idle = EngineState(now: .zero)

  // MARK: PressRouter

  func testAPressActsOnceAtPressDownWhereShortAndLongMeanTheSame() throws {
    let button = try XCTUnwrap(Button.allCases.first { Engine.actsAtPressDown($0, in: idle) })
    var router = PressRouter()
    let down = router.route(.buttonDown(button), waking: false, state: idle)
    XCTAssertEqual(down, PressRouter.Route(pressedDown: true, event: .press(button)))
    XCTAssertEqual(router.route(.engine(.press(button)), waking: false, state: idle), PressRouter.Route())
    XCTAssertEqual(router.route(.engine(.longPress(button)), waking: false, state: idle), PressRouter.Route())
    // The next press of the same button acts again.
    XCTAssertEqual(router.route(.buttonDown(button), waking: false, state: idle).event, .press(button))
  }

  func testAPressThatMustTellShortFromLongActsAtItsEnd() throws {
    let button = try XCTUnwrap(Button.allCases.first { !Engine.actsAtPressDown($0, in: idle) })
    var router = PressRouter()
    XCTAssertEqual(router.route(.buttonDown(button), waking: false, state: idle), PressRouter.Route(pressedDown: true))
    XCTAssertEqual(router.route(.engine(.longPress(button)), waking: false, state: idle).event, .longPress(button))
  }

  func testAnInputThatWakesThePanelDoesNothingElse() {
    var router = PressRouter()
    for button in Button.allCases {
      XCTAssertEqual(router.route(.buttonDown(button), waking: true, state: idle), PressRouter.Route(pressedDown: true))
      XCTAssertNil(router.route(.engine(.press(button)), waking: false, state: idle).event, "\(button)")
    }
    XCTAssertNil(router.route(.engine(.turn(1)), waking: true, state: idle).event)
    XCTAssertEqual(router.route(.engine(.turn(1)), waking: false, state: idle).event, .turn(1))
  }

  // MARK: ChangeFilter

  func testAChangeIsSaidToAllAndWhatIsOnlyShownToWatchers() {
    var filter = ChangeFilter()
    XCTAssertEqual(filter.news(idle), .changed, "the first state is news")
    XCTAssertNil(filter.news(idle))
    let counted = Engine.step(idle, .setCompletedToday(3), now: .zero).0
    XCTAssertEqual(filter.news(counted), .shown, "today's count is shown, not journaled")
    XCTAssertNil(filter.news(counted))
    let started = Engine.step(counted, .press(.start), now: .zero).0
    XCTAssertNotEqual(started.phase, counted.phase)
    XCTAssertEqual(filter.news(started), .changed)
  }

  // MARK: QuietWatch

  /// 2026-01-15 12:00 UTC: far from any change of summer time, whatever TZ the host has.
  let noon = WallTime(epochSeconds: 1_768_478_400, synced: true)

  func testQuietHoursBeginAtTheirBoundaryAndAreLookedAtOnlyWhenDue() throws {
    let minute = noon.localSecondOfDay / 60
    let hours = try XCTUnwrap(QuietHours(start: (minute + 10) % 1440, end: (minute + 70) % 1440))
    var wall = noon
    var looks = 0
    let clock = { () -> WallTime in
      looks += 1
      return wall
    }
    var watch = QuietWatch()
    XCTAssertNil(watch.check(hours, at: .zero, wallClock: clock))
    XCTAssertEqual(looks, 1)
    XCTAssertNil(watch.since)
    // Within the minute, before the boundary: not looked at.
    XCTAssertNil(watch.check(hours, at: .zero + seconds(30), wallClock: clock))
    XCTAssertEqual(looks, 1)
    let boundary = try XCTUnwrap(watch.boundary)
    XCTAssertEqual(boundary, Instant.zero + seconds(600 - Int64(noon.localSecondOfDay % 60)))
    wall.epochSeconds += (boundary - .zero) / seconds(1)
    XCTAssertEqual(watch.check(hours, at: boundary, wallClock: clock), .began(hours))
    XCTAssertEqual(watch.since, boundary)
    XCTAssertEqual(
      QuietWatch.text(.began(hours), panel: .off),
      "quiet hours \(hours.text) begin: the picker's panel goes dark, no click")
    // Asked to look again (a new config, a clock set): at once.
    watch.lookAgain()
    _ = watch.check(hours, at: boundary + seconds(1), wallClock: clock)
    XCTAssertEqual(looks, 3)
    XCTAssertEqual(watch.check(nil, at: boundary + seconds(2), wallClock: clock), .turnedOff)
    XCTAssertNil(watch.since)
    XCTAssertNil(watch.boundary)
  }

  // MARK: Voice

  final class RecordingLine: OutputLine {
    var levels: [Bool] = []
    func set(_ active: Bool) throws { levels.append(active) }
    func release() {}
  }

  /// Both buzzers through the one interface: the alarm sounds until stopped, the tick never
  /// plays over it, and `drive` says what changed.
  func testBothBuzzersAnswerTheOneInterface() throws {
    let line = RecordingLine()
    let pwm = RecordingPWM(now: { .zero })
    let tune = try XCTUnwrap(BuiltInTunes.named(BuiltInTunes.all[0].name))
    for var voice in [LineVoice(line), ToneVoice(pwm)] as [any Voice] {
      let name = "\(type(of: voice))"
      XCTAssertFalse(voice.alarmSounding, name)
      voice.alarm(tune, at: .zero)
      XCTAssertTrue(voice.alarmSounding, name)
      let started = try voice.drive(volume: 5, at: .zero)
      XCTAssertTrue(started.contains(.sounding(true)), "\(name): \(started)")
      XCTAssertNotNil(voice.nextChange(after: .zero), name)
      voice.stop()
      XCTAssertFalse(voice.alarmSounding, name)
      XCTAssertEqual(try voice.drive(volume: 5, at: .zero + ms(1)).last, .sounding(false), name)
      voice.tick(due: .zero + ms(2), now: .zero + ms(2))
      XCTAssertFalse(voice.alarmSounding, "\(name): a tick is no alarm")
      XCTAssertEqual(try voice.drive(volume: 5, at: .zero + ms(2)).last, .sounding(true), name)
      try voice.silence()
      XCTAssertNil(voice.nextChange(after: .zero + ms(2)), name)
    }
    XCTAssertEqual(line.levels, [true, false, true, false])
    XCTAssertFalse(pwm.sounding)
  }

  func testTheClickNeverPlaysOverTheAlarm() throws {
    let line = RecordingLine()
    var sound = DeviceSound(LineVoice(line))
    sound.alarm(.focus, tunes: DeviceConfig(), at: .zero)
    sound.click(at: .zero + ms(10))
    XCTAssertTrue(sound.alarmSounding, "a click replaced the alarm")
    sound.stopAlarm()
    sound.click(at: .zero + ms(20))
    XCTAssertFalse(sound.alarmSounding)
    _ = sound.drive(volume: 5, at: .zero + ms(20), log: Log(sink: { _, _ in }))
    XCTAssertEqual(line.levels, [true], "the click sounds once the alarm has stopped")
  }
}
