import PomodoroCore
import PomodoroWeb
import XCTest

/// The page only renders: no mode, name, label, title, preset or engine number is written in
/// app.js. Each comes on the wire from the desk's state (StateFieldsTests shows a changed preset
/// or mode list reaching it), so a rule changed in Swift cannot drift on the page.
final class PageRendersOnlyTests: XCTestCase {
  /// app.js as it is served, with its comments taken out (they may name what the wire brings).
  var script: String {
    let text = String(decoding: PageAssets.files["/app.js"]?.body ?? [], as: UTF8.self)
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
      guard let comment = line.range(of: "// ") else { return line }
      return line[..<comment.lowerBound]
    }.joined(separator: "\n")
  }

  /// Every word the desk decides, as a string literal in any quote: none is in the script.
  func testNoModeLabelOrTitleIsWrittenInTheScript() {
    let t0 = Instant(nanoseconds: seconds(1))
    // The modes' ids "short" and "long" are also CSS's and Intl's words: the script compares no
    // mode at all (below).
    var words = Set(Mode.allCases.flatMap { [$0.rawValue, $0.displayName, $0.pickerName] })
    words.subtract(["short", "long"])
    words.formUnion(["focus", "rest", "egg", "flow"])
    for mode in Mode.allCases {
      var state = Engine.step(EngineState(now: t0), .select(mode), now: t0).0
      words.formUnion([state.title, state.startLabel, state.cancelLabel])
      state = Engine.step(state, .press(.start), now: t0).0
      words.formUnion([state.title, state.startLabel])
      state = Engine.step(state, .press(.start), now: t0).0
      words.insert(state.startLabel)
    }
    words.formUnion(["Stop", "Focus done!", "Flow done!", "Break over!", "Earned break"])
    let script = script
    for word in words {
      for quote in ["'", "\"", "`"] {
        XCTAssertFalse(script.contains(quote + word + quote), "app.js writes \(quote)\(word)\(quote): the wire says it")
      }
    }
    XCTAssertFalse(script.contains("So you like it"), "an egg's title")
    for comparison in ["mode === '", "mode !== '", "kind === '", "kind !== '", "mode] "] {
      XCTAssertFalse(script.contains(comparison), "app.js compares a mode or a kind with one it names: \(comparison)")
    }
  }

  /// No preset, dial bound, break ratio or long break in the script's numbers.
  func testNoEngineNumberIsWrittenInTheScript() {
    let settings = EngineSettings()
    let presets = Mode.allCases.compactMap { settings.preset($0) }
    var numbers = Set(presets.map { $0 / 1_000_000 })  // milliseconds
    numbers.formUnion(presets.map { $0 / 1_000_000_000 })  // seconds
    numbers.formUnion([Dial.longest / 1_000_000_000, Dial.longest / 1_000_000, 86_400, 86_399])
    let digits = script.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
    for n in digits where n >= 60 {
      XCTAssertFalse(numbers.contains(n), "app.js writes \(n): a preset or a bound of the desk's")
    }
    for rule in ["24 * 3600", "flow_break_ratio", "long_break", "MODES", "PICKER"] {
      XCTAssertFalse(script.contains(rule), "app.js holds \(rule)")
    }
  }
}
