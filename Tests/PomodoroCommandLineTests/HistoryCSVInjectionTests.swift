import Foundation
import PomodoroCommandLine
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroRuntime

/// Issue 46 item 2: `history --csv` opens safely in a spreadsheet. A cell that would start a
/// formula (`=`, `+`, `-`, `@`, a tab, a carriage return) gets a `'` in front, the field quoted
/// (OWASP's CSV-injection advice); every other label goes out unchanged. Read back by Python's
/// csv module.
final class HistoryCSVInjectionTests: XCTestCase {
  static let formulas = [
    "=cmd|' /C calc'!A0", "=1+2", "+SUM(A1:A9)", "-2+3", "@SUM(1,2)", "=HYPERLINK(\"http://x\",\"y\")",
  ]
  static let others = [
    "Thesis, ch. 2", "a \"quoted\" word", "'already", "x=1", "1+1", "Read me", "email@example.org", "—dash",
    "＝fullwidth",
  ]

  func testFormulaLabelsArePrefixedAndEveryOtherLabelIsUnchanged() throws {
    try RealParsers.require()
    let texts = Self.formulas + Self.others + HostileLabels.all.filter { !Self.formulas.contains($0) }
    let (directory, conf) = try HostileLabels.history(of: HostileLabels.checked(texts))
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let r = captureOutput { PomodoroCLI.main(["history", "--csv", "--config", conf]) }
    XCTAssertEqual(r.code, 0, r.err)
    let expected = texts.map { text in Self.formulas.contains(text) ? "'" + text : text }
    XCTAssertEqual(try RealParsers.csv(r.out, column: "label", expected: expected), "ok \(texts.count)")
    // The prefixed cells are quoted fields.
    XCTAssertTrue(r.out.contains(#","'=1+2","#), r.out)
    XCTAssertTrue(r.out.contains(#","'@SUM(1,2)","#), r.out)
    XCTAssertTrue(r.out.contains(",x=1,"), "plain text stays bare: \(r.out)")
  }

  /// A tab or a carriage return first (no label holds one, but the rule is the cell's), and each
  /// of the other four, through the cell writer itself.
  func testEveryFormulaStartIsNeutralised() throws {
    try RealParsers.require()
    let cells = ["\tcmd", "\r=1", "=1", "+1", "-1", "@a", "plain", "a,b", "x\t="]
    let text = "cell\n" + cells.map { HistoryLog.csvText(.string($0)) + "\n" }.joined()
    let expected = cells.map { ["\t", "\r", "=", "+", "-", "@"].contains(where: $0.hasPrefix) ? "'" + $0 : $0 }
    XCTAssertEqual(try RealParsers.csv(text, column: "cell", expected: expected), "ok \(cells.count)")
    XCTAssertEqual(HistoryLog.csvText(.string("\tcmd")), "\"'\tcmd\"")
    XCTAssertEqual(HistoryLog.csvText(.string("-1")), "\"'-1\"")
    XCTAssertEqual(HistoryLog.csvText(.int(-1)), "-1", "a number is no formula")
  }
}
