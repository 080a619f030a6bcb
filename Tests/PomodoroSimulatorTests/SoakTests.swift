import Foundation
import PomodoroCore
import PomodoroGraphics
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroTestFixtures
import XCTest

/// Issue 12's soak, a virtual week in a test (`pomodoro-bench soak`, Benchmarks/, runs the month):
/// random turns with bounce, presses and holds; the display unplugged, GPIO reads failing, the
/// disk full and restarts at random. No crash; the history is the transcript's records, none
/// twice; resident memory flat. What fails it is `Soak.Report.failures`, as for the bench's exit.
final class SoakTests: XCTestCase {
  /// Nothing to draw (as in StorageFaultTests): the week takes about 8 s in a debug build this
  /// way, rendering would add a minute (the bench's month renders); the panel is still brought
  /// up, flushed and unplugged.
  static var blank: Screen { Screen(render: { _, _ in Framebuffer() }, nextFrame: { _, _ in nil }) }

  func testAVirtualWeekOfRandomUseAndFaultsKeepsTheHistoryEqualToTheTranscript() throws {
    let soak = try Soak(seed: 7, screen: Self.blank)
    let report = try soak.run(days: 7)
    XCTAssertEqual(report.failures, [])
    XCTAssertGreaterThan(report.sessions, 100, "sessions recorded")
    XCTAssertGreaterThan(report.completed, 20)
    XCTAssertGreaterThan(report.inputs, 500)
    XCTAssertGreaterThan(report.boots, 2, "restarts, each restoring from the file system")
    XCTAssertGreaterThan(report.diskFullWindows, 10)
    XCTAssertGreaterThan(report.failedWrites, 10, "the disk-full windows met writes")
    XCTAssertGreaterThan(report.displayUnplugs, 10)
    XCTAssertGreaterThan(report.gpioReadErrors, 0)
    print(
      "soak: \(report.virtualDays) virtual days, resident memory grew \(report.residentGrowthMiB ?? 0) MiB, \(report.events) events (\(report.inputs) inputs), \(report.sessions) sessions, \(report.boots) boots, faults: \(report.displayUnplugs) unplugs, \(report.gpioReadErrors) GPIO read errors, \(report.diskFullWindows) disk-full windows (\(report.failedWrites) failed writes)"
    )
  }

  /// What fails the soak, and `pomodoro-bench soak` with it (exit 1: its figure `soak.problems`
  /// must be 0): an invariant that did not hold, or resident memory grown past
  /// `residentGrowthLimitMiB` from the end of day 1 to the end of the last day.
  func testTheSoakFailsOnABrokenInvariantOrOnResidentMemoryThatGrows() {
    let mib = 1_048_576
    var report = Soak.Report()
    XCTAssertEqual(report.failures, [])
    XCTAssertNil(report.residentGrowthMiB, "no day measured")
    report.residentByDay = [30 * mib]
    XCTAssertNil(report.residentGrowthMiB, "one day: nothing to compare")
    report.residentByDay = [20 * mib, 23 * mib, 24 * mib]
    XCTAssertEqual(report.residentGrowthMiB, 4)
    XCTAssertEqual(report.failures, [], "4 MiB is the limit, not past it")
    report.residentByDay.append(24 * mib + mib / 2)
    XCTAssertEqual(report.failures, ["resident memory grew 4.5 MiB from day 1 (a leak?)"])
    report.problems = ["a session recorded twice"]
    XCTAssertEqual(report.failures, ["a session recorded twice", "resident memory grew 4.5 MiB from day 1 (a leak?)"])
    report.residentByDay = [20 * mib, 18 * mib]
    XCTAssertEqual(report.failures, ["a session recorded twice"], "memory that shrank fails nothing")
  }
}
