import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroDrivers
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// SIGHUP as an owner's editor and scripts send it (issue 29, item 5): any number of them is one
/// reload, a storm delays neither the alarm nor a press, an empty or half-written file is never
/// taken, and a new preset reaches the idle picker.
final class ReloadTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// Sees what the device shows and when its state changes.
  final class Recorder: DeviceObserver {
    var states: [(Instant, EngineState)] = []
    var shown: [(Instant, String)] = []
    func stateChanged(_ state: EngineState, at: Instant) { states.append((at, state)) }
    func frameFlushed(bytes: Int, shown: String, at: Instant) { self.shown.append((at, shown)) }
    func buzzerChanged(_ on: Bool, at: Instant) {}
    func recorded(_ entry: HistoryEntry, at: Instant) {}
  }

  /// Serves `h` with SIGHUPs at `hangUps` (after its start) and SIGTERM at `end`; `texts` are
  /// what the file reads as, one a read (the last one again once they run out).
  func serve(
    _ h: DeviceHarness, hangUps: [Nanoseconds], end: Nanoseconds, texts: [String?], readTakes: Nanoseconds = 0
  ) -> (reads: Int, file: String) {
    let file = directory + "/pomodoro.conf"
    var reads = 0
    let service = DeviceService(
      device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log, configFile: file,
      readConfig: { _ in
        // A slow card: the read takes time on the device's clock.
        h.clock.advance(by: readTakes)
        reads += 1
        return texts[min(reads, texts.count) - 1]
      })
    let start = h.clock.now
    let waiter = VirtualWaiter(
      clock: h.clock, signals: hangUps.map { (start + $0, SIGHUP) } + [(start + end, SIGTERM)])
    XCTAssertEqual(service.serve(waiter: waiter), 0)
    return (reads, file)
  }

  func config(focus: String) -> String { "focus = \(focus)\nstate_dir = \(directory)\n" }

  /// A thousand SIGHUPs pending at once: one reload, its file read twice.
  func testAThousandPendingSIGHUPsAreOneReload() throws {
    let h = try DeviceHarness(directory: directory)
    let (reads, file) = serve(
      h, hangUps: Array(repeating: seconds(5), count: 1000), end: seconds(10), texts: [config(focus: "30m")])
    XCTAssertEqual(reads, 2)
    XCTAssertEqual(
      h.logLines.filter { $0.1.hasPrefix("reloaded") }.map(\.1),
      ["reloaded \(file) on SIGHUP: applied focus; the timer carries on"])
  }

  /// A storm (a SIGHUP every millisecond for 5 s, each read of the file taking 5 ms of a slow
  /// card) across a focus's end and a press of cancel: the first beep and the press's effect
  /// come within 20 ms (a read and a frame), and the file is read at most twice a settle time.
  func testASIGHUPStormDelaysNeitherTheAlarmNorAPress() throws {
    var base = DeviceConfig()
    base.engine.presets[.focus] = seconds(10)
    let h = try DeviceHarness(directory: directory, config: base)
    let recorder = Recorder()
    h.device.observer = recorder
    let start = h.clock.now
    h.press(h.config.buttonStart, at: ms(500))
    h.press(h.config.buttonCancel, at: seconds(12))
    let storm = (0..<5000).map { seconds(8) + ms(Int64($0)) }
    let (reads, _) = serve(h, hangUps: storm, end: seconds(14), texts: [config(focus: "10s")], readTakes: ms(5))
    let deadline = start + ms(500) + seconds(10)
    let on = try XCTUnwrap(h.buzzerHistory.first { $0.active }, "the alarm sounded")
    XCTAssertGreaterThanOrEqual(on.time, deadline)
    XCTAssertLessThanOrEqual(on.time - deadline, ms(20), "first beep \(on.time - deadline) ns late")
    let acknowledged = try XCTUnwrap(recorder.states.first { $0.1.phase == .idle && $0.0 > deadline }?.0)
    XCTAssertLessThanOrEqual(acknowledged - (start + seconds(12)), ms(20), "the press acted within 20 ms")
    XCTAssertEqual(h.device.state.phase, .idle)
    XCTAssertLessThanOrEqual(reads, 2 * Int(seconds(5) / DeviceService.settleTime) + 2, "\(reads) reads")
    XCTAssertGreaterThanOrEqual(reads, 2)
  }

  /// An editor that truncates, then writes (nano, `cat >`), caught empty: refused, said so,
  /// the config kept.
  func testAnEmptyFileIsRefusedAndTheConfigKept() throws {
    var base = DeviceConfig()
    base.engine.presets[.focus] = minutes(50)
    base.click = true
    let h = try DeviceHarness(directory: directory, config: base)
    let (reads, file) = serve(h, hangUps: [seconds(1)], end: seconds(3), texts: ["", ""])
    XCTAssertEqual(reads, 2)
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(50))
    XCTAssertTrue(h.device.config.click)
    XCTAssertEqual(h.device.state.duration, minutes(50))
    XCTAssertEqual(
      h.logLines.filter { $0.0 == .error }.map(\.1),
      [
        "\(file) is empty; keeping the config it has (an editor still writing it? send SIGHUP again once it is "
          + "saved; a file of comments alone means every default)"
      ])
    XCTAssertFalse(h.logLines.contains { $0.1.hasPrefix("reloaded") })
  }

  /// A bad tune in the file on SIGHUP (issue 46 item 5): refused with its line, the character and
  /// what was expected; the tune the device plays, and every other key, stay as they were. A good
  /// one after it is taken.
  func testABadTuneOnSIGHUPKeepsTheTuneAndSaysWhy() throws {
    var base = DeviceConfig()
    base.alarmTune = try XCTUnwrap(BuiltInTunes.named("reveille"))
    let h = try DeviceHarness(directory: directory, config: base)
    let bad = "focus = 40m\nalarm_tune = mine:d=4,o=5,b=120:c,d,q,e\nstate_dir = \(directory)\n"
    let (_, file) = serve(h, hangUps: [seconds(1)], end: seconds(3), texts: [bad])
    XCTAssertEqual(h.device.config.alarmTune, base.alarmTune, "the tune it had")
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(25), "nothing of the file taken")
    let said = h.logLines.filter { $0.0 == .error }.map(\.1)
    XCTAssertEqual(said.count, 1, "\(said)")
    XCTAssertTrue(
      said.first?.hasPrefix("\(file):2: bad value 'mine:d=4,o=5,b=120:c,d,q,e' for 'alarm_tune'") == true, "\(said)")
    XCTAssertTrue(
      said.first?.hasSuffix("still running on the config it had (fix it and send SIGHUP again)") == true, "\(said)")
    XCTAssertFalse(h.logLines.contains { $0.1.hasPrefix("reloaded") })

    let good = "alarm_tune = mine:d=4,o=5,b=120:c,d,e\nstate_dir = \(directory)\n"
    _ = serve(h, hangUps: [seconds(1)], end: seconds(3), texts: [good])
    XCTAssertEqual(h.device.config.alarmTune.source, "mine:d=4,o=5,b=120:c,d,e")
  }

  /// Caught mid-write (empty, then `focus = 1h`, cut from `1h30m`): read again until two reads
  /// 200 ms apart agree, then applied whole; each disagreement said.
  func testAFileStillBeingWrittenIsReadAgainUntilTwoReadsAgree() throws {
    let h = try DeviceHarness(directory: directory)
    let whole = config(focus: "1h30m")
    let (reads, file) = serve(
      h, hangUps: [seconds(1)], end: seconds(3), texts: ["", "focus = 1h", whole, whole])
    XCTAssertEqual(reads, 4)
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(90), "never 1h, never the defaults")
    let waiting =
      "\(file) changed between two reads 200ms apart after SIGHUP (still being written?); reading it again in "
      + "200ms before applying it"
    XCTAssertEqual(
      h.logLines.filter { $0.0 == .notice }.map(\.1),
      [waiting, waiting, "reloaded \(file) on SIGHUP: applied focus; the timer carries on"])
    XCTAssertFalse(h.logLines.contains { $0.0 == .error }, "\(h.logLines)")
    XCTAssertFalse(h.logLines.contains { $0.1.contains("focus=") && $0.1.contains("3600000") })
  }

  /// A file that never settles is not applied, and that is said.
  func testAFileThatKeepsChangingIsNotApplied() throws {
    let h = try DeviceHarness(directory: directory)
    let texts = (0..<20).map { config(focus: "\(30 + $0)m") }
    let (reads, file) = serve(h, hangUps: [seconds(1)], end: seconds(5), texts: texts)
    XCTAssertEqual(reads, DeviceService.mostReads)
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(25))
    XCTAssertEqual(
      h.logLines.filter { $0.0 == .error }.map(\.1),
      [
        "\(file) was still changing 1s800ms after SIGHUP (being written?); keeping the config it has (send SIGHUP "
          + "again once it is saved)"
      ])
  }

  /// `focus = 25m` edited to `30m`: the idle picker shows 30:00 in the frame after the reload,
  /// Start runs 30:00, and Cancel comes back to 30:00.
  func testANewPresetShowsOnThePickerAtOnceAndStartRunsIt() throws {
    let h = try DeviceHarness(directory: directory)
    let recorder = Recorder()
    h.device.observer = recorder
    let start = h.clock.now
    h.press(h.config.buttonStart, at: seconds(3))
    h.press(h.config.buttonCancel, at: seconds(5))
    _ = serve(h, hangUps: [seconds(1)], end: seconds(6), texts: [config(focus: "30m")])
    let applied = start + seconds(1) + DeviceService.settleTime
    XCTAssertEqual(recorder.shown.last { $0.0 <= applied }?.1, "30:00", "painted in the step after the reload")
    XCTAssertEqual(recorder.shown.last { $0.0 < applied }?.1, "25:00")
    let started = try XCTUnwrap(recorder.states.first { $0.1.phase == .running }?.1)
    XCTAssertEqual(started.duration, minutes(30), "Start runs the new preset")
    XCTAssertEqual(h.device.state.phase, .idle)
    XCTAssertEqual(h.device.state.duration, minutes(30), "and Cancel comes back to it")
  }

  /// The owner turned the knob (26:00) before the edit: the picker keeps 26:00.
  func testAPickerTheOwnerTurnedKeepsItsTime() throws {
    let h = try DeviceHarness(directory: directory)
    h.hardware.chip.scheduleTurn(
      a: h.config.encoderA, b: h.config.encoderB, detents: 1, start: h.clock.now + ms(300), spacing: ms(200))
    _ = serve(h, hangUps: [seconds(1)], end: seconds(2), texts: [config(focus: "30m")])
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(30))
    XCTAssertEqual(h.device.state.duration, minutes(26))
  }

  /// A flow restored after a restart says the time it counted, not "left".
  func testARestoredFlowSaysWhatItCounted() throws {
    var base = DeviceConfig()
    base.engine.modes = [.flow, .focus]
    do {
      let h = try DeviceHarness(directory: directory, config: base)
      h.device.start()
      h.press(h.config.encoderPush)
      h.run(for: seconds(2))
      XCTAssertEqual(h.device.state.mode, .flow)
      h.press(h.config.buttonStart)
      h.run(for: seconds(95))
      h.device.shutdown()
    }
    let h = try DeviceHarness(directory: directory, config: base)
    h.device.start()
    XCTAssertTrue(
      h.logLines.contains { $0.1 == "restored a flow timer with 01:35 counted, paused" }, "\(h.logLines.map(\.1))")
  }
}
