import PomodoroCore
import XCTest

/// Where a short and a long press mean the same, the device acts at the settled press-down.
final class PressDownTests: XCTestCase {
  /// A state in each phase, on a harness that can go on.
  static func harness(in phase: Phase) -> Harness {
    var h = Harness()
    switch phase {
    case .idle: break
    case .running:
      h.send(.press(.start))
      h.advance(seconds(3) + ms(250))
    case .paused:
      h.send(.press(.start))
      h.advance(seconds(3) + ms(250))
      h.send(.press(.start))
    case .ringing:
      h.send(.press(.start))
      h.advance(minutes(25) + seconds(2))
    }
    XCTAssertEqual(h.state.phase, phase)
    return h
  }

  static let table: [(Button, Phase, Bool)] = [
    (.start, .idle, true), (.start, .running, true), (.start, .paused, true), (.start, .ringing, true),
    (.cancel, .idle, false), (.cancel, .running, true), (.cancel, .paused, true), (.cancel, .ringing, true),
    (.encoder, .idle, false), (.encoder, .running, true), (.encoder, .paused, true), (.encoder, .ringing, true),
  ]

  func testTheTableCoversEveryButtonInEveryPhase() {
    XCTAssertEqual(Self.table.count, Button.allCases.count * Phase.allCases.count)
    for button in Button.allCases {
      for phase in Phase.allCases {
        XCTAssertEqual(Self.table.filter { $0.0 == button && $0.1 == phase }.count, 1, "\(button) \(phase)")
      }
    }
  }

  func testActsAtPressDownExactlyWhereShortAndLongMeanTheSame() {
    for (button, phase, expected) in Self.table {
      let h = Self.harness(in: phase)
      XCTAssertEqual(Engine.actsAtPressDown(button, in: h.state), expected, "\(button) while \(phase)")
    }
  }

  /// Where it acts at press-down, a press and a long press give the same state and effects;
  /// where it waits, they differ (in some state of that phase).
  func testTheEngineTreatsShortAndLongAlikeWhereItActsAtPressDown() {
    for (button, phase, atPressDown) in Self.table {
      var h = Self.harness(in: phase)
      if !atPressDown {
        // Make the difference visible: a mode whose long cancel and long push change something.
        h.send(.press(.encoder))
        h.send(.turn(3))
      }
      var short = h
      var long = h
      short.send(.press(button))
      long.send(.longPress(button))
      let same = short.state == long.state && short.effects.map(\.1) == long.effects.map(\.1)
      XCTAssertEqual(same, atPressDown, "\(button) while \(phase)")
    }
  }
}
