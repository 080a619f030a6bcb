import PomodoroConfig
import PomodoroSystem

/// The overlay of settings on disk (`settings.conf` in the state directory): the keys set with
/// `pomodoro ctl config set` or the page, in the config file's `key = value` syntax
/// (`ConfigLayers.overlayText`), replaced atomically as the state is (temporary file, fsync,
/// rename, fsync of the directory), so that a power cut leaves the old overlay or the new one.
public struct SettingsStore {
  public let path: String
  public let fileSystem: FileSystem

  public init(directory: String, fileSystem: FileSystem = PosixFileSystem.shared) {
    path = directory + "/" + ConfigLayers.overlayName
    self.fileSystem = fileSystem
  }

  /// The overlay's text, nil when there is none. Read whole, at most `Files.textLimit` (1 MiB;
  /// the device writes a few hundred bytes), and only from a regular file.
  public func load() throws -> String? { try fileSystem.readText(path) }

  /// Replaces the overlay with `text`.
  public func save(_ text: String) throws {
    try Files.writeAtomically(path, Array(text.utf8), permissions: 0o644, in: fileSystem)
  }
}

extension SessionRecorder {
  /// The overlay on disk read against `layers`, each bad line logged (PATH:LINE, what is wrong)
  /// and ignored; nil when it cannot be read at all (logged too: the device runs on without it).
  /// A set not yet on disk is `layers`' overlay (the file is the one before it); one being
  /// written is read once it is.
  public func overlay(for layers: ConfigLayers) -> [String: String]? {
    let store = storage.settings
    if pendingSettings != nil { return layers.overlay }
    settle()
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
