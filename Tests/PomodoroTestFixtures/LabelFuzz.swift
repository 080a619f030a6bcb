// Compiled in debug builds only (`swift test`), like every file of this module.
#if DEBUG
  import PomodoroMock

  /// Labels as people and attackers type them, seeded: plain words, markup, quotes and
  /// backslashes, emoji with skin tones and joiners, combining marks, right-to-left text, control
  /// characters (C0, DEL, C1, the line separators), runs of spaces, and lengths around the limit.
  /// The web route's and the MQTT command topic's fuzz tests share it.
  package struct LabelFuzz {
    package var random: SplitMix64

    package init(seed: UInt64) { random = SplitMix64(seed: seed) }

    package static let pieces: [String] = [
      "a", "Report", "Q4", " ", "  ", "\"", "\\", "'", "<img src=x onerror=alert(1)>", "<b>", "&amp;", "{", "}",
      "é", "e\u{301}", "ß", "日本", "👍🏽", "👩‍👩‍👧", "🇩🇪", "\u{202E}", "\u{FEFF}", "\u{200B}", "\t", "\n", "\r",
      "\u{0}", "\u{1B}[2J", "\u{7F}", "\u{85}", "\u{9F}", "\u{2028}", "\u{2029}", "%s", "${x}", "label ", "--external",
    ]

    /// One label: a few pieces, or (one in eight) a run of one character around the 40 limit.
    package mutating func next() -> String {
      if random.next() % 8 == 0 {
        let n = 36 + Int(random.next() % 10)
        let one = Self.pieces[Int(random.next() % UInt64(Self.pieces.count))]
        return String(repeating: one.isEmpty ? "x" : String(one.first!), count: n)
      }
      let count = Int(random.next() % 12)
      return (0..<count).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
    }
  }
#endif
