/// The lines of a text file as people save them: split at LF, a trailing CR dropped (files
/// saved with Windows line ends), a leading UTF-8 byte order mark dropped. Splitting is on
/// Unicode scalars: as Characters, "\r\n" is one grapheme and never equals "\n".
public enum TextLines {
  public static func split(_ text: String) -> [String] {
    var scalars = Substring(text).unicodeScalars
    if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    return scalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      var line = line
      if line.last == "\r" { line.removeLast() }
      return String(String.UnicodeScalarView(line))
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
