import PomodoroDrivers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the PWM writer needs of the file system: the real one (`PosixSysfs`) on /sys/class/pwm,
/// or a test's fake tree in a temporary folder that acts as the kernel does.
public protocol SysfsAccess: AnyObject {
  /// The names in a directory (without . and ..).
  func list(_ directory: String) throws -> [String]
  /// The path with every symbolic link resolved (realpath); nil when nothing is there.
  func resolve(_ path: String) -> String?
  /// A small attribute's text, trimmed; nil when there is no such file.
  func read(_ path: String) -> String?
  /// Writes `text` to an attribute in one write(2).
  func write(_ path: String, _ text: String) throws
  /// Whether this process may write `path` (access W_OK): udev may not have given it the group yet.
  func writable(_ path: String) -> Bool
  /// Waits a little before looking again (the real one sleeps 10 ms; only while opening).
  func pause()
}

/// A failed write or a missing chip, with the path and the fix.
public struct SysfsPWMError: Error, CustomStringConvertible, Equatable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

// read(2) and write(2) under names the class's own methods do not hide.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func writeBytes(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }

/// The real file system.
public final class PosixSysfs: SysfsAccess {
  public init() {}

  public func list(_ directory: String) throws -> [String] {
    guard let dir = opendir(directory) else {
      throw SysfsPWMError("\(directory): \(String(cString: strerror(errno)))")
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  public func resolve(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  public func read(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = buffer.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress, 64) }
    guard n >= 0 else { return nil }
    return String(decoding: buffer[..<n], as: UTF8.self).filter { !$0.isWhitespace }
  }

  public func write(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SysfsPWMError(Self.advice(path, errno)) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    let n = bytes.withUnsafeBytes { writeBytes(fd, $0.baseAddress, bytes.count) }
    if n != bytes.count { throw SysfsPWMError(Self.advice(path, n < 0 ? errno : EIO, writing: text)) }
  }

  public func writable(_ path: String) -> Bool { access(path, W_OK) == 0 }

  public func pause() {
    var span = timespec(tv_sec: 0, tv_nsec: 10_000_000)
    _ = nanosleep(&span, nil)
  }

  static func advice(_ path: String, _ code: Int32, writing text: String? = nil) -> String {
    let what = text.map { "writing \($0) to \(path)" } ?? path
    let reason = String(cString: strerror(code))
    switch code {
    case EACCES, EPERM:
      return
        "\(what): \(reason); the package's udev rule (/usr/lib/udev/rules.d/60-pomodoro.rules) gives the group pomodoro the PWM attributes: reinstall the package or run `sudo udevadm trigger -s pwm`"
    case ENOENT:
      return "\(what): \(reason); is the PWM overlay on (dtoverlay=pwm in /boot/firmware/config.txt, then reboot)?"
    default:
      return "\(what): \(reason)"
    }
  }
}

/// The passive buzzer's Linux twin: one channel of a kernel PWM chip through sysfs. The chip is
/// found by its device path, never by its number (which moved between kernels on a Pi 5:
/// raspberrypi/linux#6818); the channel is exported, its attributes waited for until udev has
/// made them writable, and written in the order `PWMPlan` gives (the duty never above the
/// period). It is disabled at open (a crash may have left it on), at `silence` and at
/// `release`, which unexports it if this writer exported it (a channel found exported, by a
/// crashed run, is left exported and disabled).
///
/// One owner at a time (`ChannelLock`): with a lock, nothing is written to the channel until
/// the lock is held. `pomodoro tune` and `probe` refuse while another holds it (`whenBusy:
/// .refuse`, the device's service named in the message); the device (`.wait`) stays silent and
/// takes the channel at its first note after the holder ends. Before each note the writer checks
/// that the channel it believes enabled is (a channel disabled or unexported behind its back is
/// enabled, or exported, again): a note is never written to a channel it does not hold enabled.
public final class SysfsPWM: ToneOutput {
  public let root: String
  public let chip: String
  /// The chip's device path (what `pwm_chip` matches), for messages.
  public let devicePath: String
  public let channel: Int
  let access: SysfsAccess
  var plan: PWMPlan
  /// Whether this writer exported the channel (and so unexports it at `release`).
  public private(set) var exportedHere = false
  var released = false
  /// The channel's one-owner lock (nil: none, as before, for a test's writer).
  public let lock: ChannelLock?
  /// What to do when another holds the lock: refuse at open (`tune`, `probe`), or wait silent
  /// and take it at a later note (the device).
  public enum WhenBusy: Sendable { case refuse, wait }
  /// Whether the channel is this writer's: its lock held (or no lock to take), exported, its
  /// attributes writable, disabled once. Nothing is written before.
  public private(set) var claimed = false
  /// Why the channel goes without its lock (no lock file can be made, or it cannot be opened),
  /// for the device's log; nil when it is locked.
  public private(set) var lockNote: String?
  /// How many times `open` looks for writable attributes after the export (10 ms apart: 2 s).
  public static let attempts = 200

  /// The channel's directory, like /sys/class/pwm/pwmchip0/pwm2.
  public var directory: String { "\(root)/\(chip)/pwm\(channel)" }

  /// What the probe says: "channel 2 of pwmchip0 (/sys/devices/.../1f00098000.pwm)".
  public var name: String { "channel \(channel) of \(chip) (\(devicePath))" }

  /// The chips under `root`: name and device path, sorted by device path.
  public static func chips(root: String = "/sys/class/pwm", access: SysfsAccess = PosixSysfs()) -> [(
    name: String, device: String
  )] {
    let names = ((try? access.list(root)) ?? []).filter { $0.hasPrefix("pwmchip") }
    return names.map { name in
      let resolved = access.resolve("\(root)/\(name)") ?? "\(root)/\(name)"
      // The class entry resolves to .../DEVICE/pwm/pwmchipN: the device is two levels up.
      var parts = resolved.split(separator: "/", omittingEmptySubsequences: false)
      if parts.count > 2 && parts[parts.count - 2] == "pwm" { parts.removeLast(2) }
      return (name, parts.joined(separator: "/"))
    }.sorted { $0.device < $1.device }
  }

  /// GPIO18's channel on the chip at `device`: 2 on a Pi 5's RP1 (1f00098000.pwm), else 0.
  public static func autoChannel(device: String) -> Int { device.hasSuffix("1f00098000.pwm") ? 2 : 0 }

  /// Opens `chipSpec` (nil: auto; else a chip name like pwmchip0 or the end of its device path)
  /// and `channelSpec` (nil: auto) under `root`.
  /// `lock`: the channel's lock, taken before anything is looked at or written; when another
  /// holds it, `whenBusy` says whether to refuse (the message names the service and how to
  /// stop it) or to wait.
  public init(
    chip chipSpec: String?, channel channelSpec: Int?, root: String = "/sys/class/pwm",
    access: SysfsAccess = PosixSysfs(), lock: ChannelLock? = nil, whenBusy: WhenBusy = .refuse
  ) throws {
    self.root = root
    self.access = access
    self.lock = lock
    var note: String?
    var waiting = false
    switch lock?.take() {
    case nil, .held?: break
    case .busy?:
      guard whenBusy == .wait else { throw SysfsPWMError(ChannelLock.busyMessage(lock?.path ?? "")) }
      waiting = true
    case .absent(let why)?:
      note = "\(why): nothing keeps `pomodoro tune` off the buzzer's channel while the device runs"
    case .denied(let why)?:
      guard whenBusy == .wait else { throw SysfsPWMError(why) }
      note = why
    }
    lockNote = note
    let found = Self.chips(root: root, access: access)
    let listed = found.isEmpty ? "none" : found.map { "\($0.name) (\($0.device))" }.joined(separator: ", ")
    let chosen: (name: String, device: String)?
    if let chipSpec {
      chosen = found.first { $0.name == chipSpec || $0.device.hasSuffix(chipSpec) || $0.device == chipSpec }
    } else {
      chosen = found.first
    }
    guard let chosen else {
      lock?.release()
      let fix =
        found.isEmpty
        ? "turn the PWM overlay on (dtoverlay=pwm in /boot/firmware/config.txt for GPIO18, then reboot)"
        : "set pwm_chip to auto or to one of them"
      throw SysfsPWMError("no PWM chip\(chipSpec.map { " '\($0)'" } ?? "") under \(root) (found: \(listed)); \(fix)")
    }
    chip = chosen.name
    devicePath = chosen.device
    channel = channelSpec ?? Self.autoChannel(device: chosen.device)
    let count = access.read("\(root)/\(chip)/npwm").flatMap { Int($0) } ?? 0
    guard channel < count else {
      lock?.release()
      throw SysfsPWMError(
        "\(chip) (\(chosen.device)) has \(count) channel\(count == 1 ? "" : "s"); pwm_channel \(channel) is not one of them: set pwm_channel to auto or below \(count)"
      )
    }
    plan = PWMPlan()
    if !waiting {
      do {
        try claim()
      } catch {
        lock?.release()
        throw error
      }
    }
  }

  /// Makes the channel this writer's (its lock held): exported if it is not, its attributes
  /// waited for until udev has made them writable, read back, disabled.
  func claim() throws {
    let dir = directory
    if access.resolve(dir) == nil {
      try access.write("\(root)/\(chip)/export", String(channel))
      exportedHere = true
    }
    // The attributes appear at once, their group later (udev): wait until they can be written.
    let attributes = ["period", "duty_cycle", "enable"].map { "\(dir)/\($0)" }
    var tries = 0
    while !attributes.allSatisfy(access.writable) {
      tries += 1
      guard tries < Self.attempts else {
        throw SysfsPWMError(PosixSysfs.advice(attributes.first { !access.writable($0) } ?? dir, EACCES))
      }
      access.pause()
    }
    plan = Self.readBack(dir, access)
    try apply(plan.silence())
    claimed = true
  }

  /// Claims the channel if it is not this writer's yet (or no longer: unexported behind its
  /// back); throws, writing nothing, while another holds the lock.
  func ready() throws {
    if claimed && access.resolve(directory) == nil {
      claimed = false
      exportedHere = false
    }
    guard !claimed else { return }
    if let lock, lock.take() == .busy {
      throw SysfsPWMError(
        "the buzzer's PWM channel is held by `pomodoro tune` or `probe` (\(lock.path)); the device sounds on it again once that ends"
      )
    }
    try claim()
  }

  /// The channel as the kernel has it (a previous run's settings survive an export).
  static func readBack(_ dir: String, _ access: SysfsAccess) -> PWMPlan {
    func number(_ name: String) -> Int64 { access.read("\(dir)/\(name)").flatMap { Int64($0) } ?? 0 }
    return PWMPlan(period: number("period"), duty: number("duty_cycle"), enabled: number("enable") == 1)
  }

  public func set(frequencyHz: Double, duty: Double) throws {
    try ready()
    // Believed enabled but not (disabled behind this writer's back): the truth read back, so
    // the note's writes enable it.
    if plan.enabled && access.read("\(directory)/enable") != "1" { plan = Self.readBack(directory, access) }
    try apply(plan.set(frequencyHz: frequencyHz, duty: duty))
  }

  /// Nothing to stop on a channel this writer does not hold.
  public func silence() throws {
    guard claimed else { return }
    try apply(plan.silence())
  }

  public func release() {
    guard !released else { return }
    released = true
    if claimed {
      try? silence()
      if exportedHere { try? access.write("\(root)/\(chip)/unexport", String(channel)) }
    }
    claimed = false
    lock?.release()
  }

  func apply(_ writes: [PWMWrite]) throws {
    for write in writes {
      do {
        try access.write("\(directory)/\(write.attribute)", write.value)
      } catch {
        // What the kernel kept is read back, so the next plan starts from the truth.
        plan = Self.readBack(directory, access)
        throw error
      }
    }
  }
}
