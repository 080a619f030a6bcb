import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroSimulator

/// The interactive simulator on a pseudo-terminal: keys written to the master side, the
/// screen read back from it through a small terminal model, the terminal checked after quit.
final class InteractiveSimulatorTests: XCTestCase {
  func testKeysDriveTheDeviceAndQuitRestoresTheTerminal() throws {
    let pty = try PseudoTerminal(columns: 150, rows: 45)
    let before = pty.slaveModes()
    let run = SimulatorThread(pty: pty, bell: false)

    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
    XCTAssertTrue(pty.screen.alternate, "drawn on the alternate screen")
    XCTAssertFalse(pty.screen.cursorVisible)
    XCTAssertTrue(pty.screen.hasHalfBlocks, "a 150x45 terminal shows the panel in half blocks, lit pixels and all")
    XCTAssertTrue(pty.screen.text.contains("Space start/pause"), "the keys are listed")
    XCTAssertEqual(pty.slaveModes().c_lflag & tcflag_t(ICANON | ECHO), 0, "raw mode while running")

    pty.send("\u{1B}[C")
    try pty.waitFor("one detent right: 26:00") { $0.statusLine == "idle  focus 1/4  26:00" }
    pty.send("j")
    try pty.waitFor("one detent back with j") { $0.statusLine == "idle  focus 1/4  25:00" }
    pty.send(" ")
    try pty.waitFor("Space starts") { $0.statusLine?.hasPrefix("running  focus 1/4  2") == true }
    pty.send("f")
    try pty.waitFor("fast-forward shown") { $0.text.contains(">> 60x") }
    pty.send(" ")
    try pty.waitFor("Space pauses") { $0.statusLine?.hasPrefix("paused  focus 1/4  ") == true }
    pty.send("c")
    try pty.waitFor("c cancels, keeping the dialed 25:00") { $0.statusLine == "idle  focus 1/4  25:00" }

    pty.send("q")
    try pty.waitFor("the terminal restored") { !$0.alternate && $0.cursorVisible }
    XCTAssertEqual(try run.result(), 0)
    let after = pty.slaveModes()
    XCTAssertEqual(after.c_lflag, before.c_lflag, "the terminal's modes are back")
    XCTAssertEqual(after.c_oflag, before.c_oflag)
    XCTAssertEqual(after.c_iflag, before.c_iflag)
  }

  func testAlarmShowsTheBuzzerAndRingsTheBell() throws {
    let pty = try PseudoTerminal(columns: 150, rows: 45)
    let run = SimulatorThread(pty: pty, bell: true)
    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
    // A fast spin left: 25:00 down past 1:00 into seconds.
    pty.send("J")
    try pty.waitFor("a short timer dialed") { $0.statusLine?.hasPrefix("idle  focus 1/4  00:") == true }
    pty.send("f ")
    try pty.waitFor("the alarm") { $0.statusLine?.hasPrefix("ringing  focus") == true }
    try pty.waitFor("the buzzer beside the panel") { $0.text.contains("BZZZ") }
    try pty.waitFor("the terminal bell") { $0.bells > 0 }
    pty.send("e")
    try pty.waitFor("the push acknowledges: the short break is next") {
      $0.statusLine?.hasPrefix("idle  short") == true
    }
    pty.send("\u{03}")
    try pty.waitFor("Ctrl-C restores the terminal") { !$0.alternate && $0.cursorVisible }
    XCTAssertEqual(try run.result(), 0)
  }

  /// A passive buzzer's desk: the note playing is shown beside the panel (the chime starts on C6).
  func testAPassiveBuzzerShowsTheNotePlaying() throws {
    var config = DeviceConfig()
    config.buzzerKind = .passive
    let pty = try PseudoTerminal(columns: 150, rows: 45)
    let run = SimulatorThread(pty: pty, bell: false, config: config)
    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
    pty.send("J")
    try pty.waitFor("a short timer dialed") { $0.statusLine?.hasPrefix("idle  focus 1/4  00:") == true }
    pty.send(" ")
    try pty.waitFor("the alarm") { $0.statusLine?.hasPrefix("ringing  focus") == true }
    try pty.waitFor("the chime's notes beside the panel") { $0.text.contains("((( C6 )))") }
    try pty.waitFor("and its next") { $0.text.contains("((( E6 )))") }
    pty.send("e")
    try pty.waitFor("acknowledged") { $0.statusLine?.hasPrefix("idle  short") == true }
    try pty.waitFor("silent") { !$0.text.contains("(((") }
    pty.send("q")
    try pty.waitFor("the terminal restored") { !$0.alternate && $0.cursorVisible }
    XCTAssertEqual(try run.result(), 0)
  }

  func testSmallTerminalGetsBrailleResizeRedrawsAndHangupRestores() throws {
    let pty = try PseudoTerminal(columns: 80, rows: 24)
    let run = SimulatorThread(pty: pty, bell: false)
    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
    XCTAssertTrue(pty.screen.hasBraille, "an 80x24 terminal shows the panel in braille")
    XCTAssertFalse(pty.screen.hasHalfBlocks)

    pty.resize(columns: 150, rows: 45)
    raise(SIGWINCH)
    try pty.waitFor("redrawn in half blocks after the resize") { $0.hasHalfBlocks && !$0.hasBraille }

    raise(SIGHUP)
    try pty.waitFor("SIGHUP restores the terminal") { !$0.alternate && $0.cursorVisible }
    XCTAssertEqual(try run.result(), 0)
  }

  func testKeyRepeatsBecomeSeparatePresses() throws {
    let pty = try PseudoTerminal(columns: 150, rows: 45)
    let run = SimulatorThread(pty: pty, bell: false)
    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
    // Two Spaces in one burst (autorepeat): two whole presses, start then pause.
    pty.send("  ")
    try pty.waitFor("started and paused") { $0.statusLine?.hasPrefix("paused  focus 1/4  ") == true }
    pty.send("q")
    try pty.waitFor("the terminal restored") { !$0.alternate }
    XCTAssertEqual(try run.result(), 0)
  }

  func testHeldKeysQueueAtMostASecondOfEdges() throws {
    let session = try InteractiveSession(
      config: DeviceConfig(), bell: false, io: TerminalIO(input: -1, output: -1), screen: .standard(height: 64))
    session.clock.pinned {
      let now = session.clock.now
      XCTAssertTrue(session.handle(Array(repeating: .turn(1, fast: false), count: 20)))
      // Detents 150 ms apart, queued while they start within the second: 7 of them.
      XCTAssertEqual(session.busyUntil["encoder"], now + 7 * MockHardware.detentSpacing)
      XCTAssertTrue(session.handle([.startPause, .startPause]))
      let pressCycle = MockHardware.pressTime + MockHardware.releaseTime
      XCTAssertEqual(session.busyUntil[session.config.buttonStart], now + 2 * pressCycle, "two whole presses")
      XCTAssertFalse(session.handle([.cancel, .quit, .push]), "quit stops the keys")
      XCTAssertNil(session.busyUntil[session.config.encoderPush])
    }
  }

  func testConfigChoosesTheControllerAndPanelSize() throws {
    var config = DeviceConfig()
    config.controller = .sh1106
    config.height = 32
    config.engine.presets[.focus] = minutes(50)
    let pty = try PseudoTerminal(columns: 140, rows: 30)
    let run = SimulatorThread(pty: pty, bell: false, config: config)
    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  50:00" }
    let lines = pty.screen.lines
    XCTAssertTrue(lines[0].contains("SH1106 128x32"), lines[0])
    XCTAssertEqual(lines.firstIndex(of: "idle  focus 1/4  50:00"), 16 + 2, "16 half-block rows in the frame")
    XCTAssertTrue(pty.screen.hasHalfBlocks, "the SH1106's RAM, column offset and all, reaches the panel")
    pty.send("q")
    try pty.waitFor("the terminal restored") { !$0.alternate && $0.cursorVisible }
    XCTAssertEqual(try run.result(), 0)
  }
}

/// Job control and stray signals, on `pomodoro simulate` run as a child process on a
/// pseudo-terminal (a stop or a death by signal would take the test process with it).
final class InteractiveSignalTests: XCTestCase {
  func testCtrlZAndSIGTSTPGiveTheTerminalBackAndFgTakesItAgain() throws {
    let pty = try PseudoTerminal(columns: 150, rows: 45)
    let shell = pty.slaveModes()
    let null = open("/dev/null", O_WRONLY)
    defer { close(null) }
    let child = try ChildProcess(
      ["simulate", "--no-bell"], stdin: pty.slave, stdout: pty.slave, stderr: null, ownGroup: true)
    try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
    for (how, stop) in [("SIGTSTP", { child.signal(SIGTSTP) }), ("Ctrl-Z", { pty.send("\u{1A}") })] {
      stop()
      try pty.waitFor("\(how): the terminal given back") { !$0.alternate && $0.cursorVisible }
      let status = try child.waitForChange()
      XCTAssertTrue(isStopped(status), "\(how): the job stopped")
      XCTAssertEqual(stopSignal(status), SIGTSTP, how)
      XCTAssertEqual(pty.slaveModes().c_lflag, shell.c_lflag, "\(how): the shell's modes while stopped")
      pty.screen.resize(columns: 150, rows: 45)  // forget what was drawn before
      child.signal(SIGCONT)
      try pty.waitFor("\(how) then fg: the alternate screen again, redrawn whole") {
        $0.alternate && !$0.cursorVisible && $0.statusLine == "idle  focus 1/4  25:00"
      }
      XCTAssertEqual(pty.slaveModes().c_lflag & tcflag_t(ICANON | ECHO), 0, "\(how): raw mode again")
    }
    pty.send(" ")
    try pty.waitFor("Space acts at once, no Enter needed") { $0.statusLine?.hasPrefix("running  ") == true }
    pty.send("q")
    try pty.waitFor("the terminal restored") { !$0.alternate && $0.cursorVisible }
    XCTAssertEqual(try child.waitForExit(), 0)
    XCTAssertEqual(pty.slaveModes().c_lflag, shell.c_lflag)
  }

  func testOtherSignalsRestoreTheTerminalThenEndTheProcessAsTheyWould() throws {
    for signo in [SIGUSR1, SIGALRM] {
      let pty = try PseudoTerminal(columns: 150, rows: 45)
      let shell = pty.slaveModes()
      let null = open("/dev/null", O_WRONLY)
      defer { close(null) }
      let child = try ChildProcess(
        ["simulate", "--no-bell"], stdin: pty.slave, stdout: pty.slave, stderr: null, ownGroup: true)
      try pty.waitFor("the first screen") { $0.statusLine == "idle  focus 1/4  25:00" }
      child.signal(signo)
      try pty.waitFor("signal \(signo): the terminal restored") { !$0.alternate && $0.cursorVisible }
      XCTAssertEqual(try child.waitForExit(), 128 + signo, "ended by the signal itself")
      XCTAssertEqual(pty.slaveModes().c_lflag, shell.c_lflag, "signal \(signo): the modes are back")
    }
  }
}

// MARK: - Support

/// Runs the simulator on a thread against a pseudo-terminal's slave side.
final class SimulatorThread: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private var outcome: Result<Int32, Error>?

  init(pty: PseudoTerminal, bell: Bool, config: DeviceConfig = DeviceConfig()) {
    let io = TerminalIO(input: pty.slave, output: pty.slave)
    Thread.detachNewThread { [self] in
      outcome = Result { try InteractiveSimulator.run(config: config, bell: bell, terminal: io) }
      // A signal a test raised for this run (SIGHUP, SIGWINCH) ends here, not in the next
      // command the test process runs (a scripted run stops on any signal caught).
      Signals.forget()
      done.signal()
    }
  }

  /// The exit code, once the simulator has returned.
  func result() throws -> Int32 {
    guard done.wait(timeout: .now() + 30) == .success, let outcome else {
      throw PseudoTerminal.Timeout(what: "the simulator to return")
    }
    return try outcome.get()
  }
}
