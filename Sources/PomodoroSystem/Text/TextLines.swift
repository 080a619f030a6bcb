/// The lines of a text file as people save them: split at LF, a trailing CR dropped (files
/// saved with Windows line ends), a leading UTF-8 byte order mark dropped. Splitting is on the
/// UTF-8 bytes (LF and CR are ASCII, so every piece is whole UTF-8): as Characters, "\r\n" is
/// one grapheme and never equals "\n", and scalar by scalar is slow.
public enum TextLines {
  /// `text` without the spaces, tabs and line ends around it.
  public static func trimmed<S: StringProtocol>(_ text: S) -> Substring {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\r\n" }
    var s = Substring(text)
    while let f = s.first, blank(f) { s = s.dropFirst() }
    while let l = s.last, blank(l) { s = s.dropLast() }
    return s
  }

  public static func split(_ text: String) -> [String] {
    var text = text
    return text.withUTF8 { bytes in
      var lines: [String] = []
      guard let base = bytes.baseAddress else { return [""] }
      let count = bytes.count
      var start = count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
      func add(_ end: Int) {
        let last = end > start && base[end - 1] == 0x0D ? end - 1 : end
        lines.append(String(decoding: UnsafeBufferPointer(start: base + start, count: last - start), as: UTF8.self))
      }
      while start < count, let found = memchr(base + start, 0x0A, count - start) {
        let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        add(end)
        start = end + 1
      }
      add(count)
      return lines
    }
  }

  /// `text` with everything invisible or disruptive written as an escape (`\r`, `\t`,
  /// `\u{1B}`, `\u{FEFF}`), for quoting input in a message: control and format characters from
  /// a file never reach the terminal or the journal raw.
  public static func visible<S: StringProtocol>(_ text: S) -> String {
    var out = ""
    for u in text.unicodeScalars {
      switch u {
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      case "\n": out += "\\n"
      case _ where isInvisible(u): out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
      default: out.unicodeScalars.append(u)
      }
    }
    return out
  }

  /// Control characters (C0, DEL, C1), format characters (zero-width, bidi overrides, BOM) and
  /// line or paragraph separators.
  public static func isInvisible(_ u: Unicode.Scalar) -> Bool {
    switch u.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned: return true
    default: return false
    }
  }

  /// Where a comment starts in `line`: a `#` at the start or after a space or tab. A `#` inside
  /// a word (`/dev/gpio#chip0`) is part of the value. (On UTF-8 bytes: grapheme by grapheme is
  /// slow, and `#`, space and tab are ASCII.)
  public static func commentStart(_ line: Substring) -> Substring.Index? {
    var previous: UInt8? = nil
    for i in line.utf8.indices {
      let c = line.utf8[i]
      if c == UInt8(ascii: "#"), previous == nil || previous == 0x20 || previous == 0x09 { return i }
      previous = c
    }
    return nil
  }

  /// What `keyValue` makes of a config line.
  public enum KeyValue: Equatable {
    /// Nothing but spaces, tabs and a comment.
    case blank
    /// `key = value`, each trimmed of spaces and tabs.
    case pair(key: String, value: String)
    /// A character outside printable ASCII (and tab) before the comment, or no `=`: for the
    /// Character-wise reading, which names the problem.
    case other
  }

  /// A config line read on its bytes in one pass, the way `commentStart`, `trimmed` and the
  /// split at the first `=` read it Character by Character (printable ASCII is one Character a
  /// byte), without their cost in a debug build.
  public static func keyValue(_ line: String) -> KeyValue {
    var line = line
    return line.withUTF8 { bytes -> KeyValue in
      guard let p = bytes.baseAddress else { return .blank }
      let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 }
      var end = 0
      var equals = -1
      while end < bytes.count {
        let b = p[end]
        if b == UInt8(ascii: "#"), end == 0 || isSpace(p[end - 1]) { break }
        if b < 0x20 && b != 0x09 || b >= 0x7F { return .other }
        if b == UInt8(ascii: "="), equals < 0 { equals = end }
        end += 1
      }
      func text(_ from: Int, _ to: Int) -> String {
        var from = from
        var to = to
        while from < to, isSpace(p[from]) { from += 1 }
        while to > from, isSpace(p[to - 1]) { to -= 1 }
        return String(decoding: UnsafeBufferPointer(start: p + from, count: to - from), as: UTF8.self)
      }
      guard equals >= 0 else { return text(0, end).isEmpty ? .blank : .other }
      return .pair(key: text(0, equals), value: text(equals + 1, end))
    }
  }

  /// `line` without leading and trailing spaces and tabs.
  public static func trimmed(_ line: Substring) -> Substring {
    let bytes = line.utf8
    guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
      let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
    else { return line[line.endIndex...] }
    return line[first...last]
  }

  /// The words of `line`, split at spaces and tabs.
  public static func words(_ line: Substring) -> [String] {
    line.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The first invisible character of `line` other than a tab, if any.
  public static func firstInvisible(_ line: Substring) -> Unicode.Scalar? {
    guard line.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 >= 0x7F }) else { return nil }
    return line.unicodeScalars.first { $0 != "\t" && isInvisible($0) }
  }
}
