import PomodoroCore
import PomodoroDrivers
import PomodoroMock
import XCTest

final class RTTTLTests: XCTestCase {
  private func tune(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Tune? {
    switch RTTTL.parse(text) {
    case .success(let tune): return tune
    case .failure(let error):
      XCTFail("\(text): \(error)", file: file, line: line)
      return nil
    }
  }

  private func refusal(_ text: String) -> RTTTLError? {
    if case .failure(let error) = RTTTL.parse(text) { return error }
    return nil
  }

  func testDefaultsNotesAndLengths() throws {
    // b=120: a quarter note is 500 ms, a whole note 2 s.
    let t = try XCTUnwrap(tune("test:d=4,o=5,b=120:c,8d#6,2p,16a,1b4"))
    XCTAssertEqual(t.name, "test")
    XCTAssertEqual(t.notes.map(\.midi), [72, 87, nil, 81, 71])
    XCTAssertEqual(t.notes.map(\.duration), [ms(500), ms(250), ms(1000), ms(125), ms(2000)])
    XCTAssertEqual(t.notes[3].frequency!, 880, accuracy: 0.001)
  }

  func testDefaultsMayBeLeftOutOrReordered() throws {
    let a = try XCTUnwrap(tune("x::c"))
    XCTAssertEqual(a.notes, [Tune.Note(midi: 84, duration: seconds(240) / 63 / 4)])
    let b = try XCTUnwrap(tune("x:b=100, o=5 ,d=8:c"))
    XCTAssertEqual(b.notes, [Tune.Note(midi: 72, duration: ms(300))])
  }

  /// esphome/esphome#13674: a dot before the octave was read wrongly. Both places mean dotted.
  func testADotBeforeTheOctaveIsADottedNote() throws {
    let before = try XCTUnwrap(tune("x:d=8,o=5,b=100:e.6"))
    let after = try XCTUnwrap(tune("x:d=8,o=5,b=100:e6."))
    XCTAssertEqual(before.notes, [Tune.Note(midi: 88, duration: ms(450))])
    XCTAssertEqual(after.notes, before.notes)
    XCTAssertEqual(refusal("x:d=8,o=5,b=100:e.6.")?.position, 20)
  }

  /// esphome/issues#6249: a sharp stopped the song; the notes after it must still play.
  func testASharpDoesNotStopTheSong() throws {
    let t = try XCTUnwrap(tune("x:d=4,o=5,b=120:c#,d#6,f#,g#,a#,c"))
    XCTAssertEqual(t.notes.map(\.midi), [73, 87, 78, 80, 82, 72])
  }

  func testUpperCaseAndHForB() throws {
    let t = try XCTUnwrap(tune("X:D=4,O=5,B=120:C,H,B"))
    XCTAssertEqual(t.notes.map(\.midi), [72, 83, 83])
  }

  func testRefusalsSayWhereAndWhatWasExpected() {
    let cases: [(String, Int, String)] = [
      ("no colon", 9, "a ':' after the name"),
      ("x:d=3:c", 5, "a duration of 1, 2, 4, 8, 16 or 32"),
      ("x:o=9:c", 5, "an octave from 3 to 8"),
      ("x:b=2000:c", 5, "a tempo"),
      ("x:d=4,d=8:c", 7, "each of d=, o= and b= once"),
      ("x:q=4:c", 3, "a default d=, o= or b="),
      ("x:d=4:c,x", 9, "a note: c, d, e, f, g, a, b"),
      ("x:d=4:c;d", 8, "',' between notes"),
      ("x:d=4:3c", 7, "a note's duration"),
      ("x:d=4:e#", 8, "a sharp only on c, d, f, g or a"),
      ("x:d=4:p#", 8, "no '#' after a rest"),
      ("x:d=4:p5", 8, "no octave after a rest"),
      ("x:d=4:c9", 8, "an octave from 3 to 8"),
      ("x:d=4:", 7, "a note"),
      ("x:d=4:c,", 9, "a note"),
      ("x:d=4:p,p", 10, "at least one note that sounds"),
      ("x:b=25:" + Array(repeating: "1c", count: 13).joined(separator: ","), 44, "at most two minutes"),
    ]
    for (text, position, expected) in cases {
      guard let error = refusal(text) else {
        XCTFail("\(text) was read")
        continue
      }
      XCTAssertEqual(error.position, position, "\(text): \(error)")
      XCTAssertTrue(error.message.contains(expected), "\(text): \(error)")
      XCTAssertTrue(error.description.hasPrefix("at character \(position): expected "), "\(text): \(error)")
    }
  }

  func testEveryBuiltInTuneReadsAndIsShort() throws {
    XCTAssertGreaterThanOrEqual(BuiltInTunes.all.count, 5)
    for (name, _) in BuiltInTunes.all {
      let t = try XCTUnwrap(BuiltInTunes.named(name), name)
      XCTAssertEqual(t.source, name)
      XCTAssertEqual(t.name, name)
      XCTAssertLessThanOrEqual(t.length, seconds(6), name)
      // A piezo's loud range: C5 (523 Hz) to C8 (4186 Hz).
      for note in t.notes { if let m = note.midi { XCTAssertTrue((72...108).contains(m), "\(name): \(m)") } }
    }
    XCTAssertEqual(try BuiltInTunes.read("Chime").get().source, "chime")
    XCTAssertEqual(try BuiltInTunes.read("mine:d=4:c").get().source, "mine:d=4:c")
  }

  /// 20,000 texts, half random bytes over RTTTL's alphabet and half built-in tunes with a few
  /// bytes changed: none traps, each is a tune within the limits or a refusal naming a
  /// position inside the text (or one past its end) and what was expected.
  func testFuzzedTextIsATuneOrAClearRefusal() {
    var rng = SplitMix64(seed: 38)
    let alphabet = Array("cdefgabhpCDP0123456789#.,:=dob =x\t-".utf8) + [0, 0xFF, 0xC3]
    var read = 0
    var refused = 0
    for i in 0..<20_000 {
      var bytes: [UInt8]
      if i % 2 == 0 {
        let n = Int(rng.next() % 60)
        bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
      } else {
        bytes = Array(BuiltInTunes.all[Int(rng.next() % UInt64(BuiltInTunes.all.count))].rtttl.utf8)
        for _ in 0...(rng.next() % 3) {
          let at = Int(rng.next() % UInt64(bytes.count + 1))
          let c = alphabet[Int(rng.next() % UInt64(alphabet.count))]
          switch rng.next() % 3 {
          case 0: bytes.insert(c, at: at)
          case 1: if at < bytes.count { bytes.remove(at: at) }
          default: if at < bytes.count { bytes[at] = c }
          }
        }
      }
      let text = String(decoding: bytes, as: UTF8.self)
      switch RTTTL.parse(text) {
      case .success(let t):
        read += 1
        XCTAssertFalse(t.notes.isEmpty)
        XCTAssertTrue(t.notes.allSatisfy { $0.duration > 0 }, text)
        XCTAssertLessThanOrEqual(t.length, RTTTL.longest, text)
        XCTAssertTrue(t.notes.contains { $0.midi != nil }, text)
      case .failure(let error):
        refused += 1
        XCTAssertTrue((1...(text.utf8.count + 1)).contains(error.position), "\(text): \(error)")
        XCTAssertTrue(error.message.hasPrefix("expected "), "\(text): \(error)")
      }
    }
    XCTAssertEqual(read + refused, 20_000)
    XCTAssertGreaterThan(read, 1_000)
    XCTAssertGreaterThan(refused, 1_000)
  }
}
