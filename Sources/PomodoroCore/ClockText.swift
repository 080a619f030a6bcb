/// Whole seconds shown for a remaining time: rounded up, so a timer shows 25:00 at its start,
/// 00:01 during its last second and 00:00 only when it rings.
@inlinable public func shownSeconds(_ remaining: Nanoseconds) -> Int64 {
  remaining <= 0 ? 0 : (remaining + nanosecondsPerSecond - 1) / nanosecondsPerSecond
}

/// "MM:SS" below one hour, "H:MM:SS" from one hour.
public func formatClock(_ totalSeconds: Int64) -> String {
  let s = max(0, totalSeconds)
  let h = s / secondsPerHour
  let m = (s % secondsPerHour) / secondsPerMinute
  let sec = s % secondsPerMinute
  func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
  return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(two(m)):\(two(sec))"
}

/// "M:SS" below one hour ("2:00", "15:00"), "H:MM:SS" from one hour: a length in running text.
public func formatShortClock(_ totalSeconds: Int64) -> String {
  let text = formatClock(totalSeconds)
  return text.hasPrefix("0") && text.count == 5 ? String(text.dropFirst()) : text
}

/// The state as one line, written once for the engine's line (the simulator's status, systemd's
/// STATUS=) and `pomodoro ctl status`: `running  focus 2/4  17:42 left, ends 14:32`; a flow's
/// says what it has earned: `running  flow  12:34, break 2:00 earned`. `time` is the panel's;
/// `earned` and `left` are said only of a timer (running or paused); `ends` when known.
public func statusLine(
  phase: Phase, mode: String, cycle: String?, time: String, earnedSeconds: Int64?, sayLeft: Bool, ends: String? = nil
) -> String {
  let timer = phase == .running || phase == .paused
  var line = "\(phase.rawValue)  \(mode)\(cycle.map { " \($0)" } ?? "")  \(time)"
  if timer, let earnedSeconds {
    line += ", break \(formatShortClock(earnedSeconds)) earned"
  } else if timer && sayLeft {
    line += " left"
  }
  if let ends { line += ", ends \(ends)" }
  return line
}
