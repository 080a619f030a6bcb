import PomodoroCore
import PomodoroSystem

/// Where the control socket lives.
public enum ControlPaths {
  /// The interactive simulator's per-user socket: `$XDG_RUNTIME_DIR/pomodoro-simulator.sock`, or,
  /// without a runtime directory, `simulator.sock` in `privateDirectory`.
  public static var simulator: String {
    if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty {
      return dir + "/pomodoro-simulator.sock"
    }
    return privateDirectory + "/simulator.sock"
  }

  /// `/tmp/pomodoro-UID`, the user's own folder (0700) for the simulator's socket where there is
  /// no runtime directory: a name right in /tmp could be bound first by another user.
  public static var privateDirectory: String { "/tmp/pomodoro-\(getuid())" }

  /// A folder that is not the user's own to keep a socket in.
  public struct UnsafeDirectory: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problem: String
    public var description: String { "\(path) \(problem)" }
  }

  /// Makes `directory` (0700) where it is missing, then checks it is this user's own: a folder,
  /// not a link to one, owned by this user, that no one else may enter or write. mkdir never
  /// follows a link, and lstat looks at the name itself.
  public static func makePrivate(_ directory: String) throws {
    if mkdir(directory, 0o700) != 0 && currentErrno() != EEXIST {
      throw SystemError("cannot create \(directory)")
    }
    var info = stat()
    guard lstat(directory, &info) == 0 else { throw SystemError("cannot look at \(directory)") }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw UnsafeDirectory(path: directory, problem: "is not a folder (a link or a file): remove it, then start again")
    }
    guard info.st_uid == getuid() else {
      throw UnsafeDirectory(
        path: directory,
        problem:
          "belongs to uid \(info.st_uid), not to you (uid \(getuid())): another user made it first; have root remove "
          + "it, or set XDG_RUNTIME_DIR")
    }
    guard info.st_mode & 0o077 == 0 else {
      throw UnsafeDirectory(
        path: directory,
        problem: "lets other users in (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 700 \(directory)")
    }
  }

  /// Whether a reply from a process of user `peer` is to be believed: the user itself, root, or
  /// the device's service user; anyone else may have bound the socket's name first.
  public static func trusts(peer: uid_t, me: uid_t = getuid(), service: uid_t? = serviceUID) -> Bool {
    peer == me || peer == 0 || peer == service
  }

  /// The service user's id, where that user exists.
  public static var serviceUID: uid_t? { getpwnam(UnixSocket.serviceUser).map { $0.pointee.pw_uid } }
}
