import PomodoroCore

/// OLED care as it runs (`DisplayCare` is the rule): the last input or command, where the pixel
/// shift's steps count from (the device's start, moved on by the time the panel was off: the
/// orbit stands still meanwhile), when the panel went off, and the look the panel was last
/// given. Pure.
struct PanelCare {
  var care: DisplayCare
  /// The last input or command (a phase change counts too: the engine's `phaseSince`).
  private var touchedAt: Instant
  private var origin: Instant
  private var offSince: Instant?
  private(set) var look: DisplayCare.Look

  init(_ care: DisplayCare, contrast: UInt8, at start: Instant) {
    self.care = care
    touchedAt = start
    origin = start
    look = DisplayCare.Look(on: true, contrast: contrast, shift: .zero)
  }

  /// An input or a command at `at`: it wakes a dimmed panel at the next `refresh`.
  mutating func touch(at: Instant) { touchedAt = max(touchedAt, at) }

  /// The look OLED care wants now for the engine's `state`, when it differs from the last one
  /// (which it becomes).
  mutating func refresh(_ state: EngineState, quietSince: Instant?, at now: Instant) -> DisplayCare.Look? {
    let (phase, active) = (state.phase, max(touchedAt, state.phaseSince))
    var want = care.look(phase: phase, activeAt: active, origin: origin, now: now, quietSince: quietSince)
    if want.on, let off = offSince {
      // Waking: the orbit stood still while the panel was off, and goes on from where it stopped.
      origin = origin + (now - off)
      offSince = nil
      want = care.look(phase: phase, activeAt: active, origin: origin, now: now, quietSince: quietSince)
    } else if !want.on, offSince == nil {
      offSince = care.blanksAt(phase: phase, activeAt: active, quietSince: quietSince) ?? now
    }
    guard want != look else { return nil }
    look = want
    return want
  }

  /// When the look changes next by itself.
  func nextChange(_ state: EngineState, quietSince: Instant?, after now: Instant) -> Instant? {
    care.nextChange(
      phase: state.phase, activeAt: max(touchedAt, state.phaseSince), origin: origin, now: now, quietSince: quietSince)
  }
}
