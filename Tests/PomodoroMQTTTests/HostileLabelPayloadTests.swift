import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroMQTT

/// Issue 46 item 1, MQTT: the state payload the bridge publishes (what Home Assistant's label
/// text entity reads with `value_json.label`), made from the device's state with each hostile
/// label, parsed by Python's json module: the label exactly, and the recent labels.
final class HostileLabelPayloadTests: XCTestCase {
  func testTheStatePayloadParsesForEveryHostileLabel() throws {
    try RealParsers.require()
    let labels = try HostileLabels.checked()
    let f = try ControlFixture()
    let fd = try f.connect()
    defer { close(fd) }
    var checks: [RealParsers.Check] = []
    for label in labels {
      let set = f.reply(fd, ControlCommand.label(label).requestLine)
      XCTAssertTrue(set.ok, set.error ?? "")
      let payload = BridgeTopics.statePayload(set.fields)
      checks.append(.init("json:label", payload, label.text))
      checks.append(.init("json:recent_labels.0", payload, label.text))
    }
    XCTAssertEqual(try RealParsers.json(checks), "ok \(checks.count)")
  }
}
