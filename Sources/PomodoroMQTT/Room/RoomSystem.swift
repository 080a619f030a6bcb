import PomodoroSystem

/// The room bridge's two readings of the system: the wall clock and systemd-timesyncd's flag
/// (`RoomClock` is pure: these are handed to it).
extension RoomBridge {
  /// The wall clock in ms since the epoch (only for `sent_ms` and the wall-age).
  public static func systemWallMs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
  }

  /// Whether systemd-timesyncd's flag (or the test hook's, `POMODORO_TIMESYNC_FLAG`) is there.
  public static func systemTimesyncFlag() -> Bool {
    let hook = getenv(RoomClock.flagVariable).map { String(cString: $0) }
    return Files.exists(RoomClock.flagPath(environment: hook.map { [RoomClock.flagVariable: $0] } ?? [:]))
  }
}
