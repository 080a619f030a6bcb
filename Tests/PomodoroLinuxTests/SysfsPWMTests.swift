import Foundation
import PomodoroCore
import PomodoroDrivers
import PomodoroLinux
import XCTest

/// A fake sysfs in a temporary folder that acts as the kernel's PWM class does: `export` makes
/// the channel's attributes, which stay unwritable until "udev" has run (a few pauses later);
/// a write before the export, or before udev, fails; the duty may never exceed the period, nor
/// a channel be enabled without a period. The real writer (`SysfsPWM` over `PosixSysfs`) is
/// what runs against it.
final class FakeSysfs: SysfsAccess {
  let top: String
  let real = PosixSysfs()
  /// Pauses left before udev makes an exported channel's attributes writable (nil: never).
  var udevAfter: Int?
  var pausesLeft: [String: Int] = [:]
  var writes: [String] = []
  var pauses = 0

  init(chips: [(number: Int, device: String, channels: Int)], udevAfter: Int? = 3) throws {
    top = NSTemporaryDirectory() + "fake-sysfs-\(UUID().uuidString)"
    self.udevAfter = udevAfter
    let fm = FileManager.default
    try fm.createDirectory(atPath: top + "/class/pwm", withIntermediateDirectories: true)
    for chip in chips {
      let dir = "\(top)/devices\(chip.device)/pwm/pwmchip\(chip.number)"
      try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
      try "\(chip.channels)\n".write(toFile: dir + "/npwm", atomically: false, encoding: .utf8)
      for name in ["export", "unexport"] { fm.createFile(atPath: "\(dir)/\(name)", contents: nil) }
      try fm.createSymbolicLink(atPath: "\(top)/class/pwm/pwmchip\(chip.number)", withDestinationPath: dir)
    }
  }

  var root: String { top + "/class/pwm" }

  deinit { try? FileManager.default.removeItem(atPath: top) }

  func list(_ directory: String) throws -> [String] { try real.list(directory) }
  func resolve(_ path: String) -> String? { real.resolve(path) }
  func read(_ path: String) -> String? { real.read(path) }
  func pause() {
    pauses += 1
    for (dir, left) in pausesLeft { pausesLeft[dir] = left - 1 }
  }

  func locked(_ path: String) -> Bool {
    let dir = (path as NSString).deletingLastPathComponent
    guard let key = real.resolve(dir) else { return false }
    guard let left = pausesLeft[key] else { return false }
    return udevAfter == nil || left > 0
  }

  func writable(_ path: String) -> Bool { real.resolve(path) != nil && !locked(path) }

  func failure(_ path: String, _ text: String, _ why: String) -> SysfsPWMError {
    SysfsPWMError("\(why): writing \(text) to \(path)")
  }

  func write(_ path: String, _ text: String) throws {
    let name = (path as NSString).lastPathComponent
    let dir = (path as NSString).deletingLastPathComponent
    writes.append("\(name)=\(text)")
    let fm = FileManager.default
    switch name {
    case "export", "unexport":
      guard let n = Int(text), let npwm = read(dir + "/npwm").flatMap(Int.init), n >= 0, n < npwm else {
        throw failure(path, text, "EINVAL")
      }
      let channel = "\(real.resolve(dir)!)/pwm\(n)"
      if name == "unexport" {
        guard fm.fileExists(atPath: channel) else { throw failure(path, text, "EINVAL") }
        try fm.removeItem(atPath: channel)
        return
      }
      guard !fm.fileExists(atPath: channel) else { throw failure(path, text, "EBUSY") }
      try fm.createDirectory(atPath: channel, withIntermediateDirectories: false)
      for attribute in ["period", "duty_cycle", "enable"] {
        try "0\n".write(toFile: "\(channel)/\(attribute)", atomically: false, encoding: .utf8)
      }
      pausesLeft[channel] = udevAfter ?? 1
    case "period", "duty_cycle", "enable":
      guard real.resolve(path) != nil else { throw failure(path, text, "ENOENT: not exported") }
      guard !locked(path) else { throw failure(path, text, "EACCES: before udev") }
      guard let value = Int64(text) else { throw failure(path, text, "EINVAL") }
      let period = read(dir + "/period").flatMap { Int64($0) } ?? 0
      let duty = read(dir + "/duty_cycle").flatMap { Int64($0) } ?? 0
      switch name {
      case "period": guard value >= duty, value > 0 else { throw failure(path, text, "EINVAL: period below duty") }
      case "duty_cycle": guard value <= period else { throw failure(path, text, "EINVAL: duty above period") }
      default:
        guard value == 0 || value == 1 else { throw failure(path, text, "EINVAL") }
        guard value == 0 || period > 0 else { throw failure(path, text, "EINVAL: enabled without a period") }
      }
      // sysfs replaces an attribute's value; a plain file must be emptied first.
      _ = truncate(path, 0)
      try real.write(path, text)
    default:
      throw failure(path, text, "EACCES: no such attribute")
    }
  }

  /// What the channel's attributes hold now.
  func attribute(_ chip: Int, _ channel: Int, _ name: String) -> String? {
    read("\(root)/pwmchip\(chip)/pwm\(channel)/\(name)")
  }
}

final class SysfsPWMTests: XCTestCase {
  static let rp1 = "/platform/axi/1000120000.pcie/1f00098000.pwm"
  static let gpio = "/platform/pwm-gpio"

  func testAutoFindsThePi5sChipExportsWaitsForUdevAndPlaysInTheABIsOrder() throws {
    let fake = try FakeSysfs(chips: [(0, Self.rp1, 4), (1, Self.gpio, 1)])
    let pwm = try SysfsPWM(chip: nil, channel: nil, root: fake.root, access: fake)
    XCTAssertEqual(pwm.chip, "pwmchip0")
    XCTAssertEqual(pwm.channel, 2, "GPIO18 is the RP1's channel 2")
    XCTAssertTrue(pwm.devicePath.hasSuffix("/devices" + Self.rp1), pwm.devicePath)
    XCTAssertEqual(fake.writes.first, "export=2")
    XCTAssertEqual(fake.pauses, 3, "waited for udev, no longer")
    // Every built-in tune at every volume: the fake refuses any write out of order.
    for (name, _) in BuiltInTunes.all {
      for volume in [1, 6, 10] {
        var player = MelodyPlayer()
        var t = Instant(nanoseconds: 0)
        player.start(BuiltInTunes.named(name)!, gap: nil, at: t)
        try player.drive(pwm, duty: Volume.duty(volume), at: t)
        while let next = player.nextChange(after: t) {
          t = next
          try player.drive(pwm, duty: Volume.duty(volume), at: t)
        }
      }
    }
    XCTAssertGreaterThan(fake.writes.count, 300)
    XCTAssertEqual(fake.attribute(0, 2, "enable"), "0")
    pwm.release()
    XCTAssertEqual(fake.writes.suffix(1), ["unexport=2"])
    XCTAssertNil(fake.attribute(0, 2, "enable"), "unexported")
    pwm.release()
    XCTAssertEqual(fake.writes.suffix(1), ["unexport=2"], "release is idempotent")
  }

  /// A channel left sounding by a crash: opened as it stands (not exported again), disabled at
  /// once, a lower period than the old duty reached duty first, and not unexported at release.
  func testAChannelLeftOnIsDisabledAtOpenAndItsOldSettingsRespected() throws {
    let fake = try FakeSysfs(chips: [(0, Self.gpio, 1)])
    try fake.write(fake.root + "/pwmchip0/export", "0")
    for _ in 0..<3 { fake.pause() }
    try fake.write(fake.root + "/pwmchip0/pwm0/period", "10000000")
    try fake.write(fake.root + "/pwmchip0/pwm0/duty_cycle", "5000000")
    try fake.write(fake.root + "/pwmchip0/pwm0/enable", "1")
    fake.writes = []
    let pwm = try SysfsPWM(chip: "pwm-gpio", channel: nil, root: fake.root, access: fake)
    XCTAssertEqual(fake.writes, ["enable=0"])
    try pwm.set(frequencyHz: 4000, duty: 0.5)
    XCTAssertEqual(fake.writes, ["enable=0", "duty_cycle=125000", "period=250000", "enable=1"])
    try pwm.silence()
    XCTAssertEqual(fake.attribute(0, 0, "enable"), "0")
    // Found exported (by a crashed run, or by the device while `tune` plays): left exported.
    pwm.release()
    XCTAssertEqual(fake.writes.last, "enable=0")
    XCTAssertEqual(fake.attribute(0, 0, "enable"), "0")
  }

  /// Chip numbers move between kernels (raspberrypi/linux#6818): the device path finds the same
  /// chip under either number.
  func testTheChipIsFoundByItsDevicePathWhateverItsNumber() throws {
    for (rp1, other) in [(0, 1), (1, 0)] {
      let fake = try FakeSysfs(chips: [(rp1, Self.rp1, 4), (other, Self.gpio, 1)])
      let pwm = try SysfsPWM(chip: "1f00098000.pwm", channel: nil, root: fake.root, access: fake)
      XCTAssertEqual(pwm.chip, "pwmchip\(rp1)")
      XCTAssertEqual(pwm.channel, 2)
      let named = try SysfsPWM(chip: "pwmchip\(other)", channel: 0, root: fake.root, access: fake)
      XCTAssertTrue(named.devicePath.hasSuffix("pwm-gpio"))
    }
  }

  func testRefusalsNameTheChipsTheChannelsAndTheFix() throws {
    let none = try FakeSysfs(chips: [])
    XCTAssertThrowsError(try SysfsPWM(chip: nil, channel: nil, root: none.root, access: none)) {
      XCTAssertTrue("\($0)".contains("found: none); turn the PWM overlay on (dtoverlay=pwm"), "\($0)")
    }
    let fake = try FakeSysfs(chips: [(0, Self.gpio, 1)])
    XCTAssertThrowsError(try SysfsPWM(chip: "fe20c000.pwm", channel: nil, root: fake.root, access: fake)) {
      XCTAssertTrue("\($0)".contains("no PWM chip 'fe20c000.pwm'"), "\($0)")
      XCTAssertTrue("\($0)".contains("pwmchip0 ("), "\($0)")
    }
    XCTAssertThrowsError(try SysfsPWM(chip: nil, channel: 3, root: fake.root, access: fake)) {
      XCTAssertTrue("\($0)".contains("has 1 channel; pwm_channel 3 is not one of them"), "\($0)")
    }
    let noUdev = try FakeSysfs(chips: [(0, Self.gpio, 1)], udevAfter: nil)
    XCTAssertThrowsError(try SysfsPWM(chip: nil, channel: nil, root: noUdev.root, access: noUdev)) {
      XCTAssertTrue("\($0)".contains("udev rule"), "\($0)")
    }
    XCTAssertEqual(noUdev.pauses, SysfsPWM.attempts - 1)
  }
}
