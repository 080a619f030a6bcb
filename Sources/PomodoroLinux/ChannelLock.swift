#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The passive buzzer's PWM channel has one owner at a time: an advisory lock (flock(2)) on a
/// file in the device's runtime directory (`/run/pomodoro/pwm.lock` by default: beside the
/// control socket). The device holds it from its start to its exit; `pomodoro tune` and
/// `pomodoro probe` take it before they touch the channel, and refuse while the device holds
/// it. The kernel drops the lock with its holder, however that ends (a crash, SIGKILL): a lock
/// is never left behind, whatever the file's contents.
public final class ChannelLock {
  public let path: String
  /// Whether `take` may make the lock's directory (0750, as the service's RuntimeDirectory is):
  /// the device's, run by hand; `tune` makes nothing.
  let makesDirectory: Bool
  var fd: Int32 = -1
  public private(set) var held = false

  public enum Outcome: Equatable, Sendable {
    /// This process holds the channel.
    case held
    /// Another process holds it (the device, or another `tune` or `probe`).
    case busy
    /// There is no lock file and none can be made here (its directory is missing or not
    /// writable): no device runs with this runtime directory.
    case absent(String)
    /// The lock file is there but cannot be opened (the reason and the fix).
    case denied(String)
  }

  public init(path: String, makesDirectory: Bool = false) {
    self.path = path
    self.makesDirectory = makesDirectory
  }

  deinit { release() }

  /// Takes the lock if no one holds it (never waits); may be asked again while `busy`.
  public func take() -> Outcome {
    if held { return .held }
    if fd < 0 {
      if makesDirectory, let slash = path.lastIndex(of: "/"), slash > path.startIndex {
        _ = mkdir(String(path[..<slash]), 0o750)
      }
      fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
      if fd >= 0 {
        // The service's umask (0077) would leave it to the service's user alone: the group
        // (pomodoro: `tune` run by its members) may open it to see whether it is held.
        _ = fchmod(fd, 0o640)
      } else {
        let made = errno
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
          let code = errno
          if code == ENOENT {
            return .absent("\(path) cannot be made (\(String(cString: strerror(made))))")
          }
          return .denied(Self.advice(path, code))
        }
      }
    }
    if flock(fd, LOCK_EX | LOCK_NB) == 0 {
      held = true
      return .held
    }
    let code = errno
    if code == EWOULDBLOCK || code == EAGAIN || code == EINTR { return .busy }
    return .denied(Self.advice(path, code))
  }

  /// Gives the lock back (closing the file drops it). Idempotent.
  public func release() {
    if fd >= 0 { close(fd) }
    fd = -1
    held = false
  }

  static func advice(_ path: String, _ code: Int32) -> String {
    let reason = String(cString: strerror(code))
    if code == EACCES || code == EPERM {
      return
        "cannot open \(path) to see whether the device holds the buzzer (\(reason)): join the group pomodoro (sudo usermod -aG pomodoro $USER, then log in again) or use sudo"
    }
    return "cannot lock \(path) (\(reason))"
  }

  /// What `tune` and `probe` say when the device holds the channel: the service and how to stop it.
  public static func busyMessage(_ path: String) -> String {
    "the buzzer's PWM channel is in use by the running device (pomodoro.service; \(path) is held), or by another "
      + "`pomodoro tune` or `probe`: stop the device first with `sudo systemctl stop pomodoro` (and start it again "
      + "with `sudo systemctl start pomodoro`)"
  }
}
