import PomodoroConfig
import PomodoroSystem

/// What SIGHUP does to `pomodoro run`: the config is read again and each changed key is judged by
/// its row in `ConfigKey.all`: a live key (timer settings, the click, OLED care) applies at once,
/// keeping the timer as it is; a key the device reads only at start (the hardware, the state
/// directory, the control socket) is named with its line and the command that applies it; a key
/// of the MQTT bridge's changes nothing in the device and says so. A config that does not parse is
/// logged with FILE:LINE and the device carries on with the config it has, as it does with an
/// empty file. SIGHUP never stops it. The overlay of `pomodoro ctl config set` (read again from the
/// state directory) stays over the file: a key it holds keeps its value, and a change of that key
/// in the file is named as one the overlay wins over, with `ctl config reset` to go back.
public enum ConfigReload {
  /// What a reload came to.
  public enum Outcome: Equatable {
    /// The config to run on now: the running one with the live keys (and the bridge's, which the
    /// device does not use) taken from the file. `changed`: the live keys applied; `waiting`: one
    /// message a key that applies elsewhere (or the overlay wins over), each naming FILE:LINE
    /// and the command; `layers`: the file's config and lines now, the overlay over them.
    case apply(DeviceConfig, changed: [String], waiting: [String], layers: ConfigLayers)
    /// The file does not parse: kept the running config; the message names FILE:LINE.
    case kept(String)
  }

  /// Compares the config `text` read from `file` (nil: the file is gone, which means the
  /// defaults, as at start-up), with `layers`' overlay over it, with the `running` one. `layers`:
  /// the file's config as it was, and the overlay (none: the file alone).
  public static func reload(
    _ text: String?, file: String, running: DeviceConfig, layers: ConfigLayers? = nil
  ) -> Outcome {
    let layers = layers ?? ConfigLayers(file: file, fileConfig: running)
    // An empty file is an editor's truncation caught before its write (nano, `cat >`), never a
    // config: it would put every live key back to its default. (No file at all still means the
    // defaults, as at start-up.)
    if let text, isEmpty(text) {
      return .kept(
        "\(file) is empty; keeping the config it has (an editor still writing it? send SIGHUP again once it is "
          + "saved; a file of comments alone means every default)")
    }
    let fromFile: DeviceConfig
    do {
      fromFile = try text.map { try ConfigParser.parse($0, file: file) } ?? DeviceConfig()
    } catch {
      return .kept("\(error); still running on the config it had (fix it and send SIGHUP again)")
    }
    let now = ConfigLayers(
      file: file, fileConfig: fromFile, fileLines: ConfigParser.lines(in: text ?? ""), overlay: layers.overlay)
    let fresh = now.config
    var next = running
    var changed: [String] = []
    var waiting: [String] = []
    for key in ConfigKey.settableKeys where now.overlay[key.name] != nil && key.differs(layers.fileConfig, fromFile) {
      let line = now.fileLines[key.name] ?? 0
      let place = line > 0 ? "\(file):\(line)" : file
      waiting.append(
        "\(place): '\(key.name)' changed, but pomodoro ctl config set it to \(now.overlay[key.name] ?? ""), which wins "
          + "(kept in \(ConfigLayers.overlayName) in the state directory); pomodoro ctl config reset \(key.name) goes back "
          + "to the file's value")
    }
    for key in ConfigKey.all where key.differs(running, fresh) {
      let line = line(of: key.name, in: text ?? "")
      let place = line > 0 ? "\(file):\(line)" : file
      let what = line > 0 ? "'\(key.name)' changed" : "'\(key.name)' changed (back to its default)"
      switch key.applies {
      case .live:
        key.copy(&next, fresh)
        changed.append(key.name)
      case .restart, .restartBoth:
        waiting.append(
          "\(place): \(what); it takes effect when the device restarts (\(key.applies.command ?? "")); "
            + "until then it runs with the value it had")
      case .bridge, .web, .hooks:
        key.copy(&next, fresh)
        waiting.append(
          "\(place): \(what); it is \(key.applies.owner ?? "another process's") alone and changes nothing in the device "
            + "(\(key.applies.command ?? "") applies it)")
      }
    }
    return .apply(next, changed: changed, waiting: waiting, layers: now)
  }

  /// Nothing but white space (and a byte order mark): no line, not even a comment.
  static func isEmpty(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\u{FEFF}" }
  }

  /// The line that sets `key` in `text` (0: not set there, so it is at its default now).
  static func line(of key: String, in text: String) -> Int {
    // The parser's own reading of lines (CRLF, BOM, comments), so the number is the parser's.
    for (index, raw) in TextLines.split(text).enumerated() {
      var line = Substring(raw)
      if let hash = TextLines.commentStart(line) { line = line[..<hash] }
      guard let eq = line.firstIndex(of: "=") else { continue }
      if TextLines.trimmed(line[..<eq]) == key { return index + 1 }
    }
    return 0
  }
}
