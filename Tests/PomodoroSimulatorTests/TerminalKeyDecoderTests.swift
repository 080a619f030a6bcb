import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import XCTest

final class TerminalKeyDecoderTests: XCTestCase {
  func decode(_ text: String) -> [SimulatorKey] {
    var decoder = TerminalKeyDecoder()
    return decoder.feed(Array(text.utf8))
  }

  func testPlainKeys() {
    XCTAssertEqual(
      decode("kjKJ e\r\nc\u{7F}\u{08}fq\u{03}"),
      [
        .turn(1, fast: false), .turn(-1, fast: false), .turn(1, fast: true), .turn(-1, fast: true), .startPause,
        .push, .push, .push, .cancel, .cancel, .cancel, .fastForward, .quit, .quit,
      ])
    XCTAssertEqual(decode("xyz0"), [])
  }

  func testArrows() {
    XCTAssertEqual(decode("\u{1B}[C\u{1B}[D"), [.turn(1, fast: false), .turn(-1, fast: false)])
    XCTAssertEqual(decode("\u{1B}OC\u{1B}OD"), [.turn(1, fast: false), .turn(-1, fast: false)])
    XCTAssertEqual(decode("\u{1B}[A\u{1B}[B"), [.turn(1, fast: false), .turn(-1, fast: false)])
  }

  func testShiftedArrowsSpin() {
    XCTAssertEqual(decode("\u{1B}[1;2C\u{1B}[1;2D"), [.turn(1, fast: true), .turn(-1, fast: true)])
    // rxvt's shifted arrows.
    XCTAssertEqual(decode("\u{1B}[c\u{1B}[d"), [.turn(1, fast: true), .turn(-1, fast: true)])
  }

  func testDeleteCancelsAndUnknownSequencesAreSkipped() {
    XCTAssertEqual(decode("\u{1B}[3~"), [.cancel])
    XCTAssertEqual(decode("\u{1B}[15~\u{1B}[200~k"), [.turn(1, fast: false)])
  }

  func testSequencesSplitAcrossReads() {
    var decoder = TerminalKeyDecoder()
    XCTAssertEqual(decoder.feed(Array("k\u{1B}".utf8)), [.turn(1, fast: false)])
    XCTAssertEqual(decoder.feed(Array("[1;".utf8)), [])
    XCTAssertEqual(decoder.feed(Array("2Cq".utf8)), [.turn(1, fast: true), .quit])
  }

  func testAltKeyIsTheKey() {
    XCTAssertEqual(decode("\u{1B}q"), [.quit])
  }
}
