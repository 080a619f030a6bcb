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
  /// refused (the config file's message for a bad key or value; a failed save, which changes
  /// nothing). A change is saved before it applies: once it is answered, it survives a power cut.
  public func settingsAnswer(_ command: ControlCommand) -> Result<[String], ControlProtocol.Refusal> {
    let changed: Result<(ConfigLayers, ConfigKey), ControlProtocol.Refusal>
    switch command {
    case .config: return .success(layers.items)
    case .configSet(let key, let value): changed = layers.setting(key, to: value)
    case .configReset(let key): changed = layers.resetting(key)
    default: return .failure(.init("'\(command.name)' is not a config command"))
    }
    return changed.flatMap { next, key in
      if let store = storage?.settings, next.overlay != layers.overlay {
        do {
          try store.save(next.overlayText)
        } catch {
          log.error("saving \(store.path) failed: \(error); \(key.name) keeps \(key.value(config) ?? "its value")")
          return .failure(
            .init("saving \(store.path) failed: \(error); nothing changed (try again once it can be written)"))
        }
      }
      apply(next)
      log.notice("\(key.name) = \(key.value(config) ?? "unset") (from \(next.from(key.name))), by the control socket")
      return .success([next.item(key)])
    }
  }

  /// Runs on `next`'s settable keys from now on (the others stay as they run).
  func apply(_ next: ConfigLayers) {
    var running = config
    for key in ConfigKey.settableKeys { key.copy(&running, next.config) }
    reconfigure(running, layers: next)
  }

  /// The overlay on disk, each bad line logged (PATH:LINE, what is wrong) and ignored; nil when
  /// it cannot be read at all (logged too: the device runs on without it).
  public func readOverlay() -> [String: String]? {
    guard let store = storage?.settings else { return nil }
    let text: String?
    do {
      text = try store.load()
    } catch {
      log.error(
        "\(store.path): cannot read it: \(error); running without the settings set with pomodoro ctl config set "
          + "(the config file's and the defaults): fix or delete it, then SIGHUP")
      return nil
    }
    guard let text else { return [:] }
    let (overlay, problems) = layers.readOverlay(text, path: store.path)
    for problem in problems {
      log.warning("\(problem); this line is ignored, the rest of \(store.path) applies")
    }
    return overlay
  }
}
