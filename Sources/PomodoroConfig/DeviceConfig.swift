import PomodoroCore
import PomodoroDrivers
import PomodoroSystem

/// Everything the owner can set, with the defaults that match the wiring in hardware/.
/// The keys and their text forms are documented in deploy/pomodoro.conf.
public struct DeviceConfig: Equatable, Sendable {
  // GPIO
  public var chip = "auto"
  public var encoderA = "GPIO17"
  public var encoderB = "GPIO27"
  public var encoderPush = "GPIO22"
  public var buttonStart = "GPIO23"
  public var buttonCancel = "GPIO24"
  public var buzzer = "GPIO25"
  public var inputsActiveLow = true
  public var buzzerActiveHigh = true
  public var debounce: Nanoseconds = ms(20)
  public var longPress: Nanoseconds = seconds(1)
  public var encoderDetent = 4
  public var encoderInvert = false
  // Display
  public var i2cBus = 1
  public var i2cAddress: UInt8 = 0x3C
  public var controller = OLEDController.ssd1306
  public var height = 64
  public var rotate180 = false
  public var contrast: UInt8 = 207
  /// OLED care: dim to `dimContrast` after this long without a touch, blank the panel after
  /// `blankAfter`, move the picture by a pixel every `shiftEvery`; nil: never.
  public var dimAfter: Nanoseconds? = minutes(2)
  public var dimContrast: UInt8 = 16
  public var blankAfter: Nanoseconds? = minutes(10)
  public var shiftEvery: Nanoseconds? = minutes(3)
  // Timer
  public var engine = EngineSettings()
  public var click = false
  // Sound (docs/sound.md): an active buzzer on its GPIO line (as wired by default), or a passive
  // piezo on the kernel's PWM playing tunes at a volume.
  public var buzzerKind = BuzzerKind.active
  /// The PWM chip: nil (`auto`), or text its device path ends with (`1f00098000.pwm`, or `pwmchip0`).
  public var pwmChip: String?
  /// The chip's channel; nil (`auto`): GPIO18's on a Raspberry Pi (2 on a Pi 5's RP1, else 0).
  public var pwmChannel: Int?
  public var alarmTune = BuiltInTunes.named("chime")!
  public var breakTune = BuiltInTunes.named("arpeggio")!
  public var eggTune = BuiltInTunes.named("cuckoo")!
  /// 1 to 10: the passive buzzer's duty cycle (`Volume.duty`).
  public var volume = 6
  /// A soft tick each second of a focus: never, always, or in its first minute only.
  public var tick = Tick.off
  /// The hours of the night (nil: none): the idle panel goes dark (or dims: `quietPanel`) and
  /// the click is silent.
  public var quietHours: QuietHours?
  public var quietPanel = QuietPanel.off
  /// A presence sensor's output (a PIR, an LD2410's OUT; nil: none) and its active level: nobody
  /// seen for `awayAfter`, the idle panel goes dark and the click is silent as in quiet hours; with
  /// `pauseWhenAway` a running focus pauses then (docs/use.md, "Presence").
  public var presenceLine: String?
  public var presenceActive = PresenceActive.high
  public var awayAfter: Nanoseconds = minutes(5)
  public var pauseWhenAway = false
  // Files
  public var stateDirectory = "/var/lib/pomodoro"
  // Control socket (nil: `off`) and the MQTT bridge (`pomodoro mqtt`)
  public var controlSocket: String? = "/run/pomodoro/control.sock"
  /// The device's runtime directory: the control socket's (the service's RuntimeDirectory,
  /// /run/pomodoro), or /run/pomodoro with the socket off.
  public var runtimeDirectory: String {
    guard let socket = controlSocket, let slash = socket.lastIndex(of: "/"), slash > socket.startIndex else {
      return "/run/pomodoro"
    }
    return String(socket[..<slash])
  }
  /// The lock file that makes the device (and `pomodoro tune`, `probe`) the one owner of the
  /// buzzer's PWM channel (ChannelLock).
  public var pwmLockPath: String { runtimeDirectory + "/pwm.lock" }
  public var mqttHost = "localhost"
  public var mqttPort = 1883
  /// nil: the host name.
  public var mqttDeviceId: String?
  /// The room this desk focuses with over the bridge's broker (docs/room.md); nil: alone.
  public var room: String?
  public var mqttTopicPrefix = "pomodoro"
  public var mqttDiscoveryPrefix = "homeassistant"
  public var mqttUser: String?
  public var mqttPasswordFile: String?
  /// TLS to the broker when set.
  public var mqttCafile: String?
  // The web page's server (`pomodoro web`)
  public var webPort = 8080
  /// nil: every interface.
  public var webBind: String?
  public var webView = WebView.open
  // The hooks (`pomodoro hooks`, docs/hooks.md)
  public var hookCommand: String?
  public var webhookURL: String?
  public var webhookHeaders: String?
  public var hookTimeout = seconds(10)

  public init() {}

  /// The path `pomodoro run` reads when no --config is given.
  public static let defaultPath = "/etc/pomodoro/pomodoro.conf"
}

/// What sounds the alarm (`buzzer_kind`): an active buzzer (its own oscillator: on or off, on
/// the `buzzer` line) or a passive piezo on PWM (tunes, volume).
public enum BuzzerKind: String, CaseIterable, Sendable {
  case active, passive
}

/// The level of the presence sensor's output while it sees someone (`presence_active`).
public enum PresenceActive: String, CaseIterable, Sendable {
  case high, low
}

/// The focus's tick (`tick`): off, each second, or each second of its first minute (`fade`).
public enum Tick: String, CaseIterable, Sendable {
  case off, on, fade
}

/// Who may look at the web page: anyone on the LAN, or paired browsers only (`web_view`).
public enum WebView: String, CaseIterable, Sendable {
  case open, paired
}

/// A mistake in a file a person wrote (a config, a script), named by file and line.
public protocol FileLineError: Error, CustomStringConvertible {
  var file: String { get }
  /// 0 when no one line is at fault.
  var line: Int { get }
  var message: String { get }
}

extension FileLineError {
  /// `FILE:LINE: message`, or `FILE: message` when no one line is at fault (line 0).
  public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// A config mistake, named by file and line, with what was expected.
public struct ConfigError: FileLineError, Equatable {
  public var file: String
  public var line: Int
  public var message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }
}
