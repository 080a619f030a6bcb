import PomodoroGraphics

/// A small deterministic random generator (SplitMix64), so failures reproduce.
struct OLEDTestRandom {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
  mutating func bool() -> Bool { next() & 1 == 1 }
}

extension Framebuffer {
  /// Random pixels everywhere.
  static func noise(height: Int, _ rng: inout OLEDTestRandom) -> Framebuffer {
    var fb = Framebuffer(width: 128, height: height)
    for i in fb.bytes.indices { fb.bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    return fb
  }

  /// One random change: a rectangle filled, cleared or inverted, or a few pixels flipped.
  mutating func randomEdit(_ rng: inout OLEDTestRandom) {
    let x = rng.int(-4..<128)
    let y = rng.int(-4..<height)
    let w = rng.int(1..<40)
    let h = rng.int(1..<30)
    switch rng.int(0..<4) {
    case 0: fillRect(x: x, y: y, width: w, height: h, true)
    case 1: fillRect(x: x, y: y, width: w, height: h, false)
    case 2: invert(x: x, y: y, width: w, height: h)
    default: for _ in 0..<rng.int(1..<5) { flipPixel(rng.int(0..<128), rng.int(0..<height)) }
    }
  }
}
