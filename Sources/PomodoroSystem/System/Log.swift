import PomodoroCore

/// Log lines on stderr with the `<N>` priority prefixes journald reads (sd-daemon(3)).
/// The simulator swaps the sink so that lines do not tear its screen. Every message is one
/// physical line with its control characters escaped (`\n`, `\u{1B}`): text from outside (an
/// MQTT payload, a file's contents) can neither start a line journald reads as another
/// priority nor send escape sequences to a terminal.
public final class Log {
  public enum Level: Int, Sendable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
  }

  public var sink: (Level, String) -> Void
  /// Messages already said once (see `once`).
  private var said: Set<String> = []

  public init(sink: @escaping (Level, String) -> Void = Log.stderrSink) { self.sink = sink }

  public static func stderrSink(_ level: Level, _ message: String) {
    let line = "<\(level.rawValue)>\(message)\n"
    writeToStandardError(line)
  }

  public func error(_ m: String) { say(.error, m) }
  public func warning(_ m: String) { say(.warning, m) }
  public func notice(_ m: String) { say(.notice, m) }
  public func info(_ m: String) { say(.info, m) }
  public func debug(_ m: String) { say(.debug, m) }

  public func say(_ level: Level, _ message: String) { sink(level, Self.oneLine(message)) }

  /// `message` with its control and other invisible characters escaped (TextLines.visible);
  /// the message itself when it has none.
  public static func oneLine(_ message: String) -> String {
    message.unicodeScalars.contains { $0.value < 0x20 || $0.value >= 0x7F && TextLines.isInvisible($0) }
      ? TextLines.visible(message) : message
  }

  /// Logs `message` under `key` only the first time until `forget(key)`: a display that stays
  /// unplugged is said once, not every retry.
  public func once(_ key: String, _ level: Level, _ message: String) {
    if said.insert(key).inserted { say(level, message) }
  }

  public func forget(_ key: String) { said.remove(key) }
}

/// Rejections that outsiders can repeat at will (malformed MQTT commands, retained ones, commands
/// dropped while the device does not read) are said at most `burst` times a minute for each
/// kind; past that they are counted, and the count is said once the minute is over: 14,000 junk
/// payloads in 3 s make a handful of lines, not 14,000.
public final class LogLimiter {
  let log: Log
  public let burst: Int
  public let window: Nanoseconds
  struct Window {
    var start: Instant
    var said = 0
    var suppressed = 0
    var level: Log.Level
    var what: String
  }
  var windows: [String: Window] = [:]

  public init(log: Log, burst: Int = 5, window: Nanoseconds = seconds(60)) {
    self.log = log
    self.burst = burst
    self.window = window
  }

  /// Says `message` unless `key`'s kind was said `burst` times in the current minute; `what`
  /// names the kind in the count ("malformed commands on pomodoro/desk-1/command").
  public func say(_ key: String, _ level: Log.Level, _ message: String, what: String, at now: Instant) {
    tick(now)
    var w = windows[key] ?? Window(start: now, level: level, what: what)
    if w.said < burst {
      w.said += 1
      log.say(level, message)
    } else {
      w.suppressed += 1
    }
    windows[key] = w
  }

  /// Says the counts of the minutes that are over.
  public func tick(_ now: Instant) {
    for (key, w) in windows where now - w.start >= window {
      if w.suppressed > 0 {
        log.say(
          w.level, "\(w.suppressed) more \(w.what) in the last \(DurationText.format(window)), not logged one by one")
      }
      windows[key] = nil
    }
  }

  /// When `tick` has a count to say next.
  public var nextDeadline: Instant? {
    windows.values.filter { $0.suppressed > 0 }.map { $0.start + window }.min()
  }
}
