import Foundation
import PomodoroGraphics
import XCTest

/// Every gallery screen must match its committed 1-bit image pixel for pixel.
///
/// Regenerate after an intended change (then look at the diff and the PNGs):
///   POMODORO_UPDATE_GOLDEN=1 swift test --filter GoldenTests
/// Write PNGs of every screen to a folder as well:
///   POMODORO_PNG_DIR=/tmp/screens swift test --filter GoldenTests
final class GoldenTests: XCTestCase {
  private let goldenDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
  /// The gallery's screens, in each height. Change it with the gallery, on purpose.
  private let screenCount = 36
  /// The contrast `pomodoro snapshot` draws with (the config's default), for Golden/png.
  private let snapshotContrast: UInt8 = 207

  private var update: Bool { ProcessInfo.processInfo.environment["POMODORO_UPDATE_GOLDEN"] == "1" }

  func testEveryScreenMatchesItsGoldenImage() throws {
    let env = ProcessInfo.processInfo.environment
    let pngDir = env["POMODORO_PNG_DIR"].map { URL(fileURLWithPath: $0) }
    if let pngDir { try FileManager.default.createDirectory(at: pngDir, withIntermediateDirectories: true) }
    for height in [64, 32] {
      let gallery = screenGallery(height: height)
      XCTAssertEqual(gallery.count, screenCount, "screens in the 128x\(height) gallery")
      XCTAssertEqual(Set(gallery.map(\.name)).count, gallery.count, "gallery names are unique")
      if let pngDir {
        try Data(PNGEncoder.encode(contactSheet(gallery.map(\.image)), look: PanelLook(scale: 3))).write(
          to: pngDir.appendingPathComponent("contact-128x\(height).png"))
      }
      for (name, image) in gallery {
        let file = goldenDir.appendingPathComponent(Self.goldenName(name, height: height))
        if let pngDir {
          try Data(PNGEncoder.encode(image)).write(to: pngDir.appendingPathComponent("\(name)-128x\(height).png"))
        }
        if update {
          try PBM.encode(image, comment: "pomodoro screen \(name), 128x\(height)").write(
            to: file, atomically: true, encoding: .utf8)
          continue
        }
        guard let text = try? String(contentsOf: file, encoding: .utf8), let golden = PBM.decode(text) else {
          XCTFail(
            "missing or unreadable golden image \(file.path): run POMODORO_UPDATE_GOLDEN=1 swift test --filter GoldenTests"
          )
          continue
        }
        if golden != image {
          let changed = (0..<image.height).flatMap { y in (0..<image.width).map { (x: $0, y: y) } }
            .filter { golden.pixel($0.x, $0.y) != image.pixel($0.x, $0.y) }
          XCTFail(
            "\(name) 128x\(height): \(changed.count) pixels differ from \(file.lastPathComponent), first at \(changed[0])"
          )
        }
      }
    }
  }

  /// Every golden image is one the gallery produces: a screen renamed or removed leaves none behind.
  func testNoGoldenImageIsAnOrphan() throws {
    let expected = Set([64, 32].flatMap { h in screenGallery(height: h).map { Self.goldenName($0.name, height: h) } })
    let files = try FileManager.default.contentsOfDirectory(atPath: goldenDir.path).filter { $0.hasSuffix(".pbm") }
    for orphan in Set(files).subtracting(expected).sorted() {
      if update {
        try FileManager.default.removeItem(at: goldenDir.appendingPathComponent(orphan))
      } else {
        XCTFail("\(orphan) is no gallery screen: remove it (POMODORO_UPDATE_GOLDEN=1 does)")
      }
    }
  }

  /// Golden/png (README shows some of them) holds exactly what `pomodoro snapshot` writes for
  /// the gallery: the same names, the same bytes.
  func testTheSnapshotPicturesAreTheGalleryScreens() throws {
    let pngDir = goldenDir.appendingPathComponent("png")
    var expected: [String: [UInt8]] = [:]
    for height in [64, 32] {
      for (name, image) in screenGallery(height: height) {
        let file = "\(height == 64 ? "" : "128x32-")\(name).png"
        expected[file] = PNGEncoder.encode(image, look: PanelLook(contrast: snapshotContrast))
      }
    }
    let files = Set(try FileManager.default.contentsOfDirectory(atPath: pngDir.path).filter { $0.hasSuffix(".png") })
    for orphan in files.subtracting(expected.keys).sorted() {
      XCTFail("png/\(orphan) is no gallery screen: pomodoro snapshot Tests/PomodoroGraphicsTests/Golden/png")
    }
    for (file, bytes) in expected.sorted(by: { $0.key < $1.key }) {
      let data = try? Data(contentsOf: pngDir.appendingPathComponent(file))
      XCTAssertTrue(
        data.map { [UInt8]($0) } == bytes,
        "png/\(file) differs from the gallery: swift run pomodoro snapshot Tests/PomodoroGraphicsTests/Golden/png")
    }
  }

  private static func goldenName(_ name: String, height: Int) -> String { "\(name)-128x\(height).pbm" }

  /// The screens side by side, two a row, with a lit frame around each (for looking at them).
  private func contactSheet(_ images: [Framebuffer]) -> Framebuffer {
    let w = images[0].width + 6
    let h = images[0].height + 6
    var sheet = Framebuffer(width: 2 * w, height: (images.count + 1) / 2 * h)
    for (i, image) in images.enumerated() {
      let ox = (i % 2) * w
      let oy = (i / 2) * h
      sheet.strokeRect(x: ox + 1, y: oy + 1, width: w - 2, height: h - 2)
      for y in 0..<image.height {
        for x in 0..<image.width where image.pixel(x, y) { sheet.setPixel(ox + 3 + x, oy + 3 + y) }
      }
    }
    return sheet
  }

  func testPBMRoundTrips() {
    var fb = Framebuffer(width: 128, height: 32)
    fb.line(from: (0, 0), to: (127, 31))
    XCTAssertEqual(PBM.decode(PBM.encode(fb, comment: "x")), fb)
  }
}
