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
  /// The label whose JSON is longest, of those that escape most: quotes with a combining mark
  /// (a byte that escapes to two, then three bytes), invisible three-byte characters (`\u200c`:
  /// six), invisible four-byte ones (tags, U+E0020: two escapes, twelve), each as many as the
  /// label's limits allow.
  var longestLabel: SessionLabel {
    let candidates = [
      String(repeating: "\"\u{20DD}", count: SessionLabel.maxCharacters),
      "a" + String(repeating: "\u{200C}", count: (SessionLabel.maxBytes - 1) / 3),
      String(repeating: "\u{E0020}", count: SessionLabel.maxBytes / 4),
    ]
    let labels = candidates.compactMap { try? SessionLabel.parse($0).get() }
    XCTAssertEqual(labels.count, candidates.count, "each candidate is a label")
    let longest = labels.max { FlatJSON.quote($0.text).utf8.count < FlatJSON.quote($1.text).utf8.count }!
    XCTAssertEqual(FlatJSON.quote(longest.text).utf8.count, 2 + 3 * SessionLabel.maxBytes, "three times its bytes")
    return longest
  }
  let longestDesk = String(repeating: "d", count: 40)
  /// The longest mode and phase names.
  let longestMode = Mode.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!
  let longestPhase = Phase.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!

  func testTheLongestMemberMessageFits() throws {
    let m = RoomMember(desk: longestDesk, phase: longestPhase, mode: longestMode, label: longestLabel, following: false)
    XCTAssertLessThanOrEqual(m.json.utf8.count, RoomMember.limit, m.json)
    print("the longest member message: \(m.json.utf8.count) bytes of \(RoomMember.limit)")
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
    XCTAssertGreaterThan(line.utf8.count, 32 * 1024, "over the socket's line before escapes: the case that hid desks")
    XCTAssertLessThanOrEqual(line.utf8.count, ControlProtocol.maxLine)
    print("the longest room_status: \(line.utf8.count) bytes of \(ControlProtocol.maxLine)")
    XCTAssertEqual(ControlCommand.parse(json: line), .success(.roomStatus(view)), "read back whole")
  }

  /// The device's state with those 63 others, its own label at the longest too, is a line the
  /// bridge takes from the device.
  func testTheDevicesStateWithTheLongestRoomIsALineTheBridgeTakes() throws {
    let t0 = Instant(nanoseconds: seconds(100))
    var s = Engine.step(EngineState(now: t0), .setLabel(longestLabel), now: t0).0
    s = Engine.step(s, .setRoom(RoomIdentity(name: longestDesk, desk: longestDesk)), now: t0).0
    let others = (0..<RoomRoster.most).map { i in
      RoomMember(
        desk: String(format: "%02d", i) + longestDesk.dropFirst(2), phase: longestPhase, mode: longestMode,
        label: longestLabel, following: false)
    }
    s =
      Engine.step(s, .roomView(RoomView(desk: longestDesk, broker: true, clockTrusted: false, others: others)), now: t0)
      .0
    let line = FlatJSON.encode([("ok", .bool(true))] + StateFields.full(s, at: t0, wall: nil))
    XCTAssertEqual(FlatJSON.decode(line)?["room_members"], .int(64))
    print("the longest state line: \(line.utf8.count) bytes of \(DeviceLink.maxLine)")
    XCTAssertLessThanOrEqual(line.utf8.count, DeviceLink.maxLine)
  }
}
