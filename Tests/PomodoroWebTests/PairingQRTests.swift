import Foundation
import PomodoroCore
import PomodoroGraphics
import PomodoroSystem
import PomodoroTestFixtures
import PomodoroWeb
import XCTest

@testable import PomodoroRuntime

/// Paired by the camera: `pomodoro web` sends the page's address with the code, the desk draws
/// it as a QR code beside the digits (libqrencode), and a real QR reader (zbar-tools' `zbarimg`,
/// which CI installs) reads the emulated panel's frame back to the address with the code.
extension WebDeskTests {
  /// zbarimg's path, or nil (the test that needs it is skipped, saying so).
  static var zbarimg: String? {
    ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  func testThePanelsQRCodeReadsBackAsThePagesAddressWithTheCode() throws {
    try XCTSkipUnless(PairingQR.available, "libqrencode is not compiled in (sudo apt install libqrencode-dev)")
    guard let zbarimg = Self.zbarimg else {
      throw XCTSkip("zbarimg is not installed (sudo apt install zbar-tools); CI installs it")
    }
    desk.pageURL = { client in client == "192.0.2.50" ? "http://192.168.1.23:8080/" : nil }
    XCTAssertEqual(post("/api/pair", "{}").status, 202)
    settle(until: { self.fixture.h.device.pairing.code != nil })
    let code = try XCTUnwrap(fixture.h.device.pairing.code)
    XCTAssertNotNil(fixture.h.device.pairing.qr, "the desk made a QR code of the address")
    fixture.h.run(for: ms(100))
    let frame = fixture.h.hardware.emulator.visibleImage()
    XCTAssertEqual(try Self.decode(frame, with: zbarimg), ["QR-Code:http://192.168.1.23:8080/#pair=\(code)"])
    // The address opened pairs that browser (the page posts the code it carries).
    let r = post("/api/pair", "{\"code\":\"\(code)\"}", client: "192.168.1.40")
    XCTAssertEqual(r.status, 200, r.body)
  }

  /// Without an address (none a phone reaches) the desk shows the digits alone, as before.
  func testWithoutAnAddressTheDeskShowsTheDigitsAlone() throws {
    XCTAssertEqual(post("/api/pair", "{}").status, 202)
    settle(until: { self.fixture.h.device.pairing.code != nil })
    XCTAssertNil(fixture.h.device.pairing.qr)
  }

  /// A QR code that cannot be made (libqrencode absent, an address too long): the digits alone,
  /// and one log line that says why, however many codes follow.
  func testAQRCodeThatCannotBeMadeLeavesTheDigitsAndOneLogLine() throws {
    var asked: [String] = []
    fixture.h.device.qrEncoder = { text in
      asked.append(text)
      return .failure(PairingQR.Reason(text: "libqrencode.so.4 cannot be loaded (test)"))
    }
    for _ in 0..<2 {
      fixture.h.device.showPairing(String(100_000 + asked.count), url: "http://192.168.1.23:8080/")
      XCTAssertNotNil(fixture.h.device.pairing.code)
      XCTAssertNil(fixture.h.device.pairing.qr)
    }
    XCTAssertEqual(asked, ["http://192.168.1.23:8080/#pair=100000", "http://192.168.1.23:8080/#pair=100001"])
    let said = fixture.h.logLines.filter { $0.1.contains("without a QR code") }.map(\.1)
    XCTAssertEqual(
      said, ["the pairing screen shows the code without a QR code: libqrencode.so.4 cannot be loaded (test)"])
  }

  /// The frame as a PNG (4 pixels a panel pixel, no gaps) inside a lit margin of 8 panel pixels
  /// (the quiet zone a printed code has), read by zbarimg: the symbols it found.
  static func decode(_ frame: Framebuffer, with zbarimg: String) throws -> [String] {
    let margin = 8
    var framed = Framebuffer(width: frame.width + 2 * margin, height: frame.height + 2 * margin)
    framed.clear(true)
    for y in 0..<frame.height {
      for x in 0..<frame.width { framed.setPixel(x + margin, y + margin, frame.pixel(x, y)) }
    }
    let file = NSTemporaryDirectory() + "pairing-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).png"
    defer { try? FileManager.default.removeItem(atPath: file) }
    try Data(PNGEncoder.encode(framed, look: PanelLook(scale: 4, pixelGaps: false))).write(
      to: URL(fileURLWithPath: file))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: zbarimg)
    process.arguments = ["--quiet", file]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(separator: "\n").map(String.init)
  }
}
