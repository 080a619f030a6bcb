/// What a session was for: a task or a project, at most `maxCharacters` characters of text
/// without control characters, never empty (no label is nil). Made only through `parse`, so a
/// label the engine holds is always one the rules allow.
public struct SessionLabel: Hashable, Sendable, CustomStringConvertible {
  /// The longest label, in characters (grapheme clusters, as a person counts them).
  public static let maxCharacters = 40
  /// The longest label in UTF-8 bytes: 40 letters of 4 bytes, but not 40 characters that stack
  /// marks or join emoji without end (every message that carries a label fits with it).
  public static let maxBytes = 160
  /// The limits as a refusal says them.
  public static let limits = "at most \(maxCharacters) characters and \(maxBytes) bytes of UTF-8"
  /// How many recent labels the device keeps (the knob's label chooser, the page's suggestions).
  public static let recentLimit = 8

  public let text: String

  public var description: String { text }

  /// Why a text is not a label: the message names the limit and the fix.
  public struct Refusal: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  /// A label from what a person typed: spaces around it trimmed; empty (or only spaces) is no
  /// label (nil); longer than `maxCharacters` characters or `maxBytes` bytes, or holding a control character
  /// (a tab, a new line, an escape, a delete, the C1 controls), refused.
  public static func parse(_ typed: String) -> Result<SessionLabel?, Refusal> {
    // Most labels (and every history line's, read a million at a time) are printable ASCII
    // already trimmed: a character a byte, nothing to refuse.
    let utf8 = typed.utf8
    if let first = utf8.first, let last = utf8.last, first != 0x20, last != 0x20, utf8.count <= maxCharacters,
      utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
    {
      return .success(SessionLabel(text: typed))
    }
    var scalars = Substring(typed).unicodeScalars
    while let first = scalars.first, first == " " { scalars.removeFirst() }
    while let last = scalars.last, last == " " { scalars.removeLast() }
    let text = String(String.UnicodeScalarView(scalars))
    if text.isEmpty { return .success(nil) }
    if let bad = text.unicodeScalars.first(where: isControl) {
      let code = String(bad.value, radix: 16, uppercase: true)
      return .failure(
        Refusal(
          message:
            "a label is text without control characters (U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code) found); type it on one line"
        ))
    }
    let count = text.count
    let bytes = text.utf8.count
    guard count <= maxCharacters, bytes <= maxBytes else {
      return .failure(
        Refusal(
          message: "a label is \(limits), got \(count) characters and \(bytes) bytes; shorten it"))
    }
    return .success(SessionLabel(text: text))
  }

  private init(text: String) { self.text = text }

  /// `text` as a stored label (a file's, a message's): one the rules take exactly as it is, nil
  /// otherwise (a stored label is never trimmed or mended on the way in).
  public static func stored(_ text: String) -> SessionLabel? {
    guard case .success(let label?) = parse(text), label.text == text else { return nil }
    return label
  }

  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
      || scalar.value == 0x2028 || scalar.value == 0x2029
  }

  /// `recent` with `label` first, once, at most `recentLimit` long.
  public static func remembering(_ label: SessionLabel, in recent: [SessionLabel]) -> [SessionLabel] {
    Array(([label] + recent.filter { $0 != label }).prefix(recentLimit))
  }
}

/// An interruption marked during a focus, as the technique marks them: internal (`'`, your own
/// thought pulled you away) or external (`-`, someone or something else did). The timer runs on.
public enum Interruption: String, CaseIterable, Sendable {
  case `internal`
  case external
}

/// A session's interruptions, by kind.
public struct Interruptions: Equatable, Sendable {
  public var `internal`: Int
  public var external: Int

  public init(internal: Int = 0, external: Int = 0) {
    self.internal = max(0, `internal`)
    self.external = max(0, external)
  }

  public var total: Int { `internal` + external }

  /// The most a session counts of each kind (a bound for a file or a flood of commands).
  public static let most = 999

  mutating func mark(_ kind: Interruption) {
    switch kind {
    case .internal: `internal` = min(Self.most, `internal` + 1)
    case .external: external = min(Self.most, external + 1)
    }
  }
}
