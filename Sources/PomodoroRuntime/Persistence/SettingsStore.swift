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
