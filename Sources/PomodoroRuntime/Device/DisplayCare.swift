import PomodoroConfig
import PomodoroCore
import PomodoroGraphics
import PomodoroSystem

/// How the panel is kept from burning in, as a pure function of the phase, the last input and
/// the time: dim after `dimAfter` without input in idle or paused, switch off after
/// `blankAfter` in idle, and move the whole picture one pixel along a small orbit every
/// `shiftEvery` in every phase but ringing. Ringing is always lit, at full contrast, unshifted.
/// The orbit stands still while the panel is off: a blank look keeps the shift the picture had
/// when it went off, and the device moves the orbit's origin on by the time spent off
/// (`Device.refreshLook`), so that on waking the picture is where it was and goes on from there.
/// In quiet hours (`quiet_hours`) the picker's panel goes off (or to contrast 0: `quiet_panel =
/// dim`) once `quietWake` has passed since the last input (or the quiet hours began); a timer
/// and its alarm look as always.
public struct DisplayCare: Equatable, Sendable {
  public var dimAfter: Nanoseconds?
  public var blankAfter: Nanoseconds?
  public var shiftEvery: Nanoseconds?
  public var contrast: UInt8
  public var dimContrast: UInt8
  public var quietPanel = QuietPanel.off
  /// How long an input lights the picker in quiet hours: OLED care's first timeout
  /// (`dim_after`, else `blank_after`, else 2 minutes).
  public var quietWake: Nanoseconds = minutes(2)

  public init(
    dimAfter: Nanoseconds?, blankAfter: Nanoseconds?, shiftEvery: Nanoseconds?, contrast: UInt8, dimContrast: UInt8
  ) {
    self.dimAfter = dimAfter
    self.blankAfter = blankAfter
    self.shiftEvery = shiftEvery
    self.contrast = contrast
    self.dimContrast = dimContrast
  }

  /// The care the config asks for.
  public init(_ config: DeviceConfig) {
    self.init(
      dimAfter: config.dimAfter, blankAfter: config.blankAfter, shiftEvery: config.shiftEvery,
      contrast: config.contrast, dimContrast: config.dimContrast)
    quietPanel = config.quietPanel
    quietWake = config.dimAfter ?? config.blankAfter ?? minutes(2)
  }

  /// When the picker's quiet look begins for a device last active at `activeAt` in quiet hours
  /// that began at `quietSince` (nil: not quiet hours, or not the picker).
  func quietAt(phase: Phase, activeAt: Instant, quietSince: Instant?) -> Instant? {
    guard phase == .idle, let quietSince else { return nil }
    return max(activeAt + quietWake, quietSince)
  }

  /// What the panel shows: lit or not, its contrast, the picture's offset.
  public struct Look: Equatable, Sendable {
    public var on: Bool
    public var contrast: UInt8
    public var shift: PixelShift.Offset

    public init(on: Bool, contrast: UInt8, shift: PixelShift.Offset) {
      self.on = on
      self.contrast = contrast
      self.shift = shift
    }
  }

  /// The look at `now` for a device in `phase`, last active at `activeAt` (the last input or
  /// phase change), counting shift steps from `origin` (the device's start, moved on by the
  /// time the panel has been off), in quiet hours since `quietSince` (nil: not now).
  public func look(phase: Phase, activeAt: Instant, origin: Instant, now: Instant, quietSince: Instant? = nil) -> Look {
    let idleFor = now - activeAt
    let full = Look(on: true, contrast: contrast, shift: .zero)
    switch phase {
    case .ringing:
      return full
    case .idle, .paused, .running:
      var look = full
      look.shift = shift(origin: origin, at: now)
      if phase != .running, let dimAfter, idleFor >= dimAfter { look.contrast = dimContrast }
      if quietPanel == .dim, let quiet = quietAt(phase: phase, activeAt: activeAt, quietSince: quietSince), now >= quiet
      {
        look.contrast = 0
      }
      if let off = blanksAt(phase: phase, activeAt: activeAt, quietSince: quietSince), now >= off {
        // A blank panel has no picture to move: the orbit stops where it was until an input.
        look.on = false
        look.shift = shift(origin: origin, at: off)
      }
      return look
    }
  }

  /// When a device in `phase`, last active at `activeAt`, switches the panel off (nil: it does
  /// not: only the picker blanks), in quiet hours since `quietSince` (nil: not now).
  public func blanksAt(phase: Phase, activeAt: Instant, quietSince: Instant? = nil) -> Instant? {
    guard phase == .idle else { return nil }
    let quiet = quietPanel == .off ? quietAt(phase: phase, activeAt: activeAt, quietSince: quietSince) : nil
    let blank = blankAfter.map { activeAt + $0 }
    return [quiet, blank].compactMap { $0 }.min()
  }

  /// The orbit's position at `now`, its steps counted from `origin`.
  func shift(origin: Instant, at now: Instant) -> PixelShift.Offset {
    guard let shiftEvery, shiftEvery > 0 else { return .zero }
    return PixelShift.orbit(step: Int((now - origin) / shiftEvery))
  }

  /// The next instant after `now` at which `look` changes by itself (nil: never, until an
  /// input or a phase change). A blank panel needs nothing until an input.
  public func nextChange(phase: Phase, activeAt: Instant, origin: Instant, now: Instant, quietSince: Instant? = nil)
    -> Instant?
  {
    var candidates: [Instant] = []
    let current = look(phase: phase, activeAt: activeAt, origin: origin, now: now, quietSince: quietSince)
    if phase == .ringing || !current.on { return nil }
    if let shiftEvery, shiftEvery > 0 {
      let steps = (now - origin) / shiftEvery + 1
      candidates.append(origin + steps * shiftEvery)
    }
    if phase != .running {
      if let dimAfter, now < activeAt + dimAfter { candidates.append(activeAt + dimAfter) }
      if phase == .idle, let blankAfter, now < activeAt + blankAfter { candidates.append(activeAt + blankAfter) }
      if let quiet = quietAt(phase: phase, activeAt: activeAt, quietSince: quietSince), now < quiet {
        candidates.append(quiet)
      }
    }
    return candidates.min()
  }
}
