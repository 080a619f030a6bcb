import Foundation
import PomodoroGraphics
import XCTest

/// The pairing screen in both heights, pixel for pixel against its golden frames
/// (Golden/pairing; POMODORO_UPDATE_GOLDEN=1 writes them, POMODORO_PNG_DIR=DIR draws PNGs).
final class PairingScreenTests: XCTestCase {
  private let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/pairing")

  /// `http://192.168.1.23:8080/#pair=482913` at level M (version 3, 29 modules), as
  /// `qrencode -l M` makes it: the modules the shell hands the screen.
  static let qr = QRModules(
    size: 29,
    dark: [
      "#######......#..##..#.#######",
      "#.....#.#.##..###..##.#.....#",
      "#.###.#..#..###.##..#.#.###.#",
      "#.###.#...######.#.##.#.###.#",
      "#.###.#.#.###.#...###.#.###.#",
      "#.....#...##.#.....#..#.....#",
      "#######.#.#.#.#.#.#.#.#######",
      ".............##.####.........",
      "#.#.#.#..###..##..#.#...#..#.",
      "###..#.###....##.....##..#..#",
      "#..##.#...#..#...###.#.##.###",
      "##...#..###.#..#.#######.#.#.",
      ".##...#.#.##....#....#.##..##",
      ".##....##.#.##.##..#.#.###..#",
      "..#.###.##.#..#####..####.###",
      ".#.##...###.###.#.###.##.###.",
      "#.....#####...###.####.#...##",
      "..#.##.#.###..##.##....##.#.#",
      "#.##.##..#.###..#.#.#..#.#.##",
      ".###.#.##..#......##....#.##.",
      "#..#####..##....##.######....",
      "........##..##.....##...#..##",
      "#######..###..#...###.#.##.##",
      "#.....#....#.##.#...#...#.##.",
      "#.###.#.#..##.#...#.######.##",
      "#.###.#...#..###.#...#...#.#.",
      "#.###.#.#.........#...###...#",
      "#.....#...##.##.#......###.#.",
      "#######.##..#####....####.###",
    ].flatMap { $0.map { $0 == "#" } })!

  func testThePairingScreenMatchesItsGoldenFrames() throws {
    let env = ProcessInfo.processInfo.environment
    // The 128 x 32 panel keeps the digits with a QR code too: pairing-qr-128x32 is pairing-128x32.
    for (name, height, qr) in [
      ("pairing", 64, nil), ("pairing", 32, nil), ("pairing-qr", 64, Self.qr), ("pairing-qr", 32, Self.qr),
    ] as [(String, Int, QRModules?)] {
      let image = PairingLayout.draw(code: "482913", secondsLeft: 105, height: height, qr: qr)
      XCTAssertEqual(image.height, height)
      if qr != nil && height == 32 {
        XCTAssertEqual(image, PairingLayout.draw(code: "482913", secondsLeft: 105, height: 32))
        continue
      }
      let file = dir.appendingPathComponent("\(name)-128x\(height).pbm")
      if let png = env["POMODORO_PNG_DIR"] {
        try Data(PNGEncoder.encode(image, look: PanelLook(scale: 3))).write(
          to: URL(fileURLWithPath: png).appendingPathComponent("\(name)-128x\(height).png"))
      }
      if env["POMODORO_UPDATE_GOLDEN"] == "1" {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try PBM.encode(image, comment: "pomodoro pairing screen, 128x\(height)").write(
          to: file, atomically: true, encoding: .utf8)
        continue
      }
      let golden = try XCTUnwrap(PBM.decode(try String(contentsOf: file, encoding: .utf8)), file.path)
      XCTAssertEqual(golden, image, "\(name) 128x\(height) differs from \(file.lastPathComponent)")
    }
  }

  /// The modules are drawn dark in a lit square, 2 pixels each, 3 pixels of quiet zone; a code
  /// larger than the panel shows (version 4, 33 modules) leaves the digits' screen as it was.
  func testTheQRCodeIsDrawnDarkOnLitAndOnlyWhereItFits() throws {
    let image = PairingLayout.draw(code: "482913", secondsLeft: 105, height: 64, qr: Self.qr)
    for y in 0..<29 {
      for x in 0..<29 {
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
          XCTAssertEqual(image.pixel(3 + 2 * x + dx, 3 + 2 * y + dy), !Self.qr.isDark(x, y), "module \(x),\(y)")
        }
      }
    }
    for i in 0..<64 {
      XCTAssertTrue(
        image.pixel(i, 0) && image.pixel(i, 2) && image.pixel(0, i) && image.pixel(63, i), "quiet zone at \(i)")
    }
    let big = try XCTUnwrap(QRModules(size: 33, dark: Array(repeating: true, count: 33 * 33)))
    XCTAssertEqual(
      PairingLayout.draw(code: "482913", secondsLeft: 105, height: 64, qr: big),
      PairingLayout.draw(code: "482913", secondsLeft: 105, height: 64))
    XCTAssertNil(QRModules(size: 29, dark: [true]), "modules that are not size x size")
    XCTAssertNil(QRModules(size: 30, dark: Array(repeating: true, count: 900)), "no QR code is 30 modules")
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
