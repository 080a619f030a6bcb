import Foundation
import PomodoroCore
import PomodoroSystem
import XCTest

/// Reading a file's lines from its end gives the lines reading from its start gives, in reverse,
/// whatever the chunks, and stops where it is told.
final class BackwardLinesTests: XCTestCase {
  /// The lines `LineSplitter` gives, each with the byte offset it starts at.
  func forward(_ bytes: [UInt8], maxLine: Int) -> [(Int64, String?)] {
    var out: [(Int64, String?)] = []
    var splitter = Files.LineSplitter(maxLine: maxLine)
    splitter.feed(bytes[...]) { _, text in out.append((0, text)) }
    splitter.finish { _, text in out.append((0, text)) }
    // Each line starts at the file's start or after a newline.
    var starts: [Int64] = [0]
    for (i, byte) in bytes.enumerated() where byte == 0x0A { starts.append(Int64(i) + 1) }
    return zip(starts, out.map(\.1)).map { ($0, $1) }
  }

  func backward(_ bytes: [UInt8], maxLine: Int, chunk: Int) -> [(Int64, String?)] {
    var out: [(Int64, String?)] = []
    var splitter = Files.BackwardLineSplitter(maxLine: maxLine, size: Int64(bytes.count))
    var end = bytes.count
    while end > 0 {
      let start = max(0, end - chunk)
      _ = splitter.feed(bytes[start..<end]) { offset, text in
        out.append((offset, text))
        return true
      }
      end = start
    }
    splitter.finish { offset, text in
      out.append((offset, text))
      return true
    }
    return out
  }

  func testTheSameLinesInReverseWhateverTheChunks() {
    var seed: UInt64 = 27
    func next(_ n: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((seed >> 33) % UInt64(n))
    }
    let alphabet: [UInt8] = [0x0A, 0x0A, 0x0D, 0x61, 0x62, 0x7B, 0x20]
    for round in 0..<2000 {
      let bytes = (0..<next(40)).map { _ in alphabet[next(alphabet.count)] }
      let maxLine = 1 + next(8)
      let chunk = 1 + next(12)
      let want = forward(bytes, maxLine: maxLine).reversed()
      let got = backward(bytes, maxLine: maxLine, chunk: chunk)
      XCTAssertEqual(
        got.map { "\($0.0):\($0.1 ?? "<long>")" }, want.map { "\($0.0):\($0.1 ?? "<long>")" },
        "round \(round): \(TextLines.visible(String(decoding: bytes, as: UTF8.self))) maxLine \(maxLine) chunk \(chunk)"
      )
    }
  }

  /// The real reader on a file: from the end, in small chunks, and no further than told.
  func testAFileIsReadFromItsEndAndNoFurtherThanTold() throws {
    let path = NSTemporaryDirectory() + "pomodoro-backward-\(UUID().uuidString)"
    defer { unlink(path) }
    let text = "first\r\n\n" + String(repeating: "x", count: 50) + "\nfourth\nlast, torn"
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    var all: [String] = []
    XCTAssertTrue(
      try Files.forEachLineBackward(path, maxLine: 20, chunkSize: 3) { offset, line in
        all.append("\(offset):\(line ?? "<long>")")
        return true
      })
    XCTAssertEqual(all, ["66:last, torn", "59:fourth", "8:<long>", "7:", "0:first"])
    var seen: [String] = []
    try Files.forEachLineBackward(path, maxLine: 20, chunkSize: 3) { _, line in
      seen.append(line ?? "<long>")
      return seen.count < 2
    }
    XCTAssertEqual(seen, ["last, torn", "fourth"], "stopped at the second line")
    XCTAssertFalse(try Files.forEachLineBackward(path + ".missing", maxLine: 20) { _, _ in true })
  }
}
