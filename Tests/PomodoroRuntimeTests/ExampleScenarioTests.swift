import Foundation
import PomodoroCore
import XCTest

@testable import PomodoroRuntime
@testable import PomodoroSimulator

/// Runs every example in Tests/scenarios. Each carries its own checks as comments:
/// `# expect key=value ...` passes when some transcript line has all those values.
final class ExampleScenarioTests: XCTestCase {
  func testEveryExampleScenarioMeetsItsExpectations() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../scenarios")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pomo") }
      .sorted()
    XCTAssertGreaterThanOrEqual(files.count, 6)
    for file in files {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      let scenario = try Scenario(text)
      let expectations = text.split(separator: "\n").filter { $0.hasPrefix("# expect ") }
      XCTAssertFalse(expectations.isEmpty, "\(file) checks something")
      for line in expectations {
        let pairs = line.dropFirst("# expect ".count).split(separator: " ").map {
          $0.split(separator: "=", maxSplits: 1)
        }
        let matched = scenario.objects.contains { object in
          pairs.allSatisfy { pair in
            guard pair.count == 2, let value = object[String(pair[0])] else { return false }
            switch value {
            case .string(let s): return s == pair[1]
            case .int(let n): return String(n) == pair[1]
            case .bool(let b): return String(b) == pair[1]
            case .null: return pair[1] == "null"
            }
          }
        }
        XCTAssertTrue(matched, "\(file): no transcript line matches `\(line)`")
      }
    }
  }
}
