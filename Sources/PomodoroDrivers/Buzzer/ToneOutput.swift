import PomodoroCore

/// What sounds a passive buzzer: a square wave of a frequency and a duty cycle (the loudness),
/// or nothing. The Linux twin writes the kernel's PWM attributes (`SysfsPWM`), the mock twin
/// records every write with its virtual time (`RecordingPWM`); both write what `PWMPlan` says.
public protocol ToneOutput: AnyObject {
  /// Sounds `frequencyHz` with the output high for `duty` of each period (0 < duty <= 0.5).
  func set(frequencyHz: Double, duty: Double) throws
  /// Stops the wave: the output is disabled (low).
  func silence() throws
  /// Silences and gives the output back (unexport). Idempotent.
  func release()
}

/// One write to a PWM channel's attributes, in nanoseconds, as the kernel's sysfs ABI takes them.
public enum PWMWrite: Equatable, Sendable, CustomStringConvertible {
  case period(Int64)
  case dutyCycle(Int64)
  case enable(Bool)

  /// The attribute's file name under `pwmN/`.
  public var attribute: String {
    switch self {
    case .period: return "period"
    case .dutyCycle: return "duty_cycle"
    case .enable: return "enable"
    }
  }

  /// The text written to it.
  public var value: String {
    switch self {
    case .period(let n), .dutyCycle(let n): return String(n)
    case .enable(let on): return on ? "1" : "0"
    }
  }

  public var description: String { "\(attribute)=\(value)" }
}

/// A PWM channel's attributes as last written, and the writes that take it to a new setting in
/// the order the ABI needs: the duty never above the period at any step (the period first when
/// it grows past the duty, the duty first otherwise), nothing written twice. Pure.
public struct PWMPlan: Equatable, Sendable {
  public private(set) var period: Int64 = 0
  public private(set) var duty: Int64 = 0
  public private(set) var enabled = false

  public init() {}

  /// A channel found as it stands (read back from its attributes).
  public init(period: Int64, duty: Int64, enabled: Bool) {
    self.period = period
    self.duty = duty
    self.enabled = enabled
  }

  /// The period and duty in nanoseconds for `frequencyHz` at `duty` (clamped to 1 Hz ... 20 kHz
  /// and 0 ... 0.5; the duty at least 1 ns).
  public static func nanoseconds(frequencyHz: Double, duty: Double) -> (period: Int64, duty: Int64) {
    let f = frequencyHz.isFinite ? min(max(frequencyHz, 1), 20_000) : 1_000
    let d = duty.isFinite ? min(max(duty, 0), 0.5) : 0.5
    let period = Int64((1e9 / f).rounded())
    return (period, max(1, Int64((Double(period) * d).rounded())))
  }

  /// The writes that sound `frequencyHz` at `duty`, and the plan's new state.
  public mutating func set(frequencyHz: Double, duty: Double) -> [PWMWrite] {
    let (p, d) = Self.nanoseconds(frequencyHz: frequencyHz, duty: duty)
    var writes: [PWMWrite] = []
    if d <= period {
      if d != self.duty { writes.append(.dutyCycle(d)) }
      if p != period { writes.append(.period(p)) }
    } else {
      if p != period { writes.append(.period(p)) }
      if d != self.duty { writes.append(.dutyCycle(d)) }
    }
    if !enabled { writes.append(.enable(true)) }
    period = p
    self.duty = d
    enabled = true
    return writes
  }

  /// The write that stops the wave (none when it is stopped).
  public mutating func silence() -> [PWMWrite] {
    guard enabled else { return [] }
    enabled = false
    return [.enable(false)]
  }

  /// What a freshly exported channel has (all zero, disabled): after a `release`, or when the
  /// channel's state is unknown.
  public mutating func forget() { self = PWMPlan() }
}

/// The loudness of the passive buzzer, `volume` 1 to 10, as the PWM's duty cycle: a piezo's
/// loudness grows with the duty up to a half, roughly as its square root, so the steps are
/// spread over 1 % ... 50 %.
public enum Volume {
  public static let range = 1...10
  static let duties: [Double] = [0.01, 0.02, 0.04, 0.06, 0.09, 0.13, 0.18, 0.25, 0.35, 0.5]

  /// The duty cycle of `volume` (clamped to 1 ... 10).
  public static func duty(_ volume: Int) -> Double { duties[min(max(volume, 1), 10) - 1] }
}
