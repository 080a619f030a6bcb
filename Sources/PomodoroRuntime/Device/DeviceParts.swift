import PomodoroControl
import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroSystem

/// What the device is made of, whichever backend (Linux or mock) provided it.
public struct DeviceParts {
  /// The input lines, requested in `DeviceConfig.inputLines` order.
  public var inputs: InputLines
  public var buzzer: OutputLine
  /// The passive buzzer's PWM (`buzzer_kind = passive`); nil: the active buzzer on `buzzer` alone.
  public var tone: ToneOutput?
  public var display: OLEDDriver
  /// Where the display is, for messages: "0x3c on /dev/i2c-1".
  public var displayName: String

  public init(
    inputs: InputLines, buzzer: OutputLine, display: OLEDDriver, displayName: String, tone: ToneOutput? = nil
  ) {
    self.inputs = inputs
    self.buzzer = buzzer
    self.tone = tone
    self.display = display
    self.displayName = displayName
  }
}

/// The picture: one renderer from engine state to pixels, and when it next changes by itself.
public struct Screen {
  public var render: (EngineState, Instant) -> Framebuffer
  public var nextFrame: (EngineState, Instant) -> Instant?

  public init(
    render: @escaping (EngineState, Instant) -> Framebuffer, nextFrame: @escaping (EngineState, Instant) -> Instant?
  ) {
    self.render = render
    self.nextFrame = nextFrame
  }
}

/// Who watches the device from outside (the transcript, the simulator, systemd's STATUS=).
public protocol DeviceObserver: AnyObject {
  /// Phase, mode or dialed duration changed.
  func stateChanged(_ state: EngineState, at: Instant)
  /// Only what else the state's fields show changed (the interruptions, today's count, the goal,
  /// the recent labels): for those who show the whole state (the control socket's watchers).
  func stateShown(_ state: EngineState, at: Instant)
  /// A flush that sent `bytes` on the wire; `shown` is the time text on screen.
  func frameFlushed(bytes: Int, shown: String, at: Instant)
  func buzzerChanged(_ on: Bool, at: Instant)
  /// The passive buzzer's note changed: a MIDI note number (69: A4), nil when it fell silent.
  func noteChanged(_ midi: Int?, at: Instant)
  func recorded(_ entry: HistoryEntry, at: Instant)
  /// The panel was switched on or off, dimmed or brightened, or its picture moved.
  func displayChanged(_ look: DisplayCare.Look, at: Instant)
}

extension DeviceObserver {
  public func displayChanged(_ look: DisplayCare.Look, at: Instant) {}
  public func stateShown(_ state: EngineState, at: Instant) {}
  public func noteChanged(_ midi: Int?, at: Instant) {}
}
