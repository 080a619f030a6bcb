import Foundation
import PomodoroCore
import PomodoroDrivers
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// `pomodoro tune NAME --wav FILE`: the file is a 44.1 kHz 16-bit mono WAV whose pitches,
/// measured by counting zero crossings in each note, are the tune's notes; rests are silent.
final class TuneCommandTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "tune-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try "volume = 6\n".write(toFile: directory + "/p.conf", atomically: true, encoding: .utf8)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

  func wav(_ tune: String) throws -> [Int16] {
    let file = directory + "/t.wav"
    XCTAssertEqual(try TuneCommand.run([tune, "--wav", file, "--config", directory + "/p.conf"]), ExitCode.ok)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
    func le(_ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    XCTAssertEqual(Array(bytes[0..<4]), Array("RIFF".utf8))
    XCTAssertEqual(Array(bytes[8..<16]), Array("WAVEfmt ".utf8))
    XCTAssertEqual(le(20, 2), 1, "PCM")
    XCTAssertEqual(le(22, 2), 1, "mono")
    XCTAssertEqual(le(24, 4), 44_100)
    XCTAssertEqual(le(34, 2), 16)
    XCTAssertEqual(Array(bytes[36..<40]), Array("data".utf8))
    XCTAssertEqual(le(40, 4), bytes.count - 44)
    return stride(from: 44, to: bytes.count - 1, by: 2).map { Int16(truncatingIfNeeded: le($0, 2)) }
  }

  func testEachNotesPitchIsMeasuredInTheWave() throws {
    for text in ["chime", "ode", "arpeggio", "scale:d=8,o=5,b=100:c,c#,d,d#,e,f,f#,g,g#,a,a#,b,c8,p,a4"] {
      let samples = try wav(text)
      let tune = try BuiltInTunes.read(text).get()
      var start: Nanoseconds = 0
      var measured = 0
      for segment in MelodyPlayer.segments(tune, gap: nil) {
        defer { start += segment.duration }
        // The middle of the stretch, 5 ms in from each end.
        let from = Int((start + ms(5)) * 44_100 / 1_000_000_000)
        let to = Int((start + segment.duration - ms(5)) * 44_100 / 1_000_000_000)
        guard to - from > 400 else { continue }
        let window = samples[from..<to]
        guard let midi = segment.midi else {
          XCTAssertTrue(window.allSatisfy { $0 == 0 }, "\(text): a rest is silent")
          continue
        }
        var crossings: [Int] = []
        for i in (from + 1)..<to where (samples[i - 1] < 0) != (samples[i] < 0) { crossings.append(i) }
        // Whole periods between the first and the last rising or falling edge alike.
        let periods = Double(crossings.count - 1) / 2
        let hertz = periods * 44_100 / Double(crossings.last! - crossings.first!)
        let want = Tune.frequency(midi: midi)
        XCTAssertEqual(hertz, want, accuracy: want * 0.01, "\(text): \(Tune.noteName(midi: midi))")
        measured += 1
      }
      XCTAssertGreaterThan(measured, 5, text)
      XCTAssertLessThanOrEqual(abs(samples.count - Int(tune.length * 44_100 / 1_000_000_000)), 2, text)
    }
  }

  func testABadTuneIsRefusedWithWhere() {
    XCTAssertThrowsError(try TuneCommand.run(["chimes", "--wav", directory + "/x.wav"])) {
      XCTAssertTrue("\($0)".contains("no built-in tune is called 'chimes'"), "\($0)")
    }
    XCTAssertThrowsError(try TuneCommand.run(["x:d=4:c,q", "--wav", directory + "/x.wav"])) {
      XCTAssertTrue("\($0)".contains("at character 9: expected a note"), "\($0)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/x.wav"))
  }

  /// Issue 46 item 3: `pomodoro tune` beside a running device (its lock held, here by this
  /// test) refuses before it looks at the PWM chip, naming the service and how to stop it (exit
  /// 69); with the lock free it goes on to the chip.
  func testPlayingBesideARunningDeviceIsRefusedNamingTheService() throws {
    let conf = directory + "/run.conf"
    try "control_socket = \(directory)/control.sock\n".write(toFile: conf, atomically: true, encoding: .utf8)
    let fd = open(directory + "/pwm.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
    XCTAssertGreaterThanOrEqual(fd, 0)
    XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
    let busy = captureOutput { PomodoroCLI.main(["tune", "chime", "--config", conf]) }
    XCTAssertEqual(busy.code, ExitCode.hardware, busy.err)
    XCTAssertTrue(busy.err.contains("in use by the running device (pomodoro.service"), busy.err)
    XCTAssertTrue(busy.err.contains("`sudo systemctl stop pomodoro`"), busy.err)
    XCTAssertEqual(busy.out, "", "nothing played")
    close(fd)
    guard ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/pwm")) ?? []).isEmpty else { return }
    let free = captureOutput { PomodoroCLI.main(["tune", "chime", "--config", conf]) }
    XCTAssertTrue(free.err.contains("no PWM chip under /sys/class/pwm"), free.err)
  }
}
