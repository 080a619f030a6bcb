import Foundation
import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

/// Each built-in tune, played once by `MelodyPlayer` on the recording PWM as the device's loop
/// plays it (woken at each change), against its golden sequence of writes (Golden/tunes/NAME.txt:
/// milliseconds from the start, attribute=value). POMODORO_UPDATE_GOLDEN=1 writes them.
final class TuneGoldenTests: XCTestCase {
  static func sequence(_ tune: Tune, volume: Int) throws -> String {
    let clock = VirtualClock(start: Instant(nanoseconds: 1_000_000_000))
    let start = clock.now
    let pwm = RecordingPWM(now: { clock.now })
    var player = MelodyPlayer()
    player.start(tune, gap: nil, at: start)
    try player.drive(pwm, duty: Volume.duty(volume), at: clock.now)
    while let next = player.nextChange(after: clock.now) {
      clock.advance(to: next)
      try player.drive(pwm, duty: Volume.duty(volume), at: clock.now)
    }
    pwm.release()
    let lines = pwm.entries.map { "\(String(format: "%.3f", Double($0.at - start) / 1e6)) \($0.write)" }
    return "# \(tune.source) at volume \(volume): ms from the start, then the write\n" + lines.joined(separator: "\n")
      + "\n"
  }

  func testEachBuiltInTuneWritesItsGoldenSequence() throws {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/tunes")
    for (name, _) in BuiltInTunes.all {
      let text = try Self.sequence(try XCTUnwrap(BuiltInTunes.named(name)), volume: 6)
      let file = dir.appendingPathComponent("\(name).txt")
      if ProcessInfo.processInfo.environment["POMODORO_UPDATE_GOLDEN"] == "1" {
        try text.write(to: file, atomically: true, encoding: .utf8)
        continue
      }
      let golden = try String(contentsOf: file, encoding: .utf8)
      XCTAssertEqual(text, golden, "\(name) differs from Golden/tunes/\(name).txt")
    }
  }

  /// The sequence's own rules, whatever the golden says: the duty never above the period, the
  /// output enabled only with both set, and disabled at the end.
  func testEverySequenceKeepsTheABIsOrderAndEndsDisabled() throws {
    for (name, _) in BuiltInTunes.all {
      for volume in Volume.range {
        let text = try Self.sequence(try XCTUnwrap(BuiltInTunes.named(name)), volume: volume)
        var period: Int64 = 0
        var duty: Int64 = 0
        var enabled = false
        for line in text.split(separator: "\n").dropFirst() {
          let write = line.split(separator: " ")[1].split(separator: "=")
          let value = Int64(write[1])!
          switch write[0] {
          case "period": period = value
          case "duty_cycle": duty = value
          default:
            enabled = value == 1
            if enabled { XCTAssertTrue(period > 0 && duty > 0, "\(name): enabled before set") }
          }
          XCTAssertLessThanOrEqual(duty, period, "\(name) at \(volume): \(line)")
        }
        XCTAssertFalse(enabled, "\(name) ends disabled")
      }
    }
  }
}
