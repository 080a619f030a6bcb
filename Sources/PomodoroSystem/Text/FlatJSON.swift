/// A JSON object with no nesting but lists of plain values: what the state file, the history
/// lines, the transcript and the state on the wire need (the state's `picker`). Writing keeps the
/// keys in the order given; reading refuses anything malformed, and any list inside a list or
/// any object inside an object.
public enum JSONValue: Equatable, Sendable {
  case string(String)
  case int(Int64)
  case bool(Bool)
  case null
  /// A list of strings, numbers, booleans or nulls (never a list).
  case list([JSONValue])

  public var text: String {
    switch self {
    case .string(let s): return FlatJSON.quote(s)
    case .int(let n): return String(n)
    case .bool(let b): return b ? "true" : "false"
    case .null: return "null"
    case .list(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
    }
  }

  public var string: String? { if case .string(let s) = self { return s } else { return nil } }
  public var int: Int64? { if case .int(let n) = self { return n } else { return nil } }
  public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
  public var list: [JSONValue]? { if case .list(let l) = self { return l } else { return nil } }
}

public enum FlatJSON {
  /// `{"a":1,"b":"x"}` with the keys in the order given.
  public static func encode(_ pairs: KeyValuePairs<String, JSONValue>) -> String {
    encode(pairs.map { ($0.key, $0.value) })
  }

  public static func encode(_ pairs: [(String, JSONValue)]) -> String {
    var out = "{"
    for (i, (key, value)) in pairs.enumerated() {
      if i > 0 { out += "," }
      out += quote(key)
      out += ":"
      out += value.text
    }
    return out + "}"
  }

  /// `s` as a JSON string, quoted and escaped: the quote, the backslash and every invisible
  /// character (controls, format characters such as U+200B, U+FEFF, U+202E, line and paragraph
  /// separators, unassigned code points: `TextLines.isInvisible`) as JSON's own escapes
  /// (`\u200b`, a pair of surrogates past the first plane, as Python's json.dumps writes
  /// them). Every parser reads the exact text back, and the line itself is plain visible text:
  /// `Log.oneLine` leaves it as it is, and a terminal or the journal gets nothing raw.
  public static func quote(_ s: String) -> String {
    // Most strings (keys, modes, times) are printable ASCII with no quote or backslash: one
    // scan of their bytes tells.
    if !s.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
      return "\"" + s + "\""
    }
    var out = "\""
    for u in s.unicodeScalars {
      switch u {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where u.value < 0x20 || u.value >= 0x7F && TextLines.isInvisible(u): out += escape(u)
      default: out.unicodeScalars.append(u)
      }
    }
    return out + "\""
  }

  /// `u` as JSON's `\uXXXX` (lower-case hex), as two of them (a surrogate pair) past U+FFFF.
  static func escape(_ u: Unicode.Scalar) -> String {
    func hex4(_ v: UInt32) -> String {
      let hex = String(v, radix: 16)
      return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
    guard u.value > 0xFFFF else { return hex4(u.value) }
    let v = u.value - 0x10000
    return hex4(0xD800 + (v >> 10)) + hex4(0xDC00 + (v & 0x3FF))
  }

  /// A line of JSON (a device's reply or watch line, already decoded) with every invisible
  /// character inside its strings written as `quote` writes it, and any outside them (JSON's
  /// whitespace: a tab, a carriage return) as a space: what `pomodoro ctl --json` prints, valid
  /// JSON that no terminal takes an escape sequence from, whatever the device sent.
  public static func visible(_ line: String) -> String {
    guard line.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return line }
    var out = ""
    var inString = false
    var escaped = false
    for u in line.unicodeScalars {
      let invisible = u.value < 0x20 || u.value >= 0x7F && TextLines.isInvisible(u)
      if !inString {
        if u == "\"" { inString = true }
        if invisible { out += " " } else { out.unicodeScalars.append(u) }
        continue
      }
      if escaped {
        escaped = false
      } else if u == "\\" {
        escaped = true
      } else if u == "\"" {
        inString = false
      }
      if invisible { out += escape(u) } else { out.unicodeScalars.append(u) }
    }
    return out
  }

  /// Parses one flat object; nil if the text is not exactly that (a torn line, say), or names a
  /// key twice (`{"cmd":"status","cmd":"start"}` must not be read as either).
  public static func decode(_ text: String) -> [String: JSONValue]? {
    var p = Parser(Array(text.utf8))
    return p.object()
  }

  struct Parser {
    let b: [UInt8]
    var i = 0
    init(_ bytes: [UInt8]) { b = bytes }

    mutating func skip() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 } }
    mutating func eat(_ c: UInt8) -> Bool {
      skip()
      guard i < b.count, b[i] == c else { return false }
      i += 1
      return true
    }

    mutating func object() -> [String: JSONValue]? {
      var out: [String: JSONValue] = [:]
      guard eat(UInt8(ascii: "{")) else { return nil }
      if eat(UInt8(ascii: "}")) { return finish(out) }
      repeat {
        skip()
        guard let key = string(), eat(UInt8(ascii: ":")), let v = value() else { return nil }
        guard out.updateValue(v, forKey: key) == nil else { return nil }
      } while eat(UInt8(ascii: ","))
      guard eat(UInt8(ascii: "}")) else { return nil }
      return finish(out)
    }

    mutating func finish(_ out: [String: JSONValue]) -> [String: JSONValue]? {
      skip()
      return i == b.count ? out : nil
    }

    /// A value; a list only where `lists` (an object's value, not a list's item).
    mutating func value(lists: Bool = true) -> JSONValue? {
      skip()
      guard i < b.count else { return nil }
      switch b[i] {
      case UInt8(ascii: "[") where lists:
        i += 1
        var items: [JSONValue] = []
        if eat(UInt8(ascii: "]")) { return .list(items) }
        repeat {
          guard let item = value(lists: false) else { return nil }
          items.append(item)
        } while eat(UInt8(ascii: ","))
        return eat(UInt8(ascii: "]")) ? .list(items) : nil
      case UInt8(ascii: "\""): return string().map(JSONValue.string)
      case UInt8(ascii: "t"): return literal("true", .bool(true))
      case UInt8(ascii: "f"): return literal("false", .bool(false))
      case UInt8(ascii: "n"): return literal("null", .null)
      default:
        let start = i
        if b[i] == UInt8(ascii: "-") { i += 1 }
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        return Int64(String(decoding: b[start..<i], as: UTF8.self)).map(JSONValue.int)
      }
    }

    mutating func literal(_ word: String, _ v: JSONValue) -> JSONValue? {
      let w = Array(word.utf8)
      guard i + w.count <= b.count, Array(b[i..<i + w.count]) == w else { return nil }
      i += w.count
      return v
    }

    /// Four hex digits at `i`, taken.
    mutating func hex4() -> UInt32? {
      guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<i + 4], as: UTF8.self), radix: 16) else {
        return nil
      }
      i += 4
      return v
    }

    mutating func string() -> String? {
      guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
      i += 1
      var bytes: [UInt8] = []
      while i < b.count {
        let c = b[i]
        i += 1
        if c == UInt8(ascii: "\"") { return String(decoding: bytes, as: UTF8.self) }
        if c == UInt8(ascii: "\\") {
          guard i < b.count else { return nil }
          let e = b[i]
          i += 1
          switch e {
          case UInt8(ascii: "n"): bytes.append(0x0A)
          case UInt8(ascii: "r"): bytes.append(0x0D)
          case UInt8(ascii: "t"): bytes.append(0x09)
          case UInt8(ascii: "u"):
            guard var v = hex4() else { return nil }
            // A character past the first plane as a surrogate pair (`\ud83d\udc4d`, as Python's
            // json.dumps writes it).
            if (0xD800..<0xDC00).contains(v), i + 6 <= b.count, b[i] == UInt8(ascii: "\\"),
              b[i + 1] == UInt8(ascii: "u")
            {
              i += 2
              guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
              v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(v) else { return nil }
            bytes += Array(String(scalar).utf8)
          case UInt8(ascii: "b"): bytes.append(0x08)
          case UInt8(ascii: "f"): bytes.append(0x0C)
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(e)
          default: return nil
          }
        } else {
          bytes.append(c)
        }
      }
      return nil
    }
  }
}
