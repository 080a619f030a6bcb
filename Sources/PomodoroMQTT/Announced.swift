import PomodoroSystem

/// What the bridge told Home Assistant, remembered across restarts (`announced.json` in
/// systemd's STATE_DIRECTORY, /var/lib/pomodoro-mqtt), so that a desk announced under another
/// device id or prefix is withdrawn rather than left behind.
public struct Announced {
  /// The file; nil: remember nothing (no state directory).
  public var file: String?
  let log: Log

  public init(file: String? = Announced.defaultFile(), log: Log) {
    self.file = file
    self.log = log
  }

  /// `$STATE_DIRECTORY/announced.json` (the first directory when it names several).
  public static func defaultFile() -> String? {
    guard let dir = getenv("STATE_DIRECTORY").map({ String(cString: $0) }),
      let first = dir.split(separator: ":").first, !first.isEmpty
    else { return nil }
    return "\(first)/announced.json"
  }

  /// The device last announced, if any and readable.
  public func read() -> BridgeTopics? {
    guard let file, let text = try? Files.readText(file, limit: 4096) else { return nil }
    return BridgeTopics(record: String(TextLines.trimmed(text)))
  }

  /// The retained topics to empty for the device announced before, when it is not `current` (a
  /// new mqtt_device_id or prefix), and says so; none otherwise.
  public func withdrawal(keeping current: BridgeTopics?) -> [String] {
    guard let old = read(), old != current else { return [] }
    log.notice(
      "withdrew the Home Assistant device pomodoro_\(old.deviceId) (\(old.topicPrefix)/\(old.deviceId), announced before under \(old.discoveryPrefix)/): "
        + (current.map { "the bridge is \($0.deviceId) now" } ?? "removed"))
    return old.withdrawal
  }

  /// Remembers `topics` as announced (nil: forgets); a failure is said once and changes nothing else.
  public func remember(_ topics: BridgeTopics?) {
    guard let file else { return }
    do {
      if let topics {
        guard read() != topics else { return }
        try Files.writeAtomically(file, Array((topics.record + "\n").utf8), permissions: 0o644)
      } else if unlink(file) != 0 && currentErrno() != ENOENT {
        throw SystemError("cannot remove \(file)")
      }
    } catch {
      log.once("announced", .warning, "cannot remember the announced device in \(file): \(error)")
    }
  }
}
