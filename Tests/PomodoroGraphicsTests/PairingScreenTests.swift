import Foundation
import PomodoroGraphics
import XCTest

/// The pairing screen in both heights, pixel for pixel against its golden frames
/// (Golden/pairing; POMODORO_UPDATE_GOLDEN=1 writes them, POMODORO_PNG_DIR=DIR draws PNGs).
final class PairingScreenTests: XCTestCase {
  private let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/pairing")

  func testThePairingScreenMatchesItsGoldenFrames() throws {
    let env = ProcessInfo.processInfo.environment
    for height in [64, 32] {
      let image = PairingLayout.draw(code: "482913", secondsLeft: 105, height: height)
      XCTAssertEqual(image.height, height)
      let file = dir.appendingPathComponent("pairing-128x\(height).pbm")
      if let png = env["POMODORO_PNG_DIR"] {
        try Data(PNGEncoder.encode(image, look: PanelLook(scale: 3))).write(
          to: URL(fileURLWithPath: png).appendingPathComponent("pairing-128x\(height).png"))
      }
      if env["POMODORO_UPDATE_GOLDEN"] == "1" {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try PBM.encode(image, comment: "pomodoro pairing screen, 128x\(height)").write(
          to: file, atomically: true, encoding: .utf8)
        continue
      }
      let golden = try XCTUnwrap(PBM.decode(try String(contentsOf: file, encoding: .utf8)), file.path)
      XCTAssertEqual(golden, image, "pairing 128x\(height) differs from \(file.lastPathComponent)")
    }
  }

  /// The code and the time left are drawn: another code or another second is another picture.
  func testTheCodeAndTheTimeLeftAreOnTheScreen() {
    for height in [64, 32] {
      let a = PairingLayout.draw(code: "482913", secondsLeft: 105, height: height)
      XCTAssertNotEqual(a, PairingLayout.draw(code: "482914", secondsLeft: 105, height: height))
      XCTAssertNotEqual(a, PairingLayout.draw(code: "482913", secondsLeft: 104, height: height))
    }
  }
}
