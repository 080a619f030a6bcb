import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem

/// The whole device on mock hardware: a scripted GPIO chip named like a Pi's header and an
/// emulated display controller, sharing one clock with the engine.
public final class MockHardware {
  /// How a person's hands become edges (the script language and the simulator's keys alike):
  /// detents 150 ms apart (10 ms in a fast spin), presses held 80 ms, 80 ms of rest after a
  /// release, 0.5 ms of contact bounce after each edge when asked for.
  public static let detentSpacing = ms(150)
  public static let fastDetentSpacing = ms(10)
  public static let pressTime = ms(80)
  public static let releaseTime = ms(80)
  public static let bounceTime = microseconds(500)

  public let config: DeviceConfig
  public let chip: MockGPIOChip
  public let emulator: OLEDEmulator
  public let parts: DeviceParts
  /// The passive buzzer's PWM (used when `buzzer_kind = passive`): every write with its time.
  public let pwm: RecordingPWM

  /// - Parameter busy: lines already held by other programs, (line, consumer).
  public init(config: DeviceConfig, clock: MonotonicClock, busy: [(String, String)] = []) throws {
    self.config = config
    chip = MockGPIOChip.raspberryPiHeader(clock: clock)
    for (line, consumer) in busy { chip.markBusy(line, consumer: consumer) }
    // Someone is at the desk when it starts (`presence away` and `presence here` move them).
    if let line = config.presenceLine { chip.rest(line, high: config.presenceActive == .high) }
    let controller = config.controller
    emulator = OLEDEmulator(
      controller: controller, panelHeight: config.height, address: config.i2cAddress, busName: "emulated-i2c")
    let driver = config.displayDriver(on: emulator)
    let (inputs, buzzer) = try LineRequests.request(on: chip, config: config)
    pwm = RecordingPWM(now: { clock.now })
    parts = DeviceParts(
      inputs: inputs, buzzer: buzzer, display: driver,
      displayName: "\(hex(config.i2cAddress)) on the emulated bus", tone: pwm)
  }

  /// What a person sees on the panel now.
  public func visibleImage() -> PomodoroGraphics.Framebuffer {
    emulator.visibleImage(mountedUpsideDown: config.rotate180)
  }

  /// Turns the encoder `detents` detents (positive: clockwise, as the config's direction has
  /// it) from `start`; returns when the turn is over.
  @discardableResult
  public func turn(_ detents: Int, fast: Bool = false, bounce: Bool = false, at start: Instant) -> Instant {
    chip.scheduleTurn(
      a: config.encoderA, b: config.encoderB, detents: config.encoderInvert ? -detents : detents, start: start,
      spacing: fast ? Self.fastDetentSpacing : Self.detentSpacing, bounce: bounce ? Self.bounceTime : 0,
      transitionsPerDetent: config.encoderDetent)
  }

  /// The presence sensor sees someone (`here`) or nobody from `start`, on its line as wired;
  /// nothing without one.
  public func presence(_ here: Bool, at start: Instant) {
    guard let line = config.presenceLine else { return }
    chip.schedule(line, high: here == (config.presenceActive == .high), at: start)
  }

  /// Presses `button` at `start` for `holding`; returns when it is free for the next press
  /// (the release plus a rest).
  @discardableResult
  public func press(_ button: Button, at start: Instant, holding: Nanoseconds = MockHardware.pressTime) -> Instant {
    chip.schedulePress(config.pin(button), at: start, holding: holding) + Self.releaseTime
  }
}
