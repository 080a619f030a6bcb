import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// A power cut at many points of a running session: the device comes back paused with at most
/// 10 s lost (never more time than it had), and the history stays readable.
final class PowerCutTests: XCTestCase {
  func testPowerCutAtManyPointsRestoresPausedWithAtMostTenSecondsLost() throws {
    var cuts: [Nanoseconds] = []
    // Every 1.7 s across a 40-second focus and its alarm, plus instants around the edges.
    var config = DeviceConfig()
    config.engine.presets[.focus] = seconds(40)
    for i in 0..<30 { cuts.append(ms(Int64(i) * 1_700 + 13)) }
    cuts += [
      ms(80), ms(81), ms(100), seconds(10) + ms(80), seconds(40) + ms(79), seconds(40) + ms(80), seconds(40) + ms(81),
    ]
    for cut in cuts {
      let directory = try DeviceHarness.temporaryDirectory()
      defer { try? FileManager.default.removeItem(atPath: directory) }
      var before: EngineState
      var cutAt: Instant
      do {
        let h = try DeviceHarness(directory: directory, config: config)
        h.device.start()
        h.press(h.config.buttonStart)
        h.run(for: cut)
        before = h.device.state
        cutAt = h.clock.now
        // The power goes: no shutdown, nothing more is written.
      }
      let h = try DeviceHarness(directory: directory, config: config)
      h.device.start()
      let after = h.device.state
      let had = before.remaining(at: cutAt) ?? 0
      switch before.phase {
      case .running, .paused:
        XCTAssertEqual(after.phase, .paused, "cut at \(cut)")
        XCTAssertTrue(after.restored)
        let kept = after.remaining(at: h.clock.now) ?? 0
        XCTAssertGreaterThanOrEqual(kept, had, "never less time than it had (cut at \(cut))")
        XCTAssertLessThanOrEqual(kept - had, seconds(10), "at most 10 s lost (cut at \(cut))")
      case .ringing:
        XCTAssertEqual(after.phase, .idle, "a ringing timer comes back with the break preselected")
        XCTAssertEqual(after.mode, .shortBreak)
      case .idle:
        XCTAssertEqual(after.phase, .idle)
      }
      let (entries, damaged) = try HistoryLog(directory: directory).read()
      XCTAssertEqual(damaged, [])
      XCTAssertEqual(entries.count, before.phase == .ringing ? 1 : 0, "cut at \(cut)")
    }
  }
}
