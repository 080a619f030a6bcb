import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// The scripted run's transcript: one JSON object a line on `write`, `t` in virtual
/// milliseconds since the script started. Keys and their order are an interface (docs/scripts.md).
public final class Transcript: DeviceObserver {
  /// Every event the transcript writes and the keys its lines have: what `# expect` lines may ask
  /// for (a test checks every line of every scenario against it).
  public static let keys: [String: Set<String>] = [
    "state": Set(["t", "event"] + StateFields.coreNames),
    "frame": ["t", "event", "bytes", "shown"],
    "buzzer": ["t", "event", "on"],
    "history": Set(["t", "event"] + HistoryEntry.fieldNames),
    "display": ["t", "event", "on", "contrast", "shift_x", "shift_y"],
    "summary": ["t", "event", "frames", "i2c_bytes", "buzzer_on_ms", "interrupted"],
  ]

  let origin: Instant
  let write: (String) -> Void
  public private(set) var frames = 0
  public private(set) var i2cBytes = 0
  public private(set) var buzzerOnTime: Nanoseconds = 0
  var buzzerOnSince: Instant?

  /// Sees every transcript object as it is written (the script's expectations).
  var onObject: (([String: JSONValue]) -> Void)?

  public init(origin: Instant, write: @escaping (String) -> Void) {
    self.origin = origin
    self.write = write
  }

  func emit(_ pairs: [(String, JSONValue)]) {
    write(FlatJSON.encode(pairs))
    if let onObject { onObject(Dictionary(pairs, uniquingKeysWith: { a, _ in a })) }
  }

  func t(_ at: Instant) -> JSONValue { .int(wholeMilliseconds(at - origin)) }

  public func stateChanged(_ state: EngineState, at: Instant) {
    emit([("t", t(at)), ("event", .string("state"))] + StateFields.core(state, at: at))
  }

  public func frameFlushed(bytes: Int, shown: String, at: Instant) {
    frames += 1
    i2cBytes += bytes
    emit(
      [
        ("t", t(at)), ("event", .string("frame")), ("bytes", .int(Int64(bytes))), ("shown", .string(shown)),
      ])
  }

  public func buzzerChanged(_ on: Bool, at: Instant) {
    if on {
      buzzerOnSince = at
    } else if let since = buzzerOnSince {
      buzzerOnTime += at - since
      buzzerOnSince = nil
    }
    emit([("t", t(at)), ("event", .string("buzzer")), ("on", .bool(on))])
  }

  public func recorded(_ entry: HistoryEntry, at: Instant) {
    emit([("t", t(at)), ("event", .string("history"))] + entry.fields)
  }

  public func displayChanged(_ look: DisplayCare.Look, at: Instant) {
    emit([
      ("event", .string("display")), ("t", t(at)), ("on", .bool(look.on)), ("contrast", .int(Int64(look.contrast))),
      ("shift_x", .int(Int64(look.shift.dx))), ("shift_y", .int(Int64(look.shift.dy))),
    ])
  }

  /// The last line; `interrupted` (a signal's name, `SIGTERM`) is added when the run was cut short.
  public func summary(at end: Instant, interrupted: String? = nil) {
    var onTime = buzzerOnTime
    if let since = buzzerOnSince { onTime += end - since }
    var pairs: [(String, JSONValue)] = [
      ("event", .string("summary")), ("t", t(end)), ("frames", .int(Int64(frames))),
      ("i2c_bytes", .int(Int64(i2cBytes))), ("buzzer_on_ms", .int(wholeMilliseconds(onTime))),
    ]
    if let interrupted { pairs.append(("interrupted", .string(interrupted))) }
    emit(pairs)
  }
}
