import PomodoroSystem

/// A bridge that cannot start for its config (control_socket off, a password or CA file it cannot
/// read, a client libmosquitto refuses to make): `pomodoro mqtt` reports it as a config error
/// (exit 78), which restarting does not mend. libmosquitto missing is said before (exit 69).
public struct BridgeError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// What the bridge reads before it connects: the broker's password and CA file, each checked
/// with the fix named.
enum BridgeCredentials {
  /// The user that the package pomodoro-mqtt makes for the bridge, who alone should read the password.
  static let user = "pomodoro-mqtt"

  /// The password file's first line. Missing or unreadable is an error; readable by its group
  /// or by everyone, a warning (the password is the broker's, and others on the Pi could use it).
  static func readPassword(_ file: String, log: Log) throws -> String {
    let keep = "sudo chown \(user) \(file) && sudo chmod 600 \(file)"
    let text: String?
    do {
      text = try Files.readText(file, limit: 4096)
    } catch {
      throw BridgeError("mqtt_password_file: \(error); the bridge's user \(user) must be able to read it: \(keep)")
    }
    guard let text else {
      throw BridgeError(
        "mqtt_password_file \(file) does not exist; create it for the bridge's user alone (sudo install -m 0600 -o \(user) /dev/null \(file)) and write the password in it"
      )
    }
    var info = stat()
    if stat(file, &info) == 0, info.st_mode & 0o044 != 0 {
      log.warning(
        "mqtt_password_file \(file) can be read by its group or by everyone (mode 0\(String(info.st_mode & 0o777, radix: 8))): keep it to the bridge's user: \(keep)"
      )
    }
    return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
  }

  /// The CA file must be a regular file the bridge can read.
  static func checkCafile(_ file: String) throws {
    let found: Bool
    do {
      found = try Files.read(file, limit: 1 << 24) != nil
    } catch {
      throw BridgeError(
        "mqtt_cafile: \(error); the bridge's user \(user) must be able to read it (sudo chmod 644 \(file))")
    }
    guard found else {
      throw BridgeError(
        "mqtt_cafile \(file) does not exist; give the CA certificate (PEM) that signed the broker's, or remove mqtt_cafile for a connection without TLS"
      )
    }
  }
}
