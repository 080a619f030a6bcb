import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

/// The passive buzzer on the device (`buzzer_kind = passive`): the tune of the mode that rang,
/// repeated until the press that acknowledges it, at the volume's duty, never left enabled; the
/// tick; and the active buzzer's desks untouched.
final class PassiveBuzzerTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func harness(_ change: (inout DeviceConfig) -> Void = { _ in }) throws -> DeviceHarness {
    var config = DeviceConfig()
    config.buzzerKind = .passive
    config.engine.presets[.focus] = seconds(5)
    config.engine.presets[.shortBreak] = seconds(5)
    change(&config)
    let h = try DeviceHarness(directory: directory, config: config)
    h.device.start()
    return h
  }

  /// The notes (period in ns, or nil when disabled) the PWM was given after `from`.
  func notes(_ pwm: RecordingPWM, from: Instant, to: Instant) -> [(Instant, Int64?)] {
    var period: Int64 = 0
    var out: [(Instant, Int64?)] = []
    for entry in pwm.entries {
      switch entry.write {
      case .period(let p): period = p
      case .dutyCycle: break
      case .enable(let on):
        if entry.at >= from && entry.at < to { out.append((entry.at, on ? period : nil)) }
      }
    }
    return out
  }

  func testTheAlarmPlaysItsTuneUntilThePressThatAcknowledgesIt() throws {
    let h = try harness()
    let pwm = h.hardware.pwm
    let start = h.clock.now
    h.press(h.config.buttonStart, at: ms(500))
    h.run(for: seconds(12))
    XCTAssertEqual(h.device.state.phase, .ringing)
    let rang = start + ms(500) + seconds(5)
    // What sounded from the ring is the chime, note for note, on the one loop's deadlines.
    var player = MelodyPlayer()
    player.start(h.config.alarmTune, gap: MelodyPlayer.alarmGap, at: rang)
    var expected: [(Instant, Int64?)] = []
    var t = rang
    var last: Int?? = .none
    while t < h.clock.now {
      let pitch = player.pitch(at: t)
      if last.map({ $0 != pitch }) ?? true {
        expected.append((t, pitch.map { PWMPlan.nanoseconds(frequencyHz: Tune.frequency(midi: $0), duty: 0.5).period }))
        last = .some(pitch)
      }
      t = player.nextChange(after: t) ?? h.clock.now
    }
    let heard = notes(pwm, from: rang - ms(100), to: h.clock.now)
    XCTAssertGreaterThan(heard.count, 10, "two passes and more")
    XCTAssertEqual(heard.map(\.0), expected.map(\.0))
    XCTAssertEqual(heard.map(\.1), expected.map(\.1))
    // The press that acknowledges it silences the PWM and nothing sounds after it.
    let press = h.clock.now
    h.press(h.config.buttonStart)
    h.run(for: seconds(3))
    XCTAssertNotEqual(h.device.state.phase, .ringing)
    XCTAssertFalse(pwm.sounding)
    let after = notes(pwm, from: press, to: h.clock.now)
    XCTAssertEqual(after.count, 1, "one write: enable=0")
    XCTAssertNil(after.first?.1)
    XCTAssertLessThanOrEqual(after[0].0 - press, ms(100))
    // The active buzzer's line was never driven.
    XCTAssertFalse(h.buzzerHistory.contains { $0.active })
  }

  func testEachModeRingsItsOwnTuneAtTheVolumesDuty() throws {
    let h = try harness {
      $0.volume = 3
      $0.breakTune = BuiltInTunes.named("ode")!
      $0.engine.autoStart = true
    }
    let pwm = h.hardware.pwm
    h.press(h.config.buttonStart, at: ms(500))
    h.run(for: seconds(7))
    h.press(h.config.buttonStart)  // acknowledges; auto_start starts the break
    h.run(for: seconds(7))
    XCTAssertEqual(h.device.state.phase, .ringing)
    XCTAssertEqual(h.device.state.mode, .shortBreak)
    let periods = pwm.entries.compactMap { if case .period(let p) = $0.write { return p } else { return nil } }
    let first = { (tune: Tune) in
      PWMPlan.nanoseconds(frequencyHz: tune.notes.first { $0.midi != nil }!.frequency!, duty: 0.5).period
    }
    XCTAssertEqual(periods.first, first(BuiltInTunes.named("chime")!))
    XCTAssertTrue(periods.contains(first(BuiltInTunes.named("ode")!)))
    // Each note sounds at the volume's share of its period.
    var period: Int64 = 0
    var duty: Int64 = 0
    for entry in pwm.entries {
      switch entry.write {
      case .period(let p): period = p
      case .dutyCycle(let d): duty = d
      case .enable(let on):
        if on { XCTAssertEqual(Double(duty) / Double(period), Volume.duty(3), accuracy: 0.001) }
      }
    }
  }

  func testShutdownLeavesThePWMDisabledAndReleased() throws {
    let h = try harness()
    h.press(h.config.buttonStart, at: ms(500))
    h.run(for: seconds(6) + ms(10))
    XCTAssertEqual(h.device.state.phase, .ringing)
    XCTAssertTrue(h.hardware.pwm.sounding)
    h.device.shutdown()
    XCTAssertFalse(h.hardware.pwm.sounding)
    XCTAssertTrue(h.hardware.pwm.released)
    XCTAssertEqual(h.hardware.pwm.entries.last?.write, .enable(false))
  }

  func testTheTickSoundsEachSecondOfAFocusAndFadeOnlyItsFirstMinute() throws {
    for (tick, focus, count) in [(Tick.on, seconds(5), 4), (.fade, seconds(90), 60), (.off, seconds(5), 0)] {
      directory = try DeviceHarness.temporaryDirectory()
      let h = try harness {
        $0.tick = tick
        $0.engine.presets[.focus] = focus
      }
      let start = h.clock.now + ms(500)
      h.press(h.config.buttonStart, at: ms(500))
      h.run(for: ms(500) + focus - ms(1))
      let ticks = h.hardware.pwm.entries.filter { $0.write == .enable(true) && $0.at > start }
      XCTAssertEqual(ticks.count, count, "\(tick)")
      // Each on a whole second of the focus (from the press's edge), at the lowest volume.
      for (i, entry) in ticks.enumerated() {
        XCTAssertEqual(entry.at - start, seconds(Int64(i + 1)), "\(tick) tick \(i)")
      }
      if count > 0 { XCTAssertTrue(h.hardware.pwm.entries.contains { $0.write == .dutyCycle(2_389) }) }
    }
  }

  /// The tunes, the volume and the tick are settings ctl and the page change (the overlay, kept
  /// over a restart); a bad tune is refused as the config file refuses it; the next alarm plays
  /// what was set.
  func testTheSoundKeysAreSetKeptAndPlayed() throws {
    do {
      let h = try harness()
      _ = try h.device.settingsAnswer(.configSet(key: "alarm_tune", value: "mine:d=4,o=7,b=120:a#,a#")).get()
      _ = try h.device.settingsAnswer(.configSet(key: "volume", value: "10")).get()
      _ = try h.device.settingsAnswer(.configSet(key: "tick", value: "fade")).get()
      guard case .failure(let refusal) = h.device.settingsAnswer(.configSet(key: "egg_tune", value: "x:d=4:c,h#"))
      else { return XCTFail("a bad tune taken") }
      XCTAssertTrue(
        refusal.message.hasPrefix(
          "bad value 'x:d=4:c,h#' for 'egg_tune': at character 10: expected a sharp only on c, d, f, g or a"),
        refusal.message)
      h.device.step()
      h.device.shutdown()
    }
    let h = try harness()
    XCTAssertEqual(h.device.config.alarmTune.source, "mine:d=4,o=7,b=120:a#,a#")
    XCTAssertEqual(h.device.config.tick, .fade)
    h.press(h.config.buttonStart, at: ms(500))
    h.run(for: seconds(6))
    XCTAssertEqual(h.device.state.phase, .ringing)
    // A#7: 3729.31 Hz, at volume 10's duty (a half).
    let (period, duty) = PWMPlan.nanoseconds(frequencyHz: Tune.frequency(midi: 106), duty: 0.5)
    XCTAssertTrue(h.hardware.pwm.entries.contains { $0.write == .period(period) })
    XCTAssertTrue(h.hardware.pwm.entries.contains { $0.write == .dutyCycle(duty) })
  }

  /// The notes reach the observer behind the control socket's server (the simulator's panel).
  final class Notes: DeviceObserver {
    var notes: [Int?] = []
    func noteChanged(_ midi: Int?, at: Instant) { notes.append(midi) }
    func stateChanged(_ state: EngineState, at: Instant) {}
    func frameFlushed(bytes: Int, shown: String, at: Instant) {}
    func buzzerChanged(_ on: Bool, at: Instant) {}
    func recorded(_ entry: HistoryEntry, at: Instant) {}
  }

  func testTheNotesReachTheObserverBehindTheControlServer() throws {
    var config = DeviceConfig()
    config.buzzerKind = .passive
    config.engine.presets[.focus] = seconds(5)
    let f = try ControlFixture(config: config)
    let notes = Notes()
    f.server.next = notes
    f.h.press(f.h.config.buttonStart, at: ms(500))
    f.h.run(for: seconds(7))
    XCTAssertEqual(Array(notes.notes.prefix(4)), [84, nil, 88, nil], "the chime: C6, E6")
  }

  /// On an active buzzer the tick is a 2 ms beep at each whole second of the focus.
  func testTheTickOnAnActiveBuzzerIsAShortBeep() throws {
    let h = try harness {
      $0.buzzerKind = .active
      $0.tick = .on
    }
    let start = h.clock.now + ms(500)
    h.press(h.config.buttonStart, at: ms(500))
    h.run(for: ms(500) + seconds(5) - ms(1))
    let edges = h.buzzerHistory.filter { $0.time > start }.map { ($0.time - start, $0.active) }
    XCTAssertEqual(edges.map(\.0), [1, 2, 3, 4].flatMap { [seconds($0), seconds($0) + ms(2)] })
    XCTAssertEqual(edges.map(\.1), [true, false, true, false, true, false, true, false])
    XCTAssertEqual(h.hardware.pwm.entries, [])
  }

  /// Active desks, the default: the PWM is never touched.
  func testAnActiveBuzzerDeskNeverTouchesThePWM() throws {
    let h = try harness { $0.buzzerKind = .active }
    h.press(h.config.buttonStart, at: ms(500))
    h.run(for: seconds(8))
    XCTAssertTrue(h.buzzerHistory.contains { $0.active })
    XCTAssertEqual(h.hardware.pwm.entries, [])
  }
}
