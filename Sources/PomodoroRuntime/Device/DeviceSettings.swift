import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// The settings from `pomodoro ctl config` and the page: the settable keys listed with where
/// each comes from, set or reset over the config file, validated as the file is, kept in the
/// state directory's overlay (`SettingsStore`) and applied at once as SIGHUP applies its live
/// keys (`reconfigure`: the idle picker shows a new preset of its mode unless it was dialed).
extension Device {
  /// The item lines that answer a config command (`ControlCommand.isConfig`), or why it is
  /// refused (the config file's message for a bad key or value; while the overlay's last save
  /// failed, which changes nothing). A change applies at once and is saved with the state by the
  /// save writer (`SaveJob.settings`, off the loop where a thread writes; the last set before a
  /// save wins); its reply is held until that save has ended (`ReplyHold`), so once it is
  /// answered it survives a power cut.
  public func settingsAnswer(_ command: ControlCommand) -> Result<[String], ControlProtocol.Refusal> {
    let changed: Result<(ConfigLayers, ConfigKey), ControlProtocol.Refusal>
    switch command {
    case .config: return .success(layers.items.map(ControlProtocol.itemLine))
    case .configSet(let key, let value): changed = layers.setting(key, to: value).mapError(ControlProtocol.Refusal.init)
    case .configReset(let key): changed = layers.resetting(key).mapError(ControlProtocol.Refusal.init)
    default: return .failure(.init("'\(command.name)' is not a config command"))
    }
    return changed.flatMap { next, key in
      if let recorder, let store = storage?.settings, next.overlay != layers.overlay {
        if let failure = recorder.settingsFailure {
          // Tried again at the next save (now): a set after the disk is back is taken.
          saveDue = true
          log.error("saving \(store.path) failed: \(failure); \(key.name) keeps \(key.value(config) ?? "its value")")
          return .failure(
            .init("saving \(store.path) failed: \(failure); nothing changed (try again once it can be written)"))
        }
        recorder.pendingSettings = next.overlayText
        saveDue = true
      }
      apply(next)
      log.notice("\(key.name) = \(key.value(config) ?? "unset") (from \(next.from(key.name))), by the control socket")
      return .success([ControlProtocol.itemLine(next.item(key))])
    }
  }

  /// Runs on `next`'s settable keys from now on (the others stay as they run).
  func apply(_ next: ConfigLayers) {
    var running = config
    for key in ConfigKey.settableKeys { key.copy(&running, next.config) }
    reconfigure(running, layers: next)
  }

  /// The overlay on disk, each bad line logged and ignored (`SessionRecorder.overlay`); nil
  /// without a state directory, or when it cannot be read at all.
  public func readOverlay() -> [String: String]? { recorder?.overlay(for: layers) }
}
