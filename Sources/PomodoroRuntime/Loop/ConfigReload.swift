/// What SIGHUP does to `pomodoro run`: the config is read again. Timer settings, the click and
/// OLED care apply at once, keeping the timer as it is; a change to the hardware (lines, polarity,
/// debounce, the display, the state directory) or a config that does not parse is logged with
/// FILE:LINE and the device carries on with the config it has. SIGHUP never stops it.
public enum ConfigReload {
  /// What a reload came to.
  public enum Outcome: Equatable {
    /// The new config, to apply now (only timer settings, click or OLED care differ, or nothing).
    case apply(DeviceConfig, changed: [String])
    /// Kept the running config; one message a reason, each naming FILE:LINE.
    case kept([String])
  }

  /// The keys that apply live, and how to tell them apart.
  static var liveKeys: [(String, (DeviceConfig, DeviceConfig) -> Bool)] {
    [
      ("focus", { $0.engine.presets[.focus] != $1.engine.presets[.focus] }),
      ("short_break", { $0.engine.presets[.shortBreak] != $1.engine.presets[.shortBreak] }),
      ("long_break", { $0.engine.presets[.longBreak] != $1.engine.presets[.longBreak] }),
      ("soft", { $0.engine.presets[.soft] != $1.engine.presets[.soft] }),
      ("medium", { $0.engine.presets[.medium] != $1.engine.presets[.medium] }),
      ("hard", { $0.engine.presets[.hard] != $1.engine.presets[.hard] }),
      ("long_break_every", { $0.engine.longBreakEvery != $1.engine.longBreakEvery }),
      ("auto_start", { $0.engine.autoStart != $1.engine.autoStart }),
      ("alarm_timeout", { $0.engine.alarmTimeout != $1.engine.alarmTimeout }),
      ("egg_alarm_timeout", { $0.engine.eggAlarmTimeout != $1.engine.eggAlarmTimeout }),
      ("click", { $0.click != $1.click }),
      ("dim_after", { $0.dimAfter != $1.dimAfter }),
      ("dim_contrast", { $0.dimContrast != $1.dimContrast }),
      ("blank_after", { $0.blankAfter != $1.blankAfter }),
      ("shift_every", { $0.shiftEvery != $1.shiftEvery }),
    ]
  }

  /// The keys that need a restart (the hardware is opened once).
  static var restartKeys: [(String, (DeviceConfig, DeviceConfig) -> Bool)] {
    var keys: [(String, (DeviceConfig, DeviceConfig) -> Bool)] = [("chip", { $0.chip != $1.chip })]
    for line in DeviceLine.allCases {
      keys.append((line.configKey, { $0.pin(line) != $1.pin(line) }))
    }
    keys.append(("inputs_active_low", { $0.inputsActiveLow != $1.inputsActiveLow }))
    keys.append(("buzzer_active_high", { $0.buzzerActiveHigh != $1.buzzerActiveHigh }))
    keys.append(("debounce", { $0.debounce != $1.debounce }))
    keys.append(("long_press", { $0.longPress != $1.longPress }))
    keys.append(("encoder_detent", { $0.encoderDetent != $1.encoderDetent }))
    keys.append(("encoder_invert", { $0.encoderInvert != $1.encoderInvert }))
    keys.append(("i2c_bus", { $0.i2cBus != $1.i2cBus }))
    keys.append(("i2c_address", { $0.i2cAddress != $1.i2cAddress }))
    keys.append(("controller", { $0.controller != $1.controller }))
    keys.append(("size", { $0.height != $1.height }))
    keys.append(("rotate", { $0.rotate180 != $1.rotate180 }))
    keys.append(("contrast", { $0.contrast != $1.contrast }))
    keys.append(("state_dir", { $0.stateDirectory != $1.stateDirectory }))
    return keys
  }

  /// Compares the config `text` read from `file` (nil: the file is gone, which means the
  /// defaults, as at start-up) with the `running` one.
  public static func reload(_ text: String?, file: String, running: DeviceConfig) -> Outcome {
    let fresh: DeviceConfig
    do {
      fresh = try text.map { try ConfigParser.parse($0, file: file) } ?? DeviceConfig()
    } catch {
      return .kept(
        ["\(error); still running on the config it had (fix it and send SIGHUP again)"])
    }
    var live = running
    live.engine = fresh.engine
    live.click = fresh.click
    (live.dimAfter, live.dimContrast, live.blankAfter, live.shiftEvery) = (
      fresh.dimAfter, fresh.dimContrast, fresh.blankAfter, fresh.shiftEvery
    )
    guard live == fresh else {
      var reasons: [String] = []
      for (key, differs) in restartKeys where differs(running, fresh) {
        reasons.append(
          "\(file):\(line(of: key, in: text ?? "")): '\(key)' changed; it takes effect at restart "
            + "(sudo systemctl restart pomodoro); still running on the config it had")
      }
      if reasons.isEmpty {
        reasons.append("\(file): a setting that needs a restart changed; still running on the config it had")
      }
      return .kept(reasons)
    }
    return .apply(fresh, changed: liveKeys.filter { $0.1(running, fresh) }.map(\.0))
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
