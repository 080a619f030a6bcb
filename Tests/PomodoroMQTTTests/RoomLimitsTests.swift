import PomodoroControl
import PomodoroCore
import PomodoroSystem
import XCTest

@testable import PomodoroMQTT

/// Every room message fits (docs/room.md, "Limits"): built from the limits themselves, the longest
/// member message fits `RoomMember.limit`, the longest session fits `RoomSessionMessage.limit`,
/// and the longest `room_status` (the most other members, each at the longest id and the label
/// that escapes longest) is a line the device's control socket takes and reads back whole.
final class RoomLimitsTests: XCTestCase {
  /// The label whose JSON is longest: `SessionLabel.maxCharacters` characters, each a quote (one
  /// byte that escapes to two) with a combining mark of three bytes, `SessionLabel.maxBytes` bytes.
  var longestLabel: SessionLabel {
    let text = String(repeating: "\"\u{20DD}", count: SessionLabel.maxCharacters)
    XCTAssertEqual(text.utf8.count, SessionLabel.maxBytes)
    return try! XCTUnwrap(SessionLabel.parse(text).get())
  }
  let longestDesk = String(repeating: "d", count: 40)
  /// The longest mode and phase names.
  let longestMode = Mode.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!
  let longestPhase = Phase.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!

  func testTheLongestMemberMessageFits() throws {
    let m = RoomMember(desk: longestDesk, phase: longestPhase, mode: longestMode, label: longestLabel, following: false)
    XCTAssertLessThanOrEqual(m.json.utf8.count, RoomMember.limit, m.json)
    XCTAssertEqual(try RoomMember.parse(m.json, desk: longestDesk).get(), m)
  }

  func testTheLongestSessionFits() throws {
    let longest = RoomSession.lengths.upperBound
    let modes = Mode.allCases.filter(RoomSession.shares)
    let m = RoomSessionMessage(
      RoomSession(
        revision: RoomSession.revisions - 1, origin: longestDesk,
        plan: (0..<RoomSession.mostPhases).map { .init(mode: modes[$0 % modes.count], length: longest) },
        planRevision: RoomSession.revisions - 1, phase: RoomSession.mostPhases - 1, state: .running,
        elapsed: longest),
      expiry: RoomSessionMessage.maxExpiry, sentMs: 7_258_118_400_000, synced: false)
    XCTAssertLessThanOrEqual(m.json.utf8.count, RoomSessionMessage.limit, m.json)
    XCTAssertEqual(try RoomSessionMessage.parse(m.json, by: longestDesk).get(), m)
    let line = ControlCommand.roomSession(m, age: seconds(RoomSessionMessage.maxExpiry), at: nil).requestLine
    XCTAssertLessThanOrEqual(line.utf8.count, ControlProtocol.maxLine)
  }

  func testTheLongestRoomStatusIsALineTheDeviceTakes() throws {
    let others = (0..<RoomRoster.most).map { i in
      RoomMember(
        desk: String(format: "%02d", i) + longestDesk.dropFirst(2), phase: longestPhase, mode: longestMode,
        label: longestLabel, following: false)
    }
    let view = RoomView(desk: longestDesk, broker: true, clockTrusted: false, others: others)
    XCTAssertEqual(view.others.count, RoomView.mostOthers)
    let line = ControlCommand.roomStatus(view).requestLine
    XCTAssertGreaterThan(line.utf8.count, 16 * 1024, "over the socket's old line: the case that hid desks")
    XCTAssertLessThanOrEqual(line.utf8.count, ControlProtocol.maxLine)
    XCTAssertEqual(ControlCommand.parse(json: line), .success(.roomStatus(view)), "read back whole")
  }
}
