import PomodoroControl
import PomodoroCore
import PomodoroSystem

extension Device {
  /// `history`'s item lines: the records of the last `days` local days, oldest first (none
  /// without a state directory: the simulator keeps no history).
  public func historyItems(days: Int) -> Result<[String], ControlProtocol.Refusal> {
    guard let recorder else { return .success([]) }
    do {
      return .success(try recorder.recent(days: days).map { ControlProtocol.itemLine("history", object: $0) })
    } catch {
      return .failure(.init("reading the history failed: \(error)"))
    }
  }
}
