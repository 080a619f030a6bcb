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

  /// `s` as a JSON string, quoted and escaped.
  public static func quote(_ s: String) -> String {
    // Most strings (keys, modes, times) need no escape: one scan of their bytes tells.
    if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
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
      case _ where u.value < 0x20:
        let hex = String(u.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(u)
      }
    }
    return out + "\""
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
