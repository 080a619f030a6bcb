import PomodoroCore
import PomodoroDrivers

/// The passive buzzer's mock twin: a PWM channel that records every write (period, duty_cycle,
/// enable) with its virtual time, in the order `PWMPlan` gives it, as `SysfsPWM` writes them to
/// the kernel. Tests compare the record with golden sequences; the simulator shows the note.
public final class RecordingPWM: ToneOutput {
  /// One write and when it was made.
  public struct Entry: Equatable, Sendable, CustomStringConvertible {
    public var at: Instant
    public var write: PWMWrite

    public init(at: Instant, write: PWMWrite) {
      self.at = at
      self.write = write
    }

    public var description: String { "\(at.nanoseconds) \(write)" }
  }

  public private(set) var entries: [Entry] = []
  public private(set) var plan = PWMPlan()
  /// Whether `release` was called (the channel unexported).
  public private(set) var released = false
  let now: () -> Instant
  /// Told each write as it is made.
  public var onWrite: ((Entry) -> Void)?

  /// - Parameter now: the virtual time each write is stamped with (a `VirtualClock`'s now).
  public init(now: @escaping () -> Instant) { self.now = now }

  public func set(frequencyHz: Double, duty: Double) throws {
    released = false
    record(plan.set(frequencyHz: frequencyHz, duty: duty))
  }

  public func silence() throws { record(plan.silence()) }

  public func release() {
    record(plan.silence())
    plan.forget()
    released = true
  }

  /// Whether the wave sounds now.
  public var sounding: Bool { plan.enabled }

  /// The frequency sounding now (hertz, from the period), nil when silent.
  public var frequency: Double? { plan.enabled && plan.period > 0 ? 1e9 / Double(plan.period) : nil }

  private func record(_ writes: [PWMWrite]) {
    let t = now()
    for write in writes {
      let entry = Entry(at: t, write: write)
      entries.append(entry)
      onWrite?(entry)
    }
  }
}
