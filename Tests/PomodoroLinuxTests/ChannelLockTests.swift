import Foundation
import PomodoroCore
import PomodoroDrivers
import PomodoroLinux
import XCTest

/// Issue 46 item 3: one owner of the buzzer's PWM channel, on the fake sysfs tree. The device
/// holds the channel's lock (`ChannelLock`, flock on a file in the runtime directory) while it
/// runs: `tune` beside it is refused before it writes anything, with the service and how to stop
/// it; a device that starts while `tune` plays stays silent and takes the channel at its next
/// note after `tune` ends; and no note goes to a channel disabled (or unexported) behind the
/// writer's back.
final class ChannelLockTests: XCTestCase {
  var run = ""
  var lockPath: String { run + "/pwm.lock" }

  override func setUpWithError() throws {
    run = NSTemporaryDirectory() + "pwm-run-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: run) }

  func device(_ fake: FakeSysfs) throws -> SysfsPWM {
    try SysfsPWM(
      chip: nil, channel: nil, root: fake.root, access: fake, lock: ChannelLock(path: lockPath, makesDirectory: true),
      whenBusy: .wait)
  }

  func tune(_ fake: FakeSysfs) throws -> SysfsPWM {
    try SysfsPWM(chip: nil, channel: nil, root: fake.root, access: fake, lock: ChannelLock(path: lockPath))
  }

  func testTuneBesideARunningDeviceIsRefusedNamingTheServiceAndWritesNothing() throws {
    let fake = try FakeSysfs(chips: [(0, SysfsPWMTests.gpio, 1)])
    let running = try device(fake)
    XCTAssertTrue(running.claimed)
    XCTAssertNil(running.lockNote)
    try running.set(frequencyHz: 4000, duty: 0.5)
    let before = fake.writes
    XCTAssertThrowsError(try tune(fake)) { error in
      let text = "\(error)"
      XCTAssertTrue(text.contains("in use by the running device (pomodoro.service"), text)
      XCTAssertTrue(text.contains("sudo systemctl stop pomodoro"), text)
      XCTAssertTrue(text.contains(lockPath), text)
    }
    XCTAssertEqual(fake.writes, before, "the refused tune wrote nothing")
    XCTAssertEqual(fake.attribute(0, 0, "enable"), "1", "the device's note sounds on")
    running.release()
    let after = try tune(fake)
    XCTAssertTrue(after.claimed, "the device gone, tune plays")
    after.release()
  }

  func testADeviceStartedWhileTunePlaysWaitsSilentThenTakesTheChannel() throws {
    let fake = try FakeSysfs(chips: [(0, SysfsPWMTests.gpio, 1)])
    let playing = try tune(fake)
    try playing.set(frequencyHz: 1000, duty: 0.25)
    let before = fake.writes
    let waiting = try device(fake)
    XCTAssertFalse(waiting.claimed)
    try waiting.silence()
    XCTAssertThrowsError(try waiting.set(frequencyHz: 2000, duty: 0.5)) {
      XCTAssertTrue("\($0)".contains("held by `pomodoro tune` or `probe`"), "\($0)")
    }
    XCTAssertEqual(fake.writes, before, "the waiting device wrote nothing")
    XCTAssertEqual(fake.attribute(0, 0, "period"), "1000000", "tune's note untouched")
    playing.release()
    XCTAssertEqual(fake.writes.suffix(2), ["enable=0", "unexport=0"])
    try waiting.set(frequencyHz: 2000, duty: 0.5)
    XCTAssertTrue(waiting.claimed)
    XCTAssertEqual(fake.writes.suffix(4), ["export=0", "period=500000", "duty_cycle=250000", "enable=1"])
    XCTAssertEqual(fake.attribute(0, 0, "enable"), "1")
    waiting.release()
    XCTAssertEqual(fake.writes.suffix(2), ["enable=0", "unexport=0"])
  }

  /// A channel disabled behind the writer's back (what `tune` used to leave for the device: its
  /// PWMPlan still said enabled, so its next notes went out without enable=1), or unexported.
  func testANoteIsNeverWrittenToAChannelDisabledBehindTheWritersBack() throws {
    let fake = try FakeSysfs(chips: [(0, SysfsPWMTests.gpio, 1)])
    let pwm = try device(fake)
    try pwm.set(frequencyHz: 4000, duty: 0.5)
    try fake.write(fake.root + "/pwmchip0/pwm0/enable", "0")
    try pwm.set(frequencyHz: 2000, duty: 0.5)
    XCTAssertEqual(fake.attribute(0, 0, "enable"), "1", "\(fake.writes)")
    XCTAssertEqual(fake.writes.last, "enable=1")
    try fake.write(fake.root + "/pwmchip0/pwm0/enable", "0")
    try fake.write(fake.root + "/pwmchip0/unexport", "0")
    try pwm.set(frequencyHz: 1000, duty: 0.5)
    XCTAssertEqual(fake.attribute(0, 0, "enable"), "1", "\(fake.writes)")
    XCTAssertEqual(fake.attribute(0, 0, "period"), "1000000")
    pwm.release()
    XCTAssertNil(fake.attribute(0, 0, "enable"), "exported again by the writer, so unexported at release")
  }

  /// The lock file: made group-readable whatever the umask (tune run by a member of the group
  /// opens it read-only); none when its directory is missing (no device runs there); dropped
  /// when its holder goes.
  func testTheLockFileAndItsOutcomes() throws {
    let old = umask(0o077)
    let lock = ChannelLock(path: run + "/sub/pwm.lock", makesDirectory: true)
    XCTAssertEqual(lock.take(), .held)
    umask(old)
    var info = stat()
    XCTAssertEqual(stat(run + "/sub/pwm.lock", &info), 0)
    XCTAssertEqual(info.st_mode & 0o777, 0o640)
    let other = ChannelLock(path: run + "/sub/pwm.lock")
    XCTAssertEqual(other.take(), .busy)
    lock.release()
    XCTAssertEqual(other.take(), .held, "asked again once the holder is gone")
    guard case .absent = ChannelLock(path: run + "/missing/pwm.lock").take() else {
      return XCTFail("a missing runtime directory is no lock")
    }
    let fake = try FakeSysfs(chips: [(0, SysfsPWMTests.gpio, 1)])
    let alone = try SysfsPWM(
      chip: nil, channel: nil, root: fake.root, access: fake, lock: ChannelLock(path: run + "/missing/pwm.lock"))
    XCTAssertTrue(alone.claimed, "no runtime directory, no device: tune plays")
    XCTAssertTrue(alone.lockNote?.contains("cannot be made") ?? false, alone.lockNote ?? "")
    alone.release()
  }
}
