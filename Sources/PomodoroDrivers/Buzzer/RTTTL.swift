import PomodoroCore

/// A tune for the passive buzzer: notes (a pitch or a rest) and how long each lasts.
public struct Tune: Equatable, Sendable {
  /// One note: a pitch (nil: a rest) held for `duration`.
  public struct Note: Equatable, Sendable {
    /// The MIDI note number (69: A4, 440 Hz); nil for a rest.
    public var midi: Int?
    public var duration: Nanoseconds

    public init(midi: Int?, duration: Nanoseconds) {
      self.midi = midi
      self.duration = duration
    }

    /// The pitch in hertz (equal temperament, A4 = 440 Hz); nil for a rest.
    public var frequency: Double? { midi.map(Tune.frequency(midi:)) }
  }

  /// The tune's own name (RTTTL's first field; may be empty).
  public var name: String
  public var notes: [Note]
  /// The text it was read from: a built-in tune's name, or RTTTL (what the config writes back).
  public var source: String

  public init(name: String, notes: [Note], source: String) {
    self.name = name
    self.notes = notes
    self.source = source
  }

  /// One pass of the tune.
  public var length: Nanoseconds { notes.reduce(0) { $0 + $1.duration } }

  /// A note's name and octave, like C#6 (scientific pitch: A4 is 440 Hz).
  public static func noteName(midi: Int) -> String {
    let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
    let octave = midi >= 0 ? midi / 12 - 1 : (midi - 11) / 12 - 1
    return names[midi - (octave + 1) * 12] + String(octave)
  }

  /// Equal temperament from A4 = 440 Hz, without Foundation: a semitone table and octaves.
  public static func frequency(midi: Int) -> Double {
    let octaveOf4 = [
      261.6256, 277.1826, 293.6648, 311.1270, 329.6276, 349.2282, 369.9944, 391.9954, 415.3047, 440.0, 466.1638,
      493.8833,
    ]
    let fromC4 = midi - 60
    let octave = fromC4 >= 0 ? fromC4 / 12 : (fromC4 - 11) / 12
    var f = octaveOf4[fromC4 - octave * 12]
    if octave > 0 { for _ in 0..<octave { f *= 2 } }
    if octave < 0 { for _ in 0..<(-octave) { f /= 2 } }
    return f
  }
}

/// Why an RTTTL text is not a tune: where (a 1-based character position) and what was expected.
public struct RTTTLError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The 1-based position of the first character that does not fit (one past the end for text
  /// that stops too soon).
  public var position: Int
  public var message: String

  public var description: String { "at character \(position): \(message)" }
}

/// Reads Nokia's Ring Tone Text Transfer Language: `name:d=4,o=5,b=120:8c6,e,g.,p,2c#7`.
/// Pure and total: any text is either a tune or an `RTTTLError`, never a trap.
///
/// A note is `[duration] letter [#] [.] [octave] [.]`: the dot may stand before the octave
/// (`8e.6`, which ESPHome once read wrongly: esphome/esphome#13674) or after it (`8e6.`), not
/// both. Letters c d e f g a b (h is b), p a rest; durations 1, 2, 4, 8, 16, 32; octaves 3 to 8.
/// Defaults `d` (4), `o` (6) and `b` (63, beats a minute of quarter notes) may be given in any
/// order, each once.
public enum RTTTL {
  /// The longest tune read: two minutes a pass, 500 notes.
  public static let longest: Nanoseconds = seconds(120)
  public static let mostNotes = 500
  public static let durations = [1, 2, 4, 8, 16, 32]
  public static let octaves = 3...8
  public static let tempos = 25...900

  public static func parse(_ text: String) -> Result<Tune, RTTTLError> {
    var reader = Reader(Array(text.utf8))
    do {
      return .success(try reader.tune(source: text))
    } catch let error as RTTTLError {
      return .failure(error)
    } catch {
      return .failure(RTTTLError(position: reader.index + 1, message: "\(error)"))
    }
  }

  private struct Reader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var current: UInt8? { index < bytes.count ? lower(bytes[index]) : nil }

    func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }

    func fail(_ expected: String, at position: Int? = nil) -> RTTTLError {
      let at = position ?? index
      let found: String
      if at < bytes.count {
        let c = bytes[at]
        found = c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "a byte 0x\(String(c, radix: 16))"
      } else {
        found = "the end"
      }
      return RTTTLError(position: at + 1, message: "expected \(expected), found \(found)")
    }

    mutating func skipSpaces() {
      while let c = current, c == 0x20 || c == 0x09 { index += 1 }
    }

    mutating func take(_ c: UInt8) -> Bool {
      if current == c {
        index += 1
        return true
      }
      return false
    }

    /// Up to four digits; nil when none.
    mutating func number() -> Int? {
      var n = 0
      var digits = 0
      while let c = current, c >= 0x30, c <= 0x39 {
        if digits == 4 { return nil }
        n = n * 10 + Int(c - 0x30)
        digits += 1
        index += 1
      }
      return digits == 0 ? nil : n
    }

    mutating func tune(source: String) throws -> Tune {
      // The name: anything up to the first colon.
      guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
        index = bytes.count
        throw fail("a tune like name:d=4,o=5,b=120:c,e,g (a ':' after the name)")
      }
      let name = String(decoding: bytes[..<colon], as: UTF8.self)
      guard name.utf8.count <= 40 else { throw fail("a name of at most 40 characters before the ':'") }
      if let bad = bytes[..<colon].firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
        throw fail("a name of printable characters", at: bad)
      }
      index = colon + 1
      var duration = 4
      var octave = 6
      var tempo = 63
      var seen: Set<UInt8> = []
      skipSpaces()
      while current != UInt8(ascii: ":") {
        let at = index
        guard let key = current, key == UInt8(ascii: "d") || key == UInt8(ascii: "o") || key == UInt8(ascii: "b")
        else { throw fail("a default d=, o= or b=, or ':' before the notes") }
        guard seen.insert(key).inserted else { throw fail("each of d=, o= and b= once", at: at) }
        index += 1
        skipSpaces()
        guard take(UInt8(ascii: "=")) else { throw fail("'=' after '\(Character(Unicode.Scalar(key)))'") }
        skipSpaces()
        let valueAt = index
        let value = number()
        switch key {
        case UInt8(ascii: "d"):
          guard let value, RTTTL.durations.contains(value) else {
            throw fail("a duration of 1, 2, 4, 8, 16 or 32", at: valueAt)
          }
          duration = value
        case UInt8(ascii: "o"):
          guard let value, RTTTL.octaves.contains(value) else { throw fail("an octave from 3 to 8", at: valueAt) }
          octave = value
        default:
          guard let value, RTTTL.tempos.contains(value) else {
            throw fail("a tempo (b=, beats a minute) from 25 to 900", at: valueAt)
          }
          tempo = value
        }
        skipSpaces()
        if take(UInt8(ascii: ",")) {
          skipSpaces()
          continue
        }
        guard current == UInt8(ascii: ":") else { throw fail("',' or ':' after a default") }
      }
      index += 1
      // A whole note lasts four beats.
      let whole = seconds(240) / Int64(tempo)
      var notes: [Tune.Note] = []
      var total: Nanoseconds = 0
      skipSpaces()
      while true {
        let noteAt = index
        let note = try self.note(whole: whole, duration: duration, octave: octave)
        total += note.duration
        guard notes.count < RTTTL.mostNotes else {
          throw fail("at most \(RTTTL.mostNotes) notes", at: noteAt)
        }
        guard total <= RTTTL.longest else {
          throw fail("a tune of at most two minutes (this note passes it)", at: noteAt)
        }
        notes.append(note)
        skipSpaces()
        if current == nil { break }
        guard take(UInt8(ascii: ",")) else { throw fail("',' between notes, or the end") }
        skipSpaces()
      }
      guard notes.contains(where: { $0.midi != nil }) else {
        throw fail("at least one note that sounds (all are rests)", at: bytes.count)
      }
      return Tune(name: name, notes: notes, source: source)
    }

    mutating func note(whole: Nanoseconds, duration defaultDuration: Int, octave defaultOctave: Int) throws
      -> Tune.Note
    {
      let durationAt = index
      var duration = defaultDuration
      if let d = number() {
        guard RTTTL.durations.contains(d) else {
          throw fail("a note's duration of 1, 2, 4, 8, 16 or 32", at: durationAt)
        }
        duration = d
      }
      let letters: [UInt8: Int?] = [
        UInt8(ascii: "c"): 0, UInt8(ascii: "d"): 2, UInt8(ascii: "e"): 4, UInt8(ascii: "f"): 5,
        UInt8(ascii: "g"): 7, UInt8(ascii: "a"): 9, UInt8(ascii: "b"): 11, UInt8(ascii: "h"): 11,
        UInt8(ascii: "p"): nil,
      ]
      guard let letter = current, let semitone = letters[letter] else {
        throw fail("a note: c, d, e, f, g, a, b (or h), or p for a rest")
      }
      index += 1
      var step = semitone
      if take(UInt8(ascii: "#")) {
        guard step != nil else { throw fail("no '#' after a rest", at: index - 1) }
        guard letter != UInt8(ascii: "e") && letter != UInt8(ascii: "b") && letter != UInt8(ascii: "h") else {
          throw fail("a sharp only on c, d, f, g or a (e# is f, b# is c)", at: index - 1)
        }
        step = step.map { $0 + 1 }
      }
      var dotted = take(UInt8(ascii: "."))
      var octave = defaultOctave
      let octaveAt = index
      if let o = number() {
        guard RTTTL.octaves.contains(o) else { throw fail("an octave from 3 to 8", at: octaveAt) }
        guard step != nil else { throw fail("no octave after a rest", at: octaveAt) }
        octave = o
      }
      if current == UInt8(ascii: ".") {
        guard !dotted else { throw fail("one dot a note", at: index) }
        dotted = true
        index += 1
      }
      var length = whole / Int64(duration)
      if dotted { length += length / 2 }
      return Tune.Note(midi: step.map { 12 * (octave + 1) + $0 }, duration: length)
    }
  }
}
