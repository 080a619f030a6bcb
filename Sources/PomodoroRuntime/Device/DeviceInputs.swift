import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// The buttons and the encoder: the lines' edges read while they work, mapped to actions
/// (`InputMapper`: decoding, debouncing, long presses). A read that fails is said once, and the
/// lines are ignored until restart (a failed line may stay readable); the timer keeps time.
struct DeviceInputs {
  let lines: InputLines
  private(set) var mapper: InputMapper
  private(set) var failed = false

  init(_ lines: InputLines, mapper: (_ levels: [Bool]) -> InputMapper) {
    self.lines = lines
    self.mapper = mapper((try? lines.levels()) ?? [])
  }

  /// The actions due by `now`, in time order: the edges read, and what settled since.
  mutating func actions(to now: Instant, log: Log) -> [(Instant, InputMapper.Action)] {
    var actions: [(Instant, InputMapper.Action)] = []
    if !failed {
      do {
        actions = mapper.feed(try lines.readEdges())
      } catch {
        failed = true
        log.error(
          "reading the input lines failed (\(HardwareAdvice.text(error))); the timer keeps time but buttons and the encoder are ignored until restart"
        )
      }
    }
    actions += mapper.advance(to: now)
    actions.sort { $0.0 < $1.0 }
    return actions
  }

  /// Readable when the lines have edges, while they work.
  var descriptor: Int32? { failed ? nil : lines.pollDescriptor }
  /// When a button settles, a long press falls due, or (mock lines) a scripted edge comes.
  var nextDeadline: Instant? { [mapper.nextDeadline, failed ? nil : lines.nextEdgeTime].compactMap { $0 }.min() }
}
