#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Log lines on stderr with the `<N>` priority prefixes journald reads (sd-daemon(3)).
/// The simulator swaps the sink so that lines do not tear its screen.
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
    _ = line.withCString { fputs($0, stderr) }
  }

  public func error(_ m: String) { sink(.error, m) }
  public func warning(_ m: String) { sink(.warning, m) }
  public func notice(_ m: String) { sink(.notice, m) }
  public func info(_ m: String) { sink(.info, m) }
  public func debug(_ m: String) { sink(.debug, m) }

  /// Logs `message` under `key` only the first time until `forget(key)`: a display that stays
  /// unplugged is said once, not every retry.
  public func once(_ key: String, _ level: Level, _ message: String) {
    if said.insert(key).inserted { sink(level, message) }
  }

  public func forget(_ key: String) { said.remove(key) }
}
