import Foundation
import PomodoroCore
import PomodoroGraphics
import PomodoroMock
import XCTest

@testable import PomodoroRuntime
@testable import PomodoroSimulator
@testable import PomodoroTestSupport

/// Issue 12's soak, a virtual week in a test (`pomodoro-bench soak` runs the month): random
/// turns with bounce, presses and holds; the display unplugged, GPIO reads failing, the disk
/// full and restarts at random. No crash; the history is the transcript's records, none twice.
final class SoakTests: XCTestCase {
  /// Nothing to draw (as in StorageFaultTests): the week takes about 8 s in a debug build this
  /// way, rendering would add a minute (the bench's month renders); the panel is still brought
  /// up, flushed and unplugged.
  static var blank: Screen { Screen(render: { _, _ in Framebuffer() }, nextFrame: { _, _ in nil }) }

  func testAVirtualWeekOfRandomUseAndFaultsKeepsTheHistoryEqualToTheTranscript() throws {
    let soak = try Soak(seed: 7, screen: Self.blank)
    let report = try soak.run(days: 7)
    XCTAssertEqual(report.problems, [])
    XCTAssertGreaterThan(report.sessions, 100, "sessions recorded")
    XCTAssertGreaterThan(report.completed, 20)
    XCTAssertGreaterThan(report.inputs, 500)
    XCTAssertGreaterThan(report.boots, 2, "restarts, each restoring from the file system")
    XCTAssertGreaterThan(report.diskFullWindows, 10)
    XCTAssertGreaterThan(report.failedWrites, 10, "the disk-full windows met writes")
    XCTAssertGreaterThan(report.displayUnplugs, 10)
    XCTAssertGreaterThan(report.gpioReadErrors, 0)
    print(
      "soak: \(report.virtualDays) virtual days, \(report.events) events (\(report.inputs) inputs), \(report.sessions) sessions, \(report.boots) boots, faults: \(report.displayUnplugs) unplugs, \(report.gpioReadErrors) GPIO read errors, \(report.diskFullWindows) disk-full windows (\(report.failedWrites) failed writes)"
    )
  }
}
