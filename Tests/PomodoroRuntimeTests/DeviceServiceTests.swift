import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

final class DeviceServiceTests: XCTestCase {
  var directory = ""
  override func setUpWithError() throws { directory = try DeviceHarness.temporaryDirectory() }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  /// The whole run loop from start-up to SIGTERM, on the mocks and a virtual clock.
  func testStartUpServeAndSIGTERMLeaveEverythingInOrder() throws {
    let h = try DeviceHarness(directory: directory)
    h.press(h.config.buttonStart, at: ms(500))
    let start = h.clock.now
    let waiter = VirtualWaiter(clock: h.clock, signals: [(start + seconds(30), SIGTERM)])
    let code = DeviceService(device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log).serve(
      waiter: waiter)
    XCTAssertEqual(code, 0)
    XCTAssertEqual(h.clock.now, start + seconds(30), "served until the signal")
    XCTAssertEqual(h.device.state.phase, .running)
    XCTAssertNil(h.hardware.chip.holder(of: h.config.buttonStart), "lines released")
    XCTAssertNil(h.hardware.chip.holder(of: h.config.buzzer))
    XCTAssertEqual(h.buzzerHistory.last?.active, false, "buzzer left off")
    XCTAssertFalse(h.hardware.emulator.isLit, "panel parked")
    let saved = try XCTUnwrap(StateStore(directory: directory).load())
    XCTAssertEqual(saved.phase, .running)
    XCTAssertEqual(saved.remaining, minutes(25) - (seconds(30) - ms(500)), "started at the press-down")
    XCTAssertTrue(h.logLines.contains { $0.1 == "ready" })
    XCTAssertTrue(h.logLines.contains { $0.1.hasPrefix("state phase=running mode=focus remaining_ms=1500000") })
  }

  /// A passive buzzer ringing its tune when SIGTERM comes: the service stops, the PWM is left
  /// disabled and given back.
  func testSIGTERMWhileATuneRingsLeavesThePWMDisabledAndReleased() throws {
    var config = DeviceConfig()
    config.buzzerKind = .passive
    config.engine.presets[.focus] = seconds(5)
    let h = try DeviceHarness(directory: directory, config: config)
    h.press(h.config.buttonStart, at: ms(500))
    let start = h.clock.now
    let waiter = VirtualWaiter(clock: h.clock, signals: [(start + seconds(7) + ms(3), SIGTERM)])
    let code = DeviceService(device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log).serve(
      waiter: waiter)
    XCTAssertEqual(code, 0)
    XCTAssertEqual(h.device.state.phase, .ringing)
    XCTAssertTrue(h.hardware.pwm.entries.contains { $0.write == .enable(true) }, "the tune played")
    XCTAssertFalse(h.hardware.pwm.sounding, "disabled")
    XCTAssertTrue(h.hardware.pwm.released, "given back")
    XCTAssertEqual(h.hardware.pwm.entries.last?.at, start + seconds(7) + ms(3), "at the signal")
  }

  /// SIGHUP re-reads the config: timer settings and the click apply at once, the running timer
  /// carries on untouched, and the service keeps serving.
  func testSIGHUPAppliesTimerSettingsLiveAndKeepsTheTimer() throws {
    let h = try DeviceHarness(directory: directory)
    h.press(h.config.buttonStart, at: ms(500))
    let start = h.clock.now
    let file = directory + "/pomodoro.conf"
    var reads: [String] = []
    let service = DeviceService(
      device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log, configFile: file,
      readConfig: { path in
        reads.append(path)
        return "focus = 50m\nclick = true\nalarm_timeout = 30s\nstate_dir = \(self.directory)\n"
      })
    let waiter = VirtualWaiter(
      clock: h.clock, signals: [(start + seconds(10), SIGHUP), (start + seconds(20), SIGTERM)])
    XCTAssertEqual(service.serve(waiter: waiter), 0)
    XCTAssertEqual(h.clock.now, start + seconds(20), "served on after SIGHUP, until SIGTERM")
    XCTAssertEqual(reads, [file, file], "read twice, \(DurationText.format(DeviceService.settleTime)) apart")
    XCTAssertEqual(h.device.state.phase, .running, "the timer kept running")
    XCTAssertEqual(h.device.state.duration, minutes(25), "the running timer keeps its length")
    XCTAssertEqual(
      h.device.state.remaining(at: h.clock.now), minutes(25) - (seconds(20) - ms(500)), "from the press-down")
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(50), "the next focus is 50 minutes")
    XCTAssertEqual(h.device.state.settings.alarmTimeout, seconds(30))
    XCTAssertTrue(h.device.config.click)
    XCTAssertTrue(
      h.logLines.contains {
        $0 == (.notice, "reloaded \(file) on SIGHUP: applied focus, alarm_timeout, click; the timer carries on")
      }, "\(h.logLines)")
  }

  /// A config that does not parse is logged with FILE:LINE and the device keeps the config it
  /// has; in one that changes the hardware as well as a timer setting, the timer setting applies
  /// and each hardware key is named with its line and the restart that applies it. SIGHUP never
  /// stops it.
  func testSIGHUPWithABadConfigOrAHardwareChangeKeepsTheHardwareAndAppliesTheRest() throws {
    let h = try DeviceHarness(directory: directory)
    h.press(h.config.buttonStart, at: ms(500))
    let start = h.clock.now
    let file = directory + "/pomodoro.conf"
    // Each reload reads its file twice.
    var texts = [
      "# comment\nfocus = 25m\nfocus = 30m\n", "# comment\nfocus = 25m\nfocus = 30m\n",
      "focus = 50m\n\nencoder_a = GPIO5\ncontrast = 10\nstate_dir = \(directory)\n",
      "focus = 50m\n\nencoder_a = GPIO5\ncontrast = 10\nstate_dir = \(directory)\n",
    ]
    let service = DeviceService(
      device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log, configFile: file,
      readConfig: { _ in texts.removeFirst() })
    let waiter = VirtualWaiter(
      clock: h.clock,
      signals: [(start + seconds(5), SIGHUP), (start + seconds(10), SIGHUP), (start + seconds(20), SIGTERM)])
    XCTAssertEqual(service.serve(waiter: waiter), 0)
    XCTAssertEqual(h.clock.now, start + seconds(20), "two SIGHUPs, still serving until SIGTERM")
    XCTAssertEqual(h.device.state.phase, .running)
    XCTAssertEqual(h.device.config.encoderA, h.config.encoderA, "the hardware keys wait for a restart")
    XCTAssertEqual(h.device.config.contrast, h.config.contrast)
    XCTAssertEqual(h.device.state.settings.presets[.focus], minutes(50), "the timer setting applied")
    XCTAssertEqual(
      h.logLines.filter { $0.0 == .error }.map(\.1),
      [
        "\(file):3: 'focus' is set twice (first on line 2); keep one; still running on the config it had (fix it and send SIGHUP again)"
      ])
    XCTAssertEqual(
      h.logLines.filter { $0.0 == .warning }.map(\.1),
      [
        "\(file):3: 'encoder_a' changed; it takes effect when the device restarts (sudo systemctl restart pomodoro); until then it runs with the value it had",
        "\(file):4: 'contrast' changed; it takes effect when the device restarts (sudo systemctl restart pomodoro); until then it runs with the value it had",
      ])
    XCTAssertTrue(
      h.logLines.contains { $0 == (.notice, "reloaded \(file) on SIGHUP: applied focus; the timer carries on") },
      "\(h.logLines)")
  }

  /// SIGQUIT is a clean stop like SIGTERM: state saved, lines released, exit 0.
  func testSIGQUITStopsCleanlyLikeSIGTERM() throws {
    let h = try DeviceHarness(directory: directory)
    h.press(h.config.buttonStart, at: ms(500))
    let start = h.clock.now
    let waiter = VirtualWaiter(clock: h.clock, signals: [(start + seconds(30), SIGQUIT)])
    let code = DeviceService(device: h.device, notify: SystemdNotify(environment: [:]), log: h.device.log).serve(
      waiter: waiter)
    XCTAssertEqual(code, 0)
    XCTAssertEqual(h.clock.now, start + seconds(30))
    XCTAssertNil(h.hardware.chip.holder(of: h.config.buttonStart), "lines released")
    XCTAssertEqual(try XCTUnwrap(StateStore(directory: directory).load()).phase, .running, "state saved")
    XCTAssertTrue(h.logLines.contains { $0.1 == "stopping on SIGQUIT" })
  }

  func testRestartComesBackPausedAndSaysSoOnTheLog() throws {
    do {
      let h = try DeviceHarness(directory: directory)
      h.device.start()
      h.press(h.config.buttonStart)
      h.run(for: seconds(95))
      h.device.shutdown()
    }
    let h = try DeviceHarness(directory: directory)
    h.device.start()
    XCTAssertEqual(h.device.state.phase, .paused)
    XCTAssertTrue(h.device.state.restored)
    XCTAssertEqual(h.device.state.clockText(at: h.clock.now), "23:25")
    XCTAssertTrue(h.logLines.contains { $0.1.contains("restored a focus timer with 23:25 left, paused") })
  }

  /// The device's own start-up request (`LineRequests`, as `pomodoro run` makes it) on a chip
  /// whose start line another program holds: a hardware error (exit 69) whose text names the
  /// line, the chip, the holder and the fix. (CommandLineTests checks it on `pomodoro run`'s
  /// stderr; LinuxGPIOErrorsTests the Linux backend's words.)
  func testLineBusyAtStartUpNamesTheLineAndItsHolder() throws {
    let clock = VirtualClock()
    let chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    chip.markBusy("GPIO23", consumer: "gpioset")
    var config = DeviceConfig()
    config.stateDirectory = directory
    XCTAssertThrowsError(try LineRequests.request(on: chip, config: config)) { error in
      XCTAssertTrue(error is HardwareError, "exits 69: \(type(of: error))")
      XCTAssertEqual(
        "\(error)",
        "GPIO line 'GPIO23' on mock-gpiochip0 is busy: held by 'gpioset'. Stop that program (or service) first; "
          + "`gpioinfo` shows who holds each line.")
    }
    XCTAssertEqual(chip.holder(of: "GPIO17"), nil, "nothing left half-requested")
    XCTAssertEqual(chip.holder(of: "GPIO25"), nil)
  }

  func testDisplayUnpluggedForThirtySecondsMidRun() throws {
    let h = try DeviceHarness(directory: directory)
    h.device.start()
    h.press(h.config.buttonStart)
    h.run(for: seconds(60))
    h.hardware.emulator.unplugged = true
    h.run(for: seconds(30))
    XCTAssertEqual(h.logLines.filter { $0.1.contains("is not answering") }.count, 1, "said once")
    XCTAssertEqual(h.device.state.phase, .running, "the countdown carries on")
    h.hardware.emulator.unplugged = false
    h.run(for: seconds(31))
    XCTAssertTrue(h.hardware.emulator.isLit, "re-initialised")
    let expected = h.device.screen.render(h.device.state, h.clock.now)
    XCTAssertEqual(h.hardware.visibleImage(), expected, "repainted whole")
    XCTAssertTrue(h.logLines.contains { $0.1.contains("answers again") })
    XCTAssertEqual(h.device.state.clockText(at: h.clock.now), "22:59", "121 s after a start at 0")
  }

  /// Unplugged, and blanked (OLED care) while unplugged: the retries go on at their back-off
  /// (a retry due but never made would be a deadline in the past: the loop would spin), the
  /// panel comes back still blank, and the first touch shows the picture.
  func testDisplayUnpluggedWhileBlankRetriesAndComesBackBlank() throws {
    var config = DeviceConfig()
    config.dimAfter = nil
    config.blankAfter = minutes(1)
    let h = try DeviceHarness(directory: directory, config: config)
    h.device.start()
    h.run(for: seconds(30))
    XCTAssertTrue(h.hardware.emulator.isLit)
    h.hardware.emulator.unplugged = true  // and 30 s later the panel is to blank
    // Deadline by deadline (not runVirtual, which would spin on a deadline in the past).
    var retries = 0
    let until = h.clock.now + minutes(7)
    while let next = h.device.nextDeadline, next <= until, retries < 10_000 {
      guard next > h.clock.now else { return XCTFail("a deadline in the past at \(h.clock.now)") }
      h.clock.advance(to: next)
      h.device.step()
      if h.clock.now > until - minutes(5) { retries += 1 }
    }
    XCTAssertLessThan(retries, 20, "blank for the last 5 minutes, retrying every 30 s")
    h.hardware.emulator.unplugged = false
    h.run(for: seconds(31))
    XCTAssertTrue(h.logLines.contains { $0.1.contains("answers again") }, "brought up while blank")
    XCTAssertFalse(h.hardware.emulator.isLit, "and still blank")
    h.press(h.config.buttonCancel)
    h.run(for: seconds(1))
    XCTAssertTrue(h.hardware.emulator.isLit, "a touch wakes it")
    let shift = h.device.look.shift
    XCTAssertEqual(
      h.hardware.visibleImage(),
      h.device.screen.render(h.device.state, h.clock.now).shifted(dx: shift.dx, dy: shift.dy))
  }

  func testAlarmRingsThroughTheBuzzerLineUntilAcknowledged() throws {
    var config = DeviceConfig()
    config.engine.presets[.focus] = seconds(10)
    let h = try DeviceHarness(directory: directory, config: config)
    h.device.start()
    let start = h.clock.now
    h.press(h.config.buttonStart)
    h.run(for: seconds(15))
    let ons = h.buzzerHistory.filter(\.active).map { $0.time - start }
    XCTAssertEqual(ons.first, seconds(10), "first beep exactly at the deadline (started at the press-down)")
    XCTAssertGreaterThan(ons.count, 3, "beeps repeat")
    h.press(h.config.buttonCancel)
    h.run(for: seconds(5))
    XCTAssertEqual(h.buzzerHistory.last?.active, false)
    XCTAssertEqual(h.device.state.phase, .idle)
    let (entries, damaged) = try HistoryLog(directory: directory).read()
    XCTAssertEqual(entries.map(\.outcome), [.completed])
    XCTAssertEqual(damaged, [])
  }

  func testSystemdNotifyMessagesReachTheSocket() throws {
    let path = directory + "/notify.sock"
    #if os(Linux)
      let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    #else
      let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
    #endif
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in path.utf8.enumerated() { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    XCTAssertEqual(bound, 0)
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let h = try DeviceHarness(directory: directory)
    h.press(h.config.buttonStart, at: ms(100))
    let notify = SystemdNotify(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"])
    XCTAssertEqual(notify.watchdogInterval, seconds(2))
    let waiter = VirtualWaiter(clock: h.clock, signals: [(h.clock.now + seconds(5), SIGTERM)])
    XCTAssertEqual(DeviceService(device: h.device, notify: notify, log: h.device.log).serve(waiter: waiter), 0)
    var messages: [String] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
    }
    XCTAssertEqual(messages.first, "READY=1")
    XCTAssertEqual(messages.last, "STOPPING=1")
    XCTAssertEqual(messages.filter { $0 == "WATCHDOG=1" }.count, 2, "at 2 s and 4 s")
    XCTAssertTrue(messages.contains("STATUS=idle  focus 1/4  25:00"))
    XCTAssertTrue(messages.contains("STATUS=running  focus 1/4  24:56"))
  }
}

final class InputFaultTests: XCTestCase {
  func testAGPIOReadErrorIsLoggedOnceAndTheDeviceKeepsTimeDisplayAndBuzzer() throws {
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var config = DeviceConfig()
    config.engine.presets[.focus] = seconds(20)
    let h = try DeviceHarness(directory: directory, config: config)
    h.device.start()
    let start = h.clock.now
    h.press(h.config.buttonStart)
    h.run(for: seconds(2))
    h.hardware.chip.readError = .io("line GPIO17 went away")
    h.run(for: seconds(30))
    XCTAssertEqual(h.logLines.filter { $0.1.contains("reading the input lines failed") }.count, 1)
    XCTAssertTrue(h.logLines.contains { $0.1.contains("GPIO17 went away") })
    let beeps = h.buzzerHistory.filter(\.active).map { $0.time - start }
    XCTAssertEqual(beeps.first, seconds(20), "the alarm still sounds on time")
    XCTAssertEqual(h.device.state.phase, .ringing)
    XCTAssertEqual(h.hardware.visibleImage(), h.device.screen.render(h.device.state, h.clock.now))
  }

  /// Once reading failed, input edges neither wake the loop nor make deadlines: the kernel's
  /// descriptor of a failed line may stay readable, and pending edges are never read again;
  /// either would spin the loop (a core at 100 %) until restart.
  func testAfterAReadErrorTheLoopNeitherWatchesTheLinesNorWaitsForTheirEdges() throws {
    final class Recorder: Waiter {
      var watched: [[Int32]] = []
      func wait(until deadline: Instant?, watching extra: [Int32]) throws -> Wake {
        watched.append(extra)
        return Wake(signals: [SIGTERM])
      }
    }
    let directory = try DeviceHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let h = try DeviceHarness(directory: directory)
    var pipeEnds: [Int32] = [0, 0]
    XCTAssertEqual(pipe(&pipeEnds), 0)
    defer { for end in pipeEnds { close(end) } }
    h.hardware.chip.pollDescriptor = pipeEnds[0]
    h.device.start()
    let waiter = Recorder()
    _ = try EventLoop.serve(h.device, waiter: waiter)
    XCTAssertEqual(waiter.watched.last, [pipeEnds[0]], "working lines are watched")

    h.hardware.chip.readError = .io("line GPIO17 went away")
    h.press(h.config.buttonStart)
    _ = try EventLoop.serve(h.device, waiter: waiter)
    XCTAssertEqual(waiter.watched.last, [], "failed lines are not watched")
    XCTAssertNil(h.device.inputDescriptor)
    h.device.step()
    if let next = h.device.nextDeadline {
      XCTAssertGreaterThan(next, h.clock.now, "no deadline from edges that are never read")
    }
  }
}
