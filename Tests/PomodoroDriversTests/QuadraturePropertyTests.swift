import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

/// Random spins with random bounce: the settled count, and for 4- and 2-transition encoders
/// the exact sequence of detents, must match what was turned. Seeds are printed on failure.
final class QuadraturePropertyTests: XCTestCase {
  func testRandomSpinsWithRandomBounceSettleOnTheTurnedCount() throws {
    var master = SplitMix64(seed: 0x5EED_0004)
    for trial in 0..<150 {
      let seed = master.next()
      var rng = SplitMix64(seed: seed)
      let n = [4, 4, 2, 1][Int(rng.next() % 4)]
      let rig = try EncoderRig(transitionsPerDetent: n, inverted: rng.next() % 2 == 0, seed: seed)
      var expected: [Int] = []
      var t = rig.clock.now
      for _ in 0..<(1 + Int(rng.next() % 12)) {
        let count = 1 + Int(rng.next() % 15)
        let sign = rng.next() % 2 == 0 ? 1 : -1
        // At most 200 detents/s for 4 transitions (1.25 ms between transitions), so 0.5 ms
        // of bounce on one contact settles before the other contact moves.
        let spacing = Int64(n) * 1_250_000 + Int64(rng.next() % 40_000_000)
        let bounce = Int64(rng.next() % 500_001)
        t = rig.turn(sign * count, spacing: spacing, bounce: bounce, at: t)
        t = t + Int64(rng.next() % 200_000_000)
        expected += Array(repeating: rig.decoder.inverted ? -sign : sign, count: count)
      }
      try rig.drain()
      let context = "trial \(trial) seed \(seed) n=\(n)"
      XCTAssertEqual(rig.decoder.detents, expected.reduce(0, +), context)
      XCTAssertEqual(rig.decoder.skipped, 0, context)
      if n > 1 { XCTAssertEqual(rig.steps, expected, context) }
    }
  }
}
