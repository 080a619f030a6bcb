import Foundation
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroWeb

/// Issue 34 item 9: a cookie is judged by a keyed hash (HMAC-SHA-256 under the install's key),
/// not by a SHA-256-crypt: a wrong cookie costs no crypt; a 0.2 pairing (SHA-256-crypt) still
/// pairs and is kept keyed from its first use.
final class PairingHashTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "web-hash-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

  func testSHA256AndHMACAreTheStandardOnes() {
    XCTAssertEqual(
      SHA256.hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    XCTAssertEqual(
      SHA256.hex(SHA256.hash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    XCTAssertEqual(
      SHA256.hex(SHA256.hash(Array(String(repeating: "a", count: 1000).utf8))),
      "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    // RFC 4231, test cases 2 and 6 (a key longer than a block).
    XCTAssertEqual(
      SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    XCTAssertEqual(
      SHA256.hex(
        SHA256.hmac(
          key: [UInt8](repeating: 0xaa, count: 131),
          Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
  }

  /// SHA-256-crypts made by the pairings `counted` gives: what a request's cookie cost.
  var crypts = 0
  func counted(_ directory: String) -> Pairings {
    Pairings(directory: directory) { [unowned self] secret in
      crypts += 1
      return Pairings.hash(secret)
    }
  }

  func testACookieCostsNoCrypt() throws {
    let pairings = counted(directory)
    let token = try pairings.pair(at: WallTime(epochSeconds: 1_796_040_000, synced: true))
    let kept = try String(contentsOfFile: directory + "/pairings", encoding: .utf8)
    XCTAssertTrue(kept.contains("$h1$"), kept)
    XCTAssertFalse(kept.contains(token))
    let key = try String(contentsOfFile: directory + "/" + Pairings.keyFileName, encoding: .utf8)
    XCTAssertEqual(key.count, 65, "32 bytes in hex and a newline")
    XCTAssertTrue(pairings.paired(cookieHeader: "pomodoro_pairing=\(token)"))
    XCTAssertFalse(pairings.paired(cookieHeader: "pomodoro_pairing=" + String(repeating: "b", count: 64)))
    XCTAssertEqual(crypts, 0, "neither a right nor a wrong cookie costs a crypt")
    // Another server on the same state directory (a restart) reads the same key.
    XCTAssertTrue(Pairings(directory: directory).paired(cookieHeader: "pomodoro_pairing=\(token)"))
  }

  func testA02PairingStillPairsAndIsKeptKeyed() throws {
    guard let old = Pairings.hash(String(repeating: "c", count: 64)) else {
      throw XCTSkip("built without libcrypt's header: sudo apt install libcrypt-dev")
    }
    try (Pairings.header + "\(old) 2026-11-30T12:00:00Z\n").write(
      toFile: directory + "/pairings", atomically: true, encoding: .utf8)
    let pairings = counted(directory)
    XCTAssertFalse(pairings.paired(cookieHeader: "pomodoro_pairing=" + String(repeating: "d", count: 64)))
    XCTAssertTrue(pairings.paired(cookieHeader: "pomodoro_pairing=" + String(repeating: "c", count: 64)))
    XCTAssertGreaterThan(crypts, 0, "a 0.2 pairing not yet kept keyed costs a crypt")
    let kept = try String(contentsOfFile: directory + "/pairings", encoding: .utf8)
    XCTAssertFalse(kept.contains("$5$"), kept)
    XCTAssertTrue(kept.contains("$h1$"), kept)
    XCTAssertTrue(kept.contains("2026-11-30T12:00:00Z"), "when it was paired, kept")
    let before = crypts
    XCTAssertTrue(counted(directory).paired(cookieHeader: "pomodoro_pairing=" + String(repeating: "c", count: 64)))
    XCTAssertFalse(pairings.paired(cookieHeader: "pomodoro_pairing=" + String(repeating: "d", count: 64)))
    XCTAssertEqual(crypts, before, "once every 0.2 pairing is kept keyed, no crypt")
  }
}
