import PomodoroCore

/// One detent of a rotary encoder: `steps` is +1 (A leads B, or B leads A when inverted) or -1.
/// (Only a 1-transition encoder after a missed edge can report +2 or -2.)
public struct Detent: Equatable, Sendable {
  public var steps: Int
  /// The timestamp of the edge that completed the detent.
  public var timestamp: Instant

  public init(steps: Int, timestamp: Instant) {
    self.steps = steps
    self.timestamp = timestamp
  }
}

/// Which encoder contact an edge belongs to.
public enum QuadratureChannel: Sendable {
  case a
  case b
}

/// Decodes a quadrature encoder's edges into detents, in the manner of the Linux kernel's
/// rotary_encoder driver: the two contacts form a 2-bit Gray code, and only transitions between
/// neighbouring states count (+1 one way round the cycle, -1 the other way).
///
/// Levels are logical (active-low applied): at rest a KY-040's contacts are open, so both are
/// inactive, which is state 0. The cycle is 00 -> A -> AB -> B -> 00 (+1 each, A leading).
///
/// Bounce on a contact toggles between two neighbouring states, so its transitions cancel
/// (+1 -1 +1 ...); detents are reported only when the running transition count reaches a
/// detent boundary *different from the last one reported*, which is the hysteresis that keeps
/// bounce at a boundary from reporting a detent twice (or +1 -1 +1). A change of direction
/// loses nothing: each transition is counted. A jump over a state (both bits changed: an edge
/// was missed) is taken to continue the last direction, which keeps the count aligned.
///
/// With 1 transition per detent every state is a detent, so bounce shows as +1 -1 pairs that
/// cancel (the settled count is right); with 2 or 4 it never shows.
///
/// A value type with no allocation: `edge` costs a table look-up and a few integer operations.
public struct QuadratureDecoder: Sendable {
  /// Quadrature transitions per detent: 4 (most KY-040 modules), 2 or 1.
  public let transitionsPerDetent: Int
  /// Swaps the direction.
  public let inverted: Bool

  /// The contacts' current logical levels.
  public private(set) var a: Bool
  public private(set) var b: Bool
  /// Valid transitions counted so far (+1 / -1 each); always congruent to the Gray state mod 4.
  public private(set) var transitions: Int
  /// Net detents reported so far (after inversion).
  public private(set) var detents: Int
  /// Transitions that jumped over a state (an edge was missed).
  public private(set) var skipped: Int

  private var boundary: Int
  private var lastDirection: Int = 1

  /// Gray state of (a, b): 00 -> 0, A -> 1, AB -> 2, B -> 3.
  @inline(__always) static func state(a: Bool, b: Bool) -> Int {
    switch (a, b) {
    case (false, false): return 0
    case (true, false): return 1
    case (true, true): return 2
    case (false, true): return 3
    }
  }

  /// Transition table over (last << 2 | now): +1 forward, -1 backward, 0 none, 2 a skipped state.
  static let table: [Int8] = {
    var t = [Int8](repeating: 0, count: 16)
    for last in 0..<4 {
      for now in 0..<4 {
        let delta = (now - last + 4) % 4
        t[last << 2 | now] = delta == 1 ? 1 : delta == 3 ? -1 : delta == 2 ? 2 : 0
      }
    }
    return t
  }()

  /// - Parameters:
  ///   - transitionsPerDetent: 4, 2 or 1 (other values are clamped into that set's range).
  ///   - inverted: count the other way round.
  ///   - a, b: the contacts' logical levels when decoding starts (from `InputLines.levels()`).
  public init(transitionsPerDetent: Int = 4, inverted: Bool = false, a: Bool = false, b: Bool = false) {
    let n = transitionsPerDetent >= 4 ? 4 : transitionsPerDetent >= 2 ? 2 : 1
    self.transitionsPerDetent = n
    self.inverted = inverted
    self.a = a
    self.b = b
    let s = QuadratureDecoder.state(a: a, b: b)
    self.transitions = s
    self.boundary = s - s % n
    self.detents = 0
    self.skipped = 0
  }

  /// Feeds an edge on one contact; returns the detent it completed, if any.
  @inlinable public mutating func edge(_ channel: QuadratureChannel, active: Bool, at time: Instant) -> Detent? {
    switch channel {
    case .a: return levels(a: active, b: b, at: time)
    case .b: return levels(a: a, b: active, at: time)
    }
  }

  /// Feeds the contacts' levels after an edge; returns the detent it completed, if any.
  public mutating func levels(a newA: Bool, b newB: Bool, at time: Instant) -> Detent? {
    let last = QuadratureDecoder.state(a: a, b: b)
    let now = QuadratureDecoder.state(a: newA, b: newB)
    a = newA
    b = newB
    let step = Int(QuadratureDecoder.table[last << 2 | now])
    switch step {
    case 0:
      return nil
    case 2:
      skipped += 1
      transitions += 2 * lastDirection
    default:
      lastDirection = step
      transitions += step
    }
    let n = transitionsPerDetent
    guard transitions != boundary, transitions % n == 0 else { return nil }
    var steps = (transitions - boundary) / n
    boundary = transitions
    if inverted { steps = -steps }
    detents += steps
    return Detent(steps: steps, timestamp: time)
  }
}
