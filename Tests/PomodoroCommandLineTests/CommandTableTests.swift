import Foundation
import XCTest

@testable import PomodoroCommandLine

/// The command table is the one place each subcommand, its usage and its exit codes are
/// written: README's and docs/use.md's command block, docs/use.md's exit codes and the man page's
/// COMMANDS and EXIT STATUS must say what it says.
final class CommandTableTests: XCTestCase {
  func text(_ path: String) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  func testReadmeAndUseHoldTheCommandBlock() throws {
    let block = "```text\n" + PomodoroCLI.commandBlock + "\n```"
    for doc in ["README.md", "docs/use.md"] {
      XCTAssertTrue(try text(doc).contains(block), "\(doc) should hold, as it is:\n\(block)")
    }
    XCTAssertTrue(
      try text("docs/use.md").contains(PomodoroCLI.docsExitCodes),
      "docs/use.md should say, as it is:\n\(PomodoroCLI.docsExitCodes)")
  }

  func testTheManPageSaysWhatTheTableSays() throws {
    let man = try text("deploy/debian/pomodoro.1")
    let commands = ".SH COMMANDS\n" + PomodoroCLI.manCommands + ".SH "
    let exit = ".SH EXIT STATUS\n" + PomodoroCLI.manExitStatus + ".SH "
    XCTAssertTrue(man.contains(commands), "the man page's COMMANDS should be, as it is:\n\(commands)")
    XCTAssertTrue(man.contains(exit), "the man page's EXIT STATUS should be, as it is:\n\(exit)")
  }

  /// Each command's help is its usage, its details and its exit codes, each code's meaning from
  /// ExitCode unless the command says what the code means for it.
  func testEveryHelpEndsWithItsExitCodes() {
    for command in PomodoroCLI.commands {
      XCTAssertTrue(command.help.hasPrefix("Usage: pomodoro \(command.name)"), command.name)
      let codes = command.help.components(separatedBy: "Exit codes: ").last!.replacingOccurrences(of: "\n", with: " ")
      for (code, meaning) in command.exitCodes {
        XCTAssertTrue(codes.contains("\(code) \(meaning)"), "\(command.name): \(code) \(meaning) in \(codes)")
      }
      XCTAssertTrue(PomodoroCLI.overview.contains("  \(command.name) "), command.name)
    }
    XCTAssertEqual(PomodoroCLI.command("ctl")!.exitCodes.first { $0.code == 75 }?.meaning, "no reply within 5s")
    XCTAssertEqual(PomodoroCLI.command("run")!.exitCodes.first { $0.code == 78 }?.meaning, "config error")
  }
}
