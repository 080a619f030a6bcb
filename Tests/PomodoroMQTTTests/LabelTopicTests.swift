import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroMQTT

/// Issue 35 over MQTT: the label's text entity, the today sensor with the goal, the interruption
/// buttons; the label commands as Home Assistant renders them; and 10,000 fuzzed labels through
/// the command topic's intake to a device whose timer runs on.
final class LabelTopicTests: XCTestCase {
  let clock = HandClock()
  let topics = BridgeTopics(topicPrefix: "pomodoro", discoveryPrefix: "homeassistant", deviceId: "desk-1")

  func config(_ id: String) throws -> [String: Any] {
    let payload = try XCTUnwrap(
      topics.discovery(fields: nil).first { $0.payload.contains("\"default_entity_id\":\"\(id)\"") }?.payload, id)
    return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
  }

  func intake(_ said: @escaping (String) -> Void = { _ in }) -> CommandIntake {
    CommandIntake(
      topic: topics.command, host: "broker", log: Log(sink: { said($1) }),
      limiter: LogLimiter(log: Log(sink: { said($1) })))
  }

  func take(_ intake: inout CommandIntake, _ payload: String) -> ControlCommand? {
    clock.advance(seconds(1))  // under the rate: each is judged on what it says
    return intake.take(MQTTMessage(topic: topics.command, payload: Array(payload.utf8)), at: clock.now)?.0
  }

  func testTheLabelTodayAndInterruptEntitiesAreAnnounced() throws {
    let text = try config("text.pomodoro_desk_1_label")
    XCTAssertEqual(text["state_topic"] as? String, topics.state)
    XCTAssertEqual(text["command_topic"] as? String, topics.command)
    XCTAssertEqual(text["max"] as? Int, SessionLabel.maxCharacters)
    XCTAssertEqual(text["min"] as? Int, 0)
    XCTAssertEqual(text["value_template"] as? String, "{{ value_json.label | default('') }}")
    XCTAssertEqual(text["command_template"] as? String, "{{ {'cmd': 'label', 'text': value} | tojson }}")
    let today = try config("sensor.pomodoro_desk_1_today")
    XCTAssertEqual(today["state_topic"] as? String, topics.state)
    XCTAssertEqual(today["json_attributes_topic"] as? String, topics.state, "the goal as an attribute")
    XCTAssertTrue((today["json_attributes_template"] as? String)?.contains("'goal': value_json.goal") ?? false)
    XCTAssertNil(today["command_topic"])
    var intake = intake()
    for (id, kind) in [("interrupt", Interruption.internal), ("interrupt_external", .external)] {
      let button = try config("button.pomodoro_desk_1_\(id)")
      let press = try XCTUnwrap(button["payload_press"] as? String)
      XCTAssertEqual(take(&intake, press), .interrupt(kind), id)
    }
  }

  /// What Home Assistant's command template sends (Jinja's tojson: `<`, `>`, `&` and `'` as
  /// \u escapes; Python's json.dumps: characters past the first plane as surrogate pairs) is
  /// taken as typed, spaces and all; the empty text clears.
  func testHomeAssistantsRenderedLabelsAreTakenAsTyped() throws {
    var intake = intake()
    let cases: [(String, String?)] = [
      (
        #"{"cmd": "label", "text": "Report \"Q4\"  draft \u003cb\u003e \u0026 it\u0027s"}"#,
        #"Report "Q4"  draft <b> & it's"#
      ),
      (#"{"cmd": "label", "text": "\ud83d\udc4d\ud83c\udffd caf\u00e9"}"#, "👍🏽 café"),
      (#"{"cmd": "label", "text": "👩‍👩‍👧 日本"}"#, "👩‍👩‍👧 日本"),
      (#"{"cmd": "label", "text": ""}"#, nil),
      ("label Write the report", "Write the report"),
      ("label", nil),
    ]
    for (payload, want) in cases {
      let label = want.map { try? SessionLabel.parse($0).get() } ?? nil
      XCTAssertEqual(take(&intake, payload), .label(label), payload)
    }
    var said: [String] = []
    var judged = self.intake { said.append($0) }
    XCTAssertNil(take(&judged, #"{"cmd": "label", "text": "\ud83d"}"#), "a lone surrogate is no text")
    XCTAssertNil(take(&judged, "label " + String(repeating: "x", count: 41)))
    XCTAssertTrue(
      said.contains {
        $0.contains(
          "(label: a label is at most 40 characters and 160 bytes of UTF-8, got 41 characters and 41 bytes; shorten it)"
        )
      }, "\(said)")
  }

  /// 10,000 fuzzed labels on the command topic, as JSON and as words (and some cut short), while a
  /// focus runs: the intake never traps; a JSON label is taken exactly when the label rules take
  /// the text, as they make it; every label taken reaches the device, which takes it; and the
  /// timer runs on, untouched, with the last label taken.
  func testFuzzedLabelsOnTheCommandTopic() throws {
    let f = try ControlFixture()
    let fd = try f.connect()
    defer { close(fd) }
    XCTAssertTrue(f.reply(fd, ControlCommand.start.requestLine).ok)
    let running = f.h.device.state
    var intake = intake()
    var fuzz = LabelFuzz(seed: 3535)
    var last: SessionLabel?? = .none
    var taken = 0
    var dropped = 0
    for i in 0..<10_000 {
      let text = fuzz.next()
      let json = FlatJSON.encode([("cmd", .string("label")), ("text", .string(text))])
      let payload: String
      switch i % 10 {
      case 0: payload = String(json.prefix(Int(fuzz.random.next() % UInt64(json.count + 1))))
      case 1...5: payload = json
      default: payload = "label " + text
      }
      guard let command = take(&intake, payload) else {
        dropped += 1
        if (1...5).contains(i % 10), case .success = SessionLabel.parse(text) {
          XCTFail("#\(i) \(payload.debugDescription): a label the rules take was dropped")
        }
        continue
      }
      guard case .label(let label) = command else {
        XCTFail("#\(i) \(payload.debugDescription) made \(command)")
        continue
      }
      if (1...5).contains(i % 10) {
        switch SessionLabel.parse(text) {
        case .success(let want): XCTAssertEqual(label, want, "#\(i) \(text.debugDescription)")
        case .failure(let refusal): XCTFail("#\(i) \(text.debugDescription) taken, the rules say: \(refusal)")
        }
      }
      let reply = f.reply(fd, command.requestLine)
      XCTAssertTrue(reply.ok, "#\(i) \(command.requestLine): \(reply.error ?? "")")
      XCTAssertEqual(reply.fields["label"]?.string, label?.text, "#\(i)")
      last = .some(label)
      taken += 1
    }
    XCTAssertGreaterThan(taken, 2500)
    XCTAssertGreaterThan(dropped, 2000)
    let now = f.h.device.state
    XCTAssertEqual(now.label, last ?? nil, "the last label taken")
    XCTAssertEqual(now.phase, .running)
    XCTAssertEqual(now.duration, running.duration)
    XCTAssertEqual(now.remaining(at: f.h.clock.now), running.remaining(at: f.h.clock.now), "the timer untouched")
  }
}
