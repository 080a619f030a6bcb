import PomodoroControl
import PomodoroCore
import PomodoroMock
import PomodoroSystem
import XCTest

@testable import PomodoroMQTT

/// Room topics are input from anyone on the broker: 12,000 malformed, oversized, out-of-range and
/// hostile session and member messages through the scripted client reach neither the device nor
/// the roster, never trap, and are said a few times a minute; the valid ones among them do reach
/// the device.
extension RoomBridgeTests {
  /// SplitMix64 (PomodoroMock's): the same messages on every run.
  typealias Random = SplitMix64

  /// A valid session's fields, one of them replaced by a value it may not have (or removed).
  func badSession(_ r: inout Random, rev: Int64) -> String {
    var fields = session(rev: rev, by: "desk-b").fields
    let bad: [String: [JSONValue?]] = [
      "v": [.int(0), .int(1), .int(3), .string("2"), nil],
      "rev": [.int(-1), .int(1 << 32), .int(Int64.max), .int(Int64.min), .string("7"), .null, nil],
      "modes": [
        .list([]), .list(Array(repeating: .string("focus"), count: 9)), .list([.string("flow"), .string("short")]),
        .list([.string("focus")]), .list([.int(1), .int(2)]), .string("focus"), nil,
      ],
      "lengths_ms": [
        .list([.int(4999), .int(300_000)]), .list([.int(1_500_000), .int(86_400_000)]), .list([.int(1_500_000)]),
        .list([.int(1_500_000), .int(300_000), .int(300_000)]), .list([.int(-1), .int(300_000)]),
        .list([.string("1500000"), .int(300_000)]), .list([.int(1500), .int(300)]), nil,
      ],
      "plan_rev": [.int(-1), .int(1 << 32), .string("1"), nil],
      "phase": [.int(2), .int(-1), .int(Int64.max), .string("0"), nil],
      "state": [.string("stopped"), .string(""), .string("RUNNING"), .int(0), nil],
      "elapsed_ms": [.int(-1), .int(1_500_001), .int(Int64.min), .string("0"), nil],
      "expiry": [.int(0), .int(-5), .int(86_401), .int(10_000_000), .bool(true), nil],
      "sent_ms": [.int(-1), .int(7_258_118_400_001), .int(Int64.max), .string("now"), nil],
      "synced": [.int(1), .string("true"), .null, nil],
    ]
    let i = r.below(fields.count)
    let replacement = r.pick(bad[fields[i].0]!)
    if let replacement { fields[i].1 = replacement } else { fields.remove(at: i) }
    return FlatJSON.encode(fields)
  }

  func junk(_ r: inout Random) -> [UInt8] {
    switch r.below(6) {
    case 0: return (0..<r.below(300)).map { _ in UInt8(truncatingIfNeeded: r.next()) }
    case 1:
      let valid = Array(session(rev: 9, by: "desk-b").json.utf8)
      return Array(valid.prefix(r.below(valid.count)))
    case 2: return Array("[1,2,3]".utf8)
    case 3: return Array("{\"v\":2,\"rev\":{\"x\":1}}".utf8)
    case 4: return Array("{\"v\":1,\"v\":2,\"rev\":3".utf8)
    default: return Array(String(repeating: "{\"a\":", count: r.below(200)).utf8)
    }
  }

  func badMember(_ r: inout Random, desk: String) -> String {
    let good: [(String, JSONValue)] = [
      ("v", .int(1)), ("desk", .string(desk)), ("phase", .string("running")), ("mode", .string("focus")),
      ("label", .string("Write")), ("following", .bool(true)),
    ]
    var fields = good
    let bad: [String: [JSONValue?]] = [
      "v": [.int(2), nil], "desk": [.string("someone-else"), .int(3), nil],
      "phase": [.string("sleeping"), .int(1), nil], "mode": [.string("nap"), .null, nil],
      "label": [
        .string(String(repeating: "L", count: 41)), .string("a\u{7}b"), .int(5),
        .string(String(repeating: "e\u{301}\u{301}", count: 40)),
      ],
      "following": [.string("yes"), nil],
    ]
    let i = r.below(fields.count)
    let replacement = r.pick(bad[fields[i].0]!)
    if let replacement { fields[i].1 = replacement } else { fields.remove(at: i) }
    return FlatJSON.encode(fields)
  }

  func testTwelveThousandHostileRoomMessagesReachNeitherTheDeviceNorTheRoster() {
    let b = joined()
    var r = Random(seed: 36)
    var validRevs: [Int64] = []
    var rev: Int64 = 10
    var hostile = 0
    for round in 0..<1200 {
      var batch: [MQTTMessage] = []
      for k in 0..<10 {
        let topic = r.below(10) == 0 ? "pomodoro/room/team/session" : "pomodoro/room/team/sessions/desk-b"
        switch r.below(5) {
        case 0:
          batch.append(
            MQTTMessage(
              topic: topic, payload: junk(&r), retained: r.below(2) == 0,
              expiryLeft: r.below(3) == 0 ? nil : r.below(100_000)))
        case 1:
          // Oversized: the client keeps limit + 1 bytes and the whole length.
          let big = Array(String(repeating: " ", count: RoomSessionMessage.limit + 1).utf8)
          batch.append(MQTTMessage(topic: topic, payload: big, length: 1 + r.below(1 << 20) + RoomSessionMessage.limit))
        case 2:
          let desk = r.pick(["d1", "d2", "x/y", "", String(repeating: "m", count: 70)])
          let payload: [UInt8] =
            r.below(4) == 0
            ? Array(repeating: 0x7B, count: RoomMember.limit + 1) : Array(badMember(&r, desk: desk).utf8)
          batch.append(
            MQTTMessage(
              topic: "pomodoro/room/team/members/\(desk)", payload: payload, length: payload.count, retained: true,
              expiryLeft: Int(wholeSeconds(RoomRoster.life))))
        default:
          batch.append(
            MQTTMessage(
              topic: topic, payload: Array(badSession(&r, rev: rev + Int64(k)).utf8), expiryLeft: r.below(2000)))
        }
        hostile += 1
      }
      // Now and then a valid one, which must get through.
      if round % 100 == 99 {
        rev += 1
        validRevs.append(rev)
        batch.append(sessionMessage(session(rev: rev, by: "desk-b")))
      }
      deliver(b, batch)
      clock.advance(ms(10))
    }
    XCTAssertGreaterThanOrEqual(hostile, 12_000)
    XCTAssertEqual(sessions.map(\.message.session.revision), validRevs, "only the valid ones reach the device")
    XCTAssertTrue(b.members.isEmpty, "no hostile member kept: \(b.members.map(\.desk))")
    XCTAssertTrue(statuses.allSatisfy { $0.others.isEmpty })
    // Said a few times a minute a kind, then counted: 12 s of flood, a handful of lines.
    XCTAssertLessThan(lines.count, 60, lines.joined(separator: "\n"))
    XCTAssertTrue(lines.contains { $0.contains("ignored a session message on pomodoro/room/team/sessions/desk-b") })
    XCTAssertTrue(
      lines.contains {
        $0.contains("ignored a session message on pomodoro/room/team/session: a desk of an earlier build")
      })
    XCTAssertTrue(lines.contains { $0.contains("ignored a member message on pomodoro/room/team/members/") })
  }
}

extension SplitMix64 {
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
  mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
