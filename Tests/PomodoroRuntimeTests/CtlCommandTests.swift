import Foundation
import PomodoroCore
import XCTest

@testable import PomodoroCommandLine
@testable import PomodoroRuntime

/// Serves a fixture's control socket from a thread while the test runs `pomodoro ctl` (which
/// blocks on its reply). The device is touched only by that thread meanwhile.
final class SocketPump: @unchecked Sendable {
  let fixture: ControlFixture
  let lock = NSLock()
  var stopping = false
  var thread: Thread?

  init(_ fixture: ControlFixture) { self.fixture = fixture }

  func start(also: (@Sendable (ControlFixture) -> Void)? = nil) {
    lock.withLock { stopping = false }
    let t = Thread { [self] in
      var rounds = 0
      while !lock.withLock({ stopping }) {
        fixture.server.serviceNow()
        rounds += 1
        if rounds == 50, let also { also(fixture) }
        usleep(2000)
      }
    }
    thread = t
    t.start()
  }

  func stop() {
    lock.withLock { stopping = true }
    while thread?.isFinished == false { usleep(1000) }
  }

  func ctl(_ words: [String]) -> (code: Int32, out: String, err: String) {
    start()
    defer { stop() }
    return captureOutput { PomodoroCLI.main(["ctl"] + words + ["--socket", fixture.path]) }
  }
}

final class CtlCommandTests: XCTestCase {
  func testStatusReadsAsTextAndAsJSON() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    var r = pump.ctl(["start"])
    XCTAssertEqual(r.code, 0, r.err)
    let ends = WallTime(epochSeconds: 1_796_040_000 + 1500, synced: true).localHourMinute
    XCTAssertEqual(r.out, "running  focus 1/4  25:00 left, ends \(ends)\n")
    f.h.run(for: seconds(90))
    r = pump.ctl(["status", "--json"])
    XCTAssertEqual(r.code, 0)
    let state = try XCTUnwrap(ControlProtocol.decodeReply(r.out.trimmingCharacters(in: .newlines)))
    guard case .success(let fields) = state else { return XCTFail(r.out) }
    XCTAssertEqual(fields["remaining_ms"]?.int, 1_410_000)
    XCTAssertEqual(fields["phase"]?.string, "running")
    r = pump.ctl(["pause"])
    XCTAssertEqual(r.out, "paused  focus 1/4  23:30 left\n")
  }

  func testCommandsActAsTheButtonsAndRefusalsSayWhy() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    var r = pump.ctl(["pause"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertEqual(r.out, "")
    XCTAssertEqual(r.err, "pomodoro: nothing to pause: the timer is idle\n")
    r = pump.ctl(["set", "soft", "6m"])
    XCTAssertEqual(r.code, 0, r.err)
    XCTAssertEqual(r.out, "idle  soft  06:00\n")
    XCTAssertEqual(f.h.device.state.duration, minutes(6))
    r = pump.ctl(["start"])
    r = pump.ctl(["extend", "5m"])
    XCTAssertEqual(f.h.device.state.duration, minutes(11))
    r = pump.ctl(["set", "focus"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertTrue(r.err.contains("set works only while idle"), r.err)
  }

  func testUsageErrorsNameTheMistake() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    for (words, words2) in [
      (["extend"], "extend takes one duration"), (["dance"], "unknown command 'dance'"),
      (["set", "lunch"], "neither a mode"), (["status", "now"], "status takes no argument"),
    ] {
      let r = pump.ctl(words)
      XCTAssertEqual(r.code, ExitCode.usage, "\(words)")
      XCTAssertTrue(r.err.contains(words2), r.err)
    }
    XCTAssertEqual(f.server.requests, 0, "nothing was sent")
  }

  func testNoDeviceAndNoPermissionSayWhatToDo() throws {
    let r = captureOutput { PomodoroCLI.main(["ctl", "status", "--socket", "/nonexistent/pomodoro.sock"]) }
    XCTAssertEqual(r.code, CtlCommand.unavailable)
    XCTAssertTrue(r.err.hasSuffix("is pomodoro running? systemctl status pomodoro\n"), r.err)
    // Root passes every permission check, so the refusal's advice is checked directly.
    let (code, message) = CtlCommand.advice(connecting: "/run/pomodoro/control.sock", errno: EACCES)
    XCTAssertEqual(code, 77)
    XCTAssertTrue(message.contains("add yourself to the group pomodoro"))
  }

  func testWatchPrintsEveryChangeUntilTheDeviceGoes() throws {
    let f = try ControlFixture()
    let pump = SocketPump(f)
    pump.start(also: { f in
      f.h.device.perform(.press(.start))
      f.h.device.perform(.press(.start))
      f.server.close()
    })
    defer { pump.stop() }
    let r = captureOutput { PomodoroCLI.main(["ctl", "watch", "--socket", f.path]) }
    XCTAssertEqual(r.code, CtlCommand.unavailable)
    XCTAssertEqual(
      r.out.split(separator: "\n").map(String.init),
      [
        "idle  focus 1/4  25:00",
        "running  focus 1/4  25:00 left, ends \(WallTime(epochSeconds: 1_796_040_000 + 1500, synced: true).localHourMinute)",
        "paused  focus 1/4  25:00 left",
      ])
    XCTAssertTrue(r.err.contains("the device closed the connection"), r.err)
  }
}
