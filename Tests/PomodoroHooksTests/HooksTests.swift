import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroHooks
import PomodoroSystem
import XCTest

/// The hooks' pure parts: which watch lines make events and what a hook is given, the bounded
/// queue, the headers file. Tests/hooks/run.sh runs the process itself, its commands and webhooks.
final class HooksTests: XCTestCase {
  let line: [String: JSONValue] = [
    "event": .string("state"), "changes": .list([.string("completed"), .string("ringing"), .string("nonsense")]),
    "phase": .string("ringing"), "mode": .string("focus"), "remaining_ms": .int(0), "label": .string("Report \"Q4\""),
    "room": .string("team"),
  ]

  func testAWatchLinesChangesAreItsEventsInOrderAndAReplyMakesNone() {
    let events = HookEvent.of(line)
    XCTAssertEqual(events.map(\.name), ["completed", "ringing"], "a name that is no StateChange is not run")
    XCTAssertEqual(events[0].state.map(\.0), ["phase", "mode", "remaining_ms", "label", "room"], "StateFields' order")
    var reply = line
    reply["event"] = nil
    XCTAssertEqual(HookEvent.of(reply), [], "a reply (the link's status) is no change")
    reply = line
    reply["changes"] = .list([])
    XCTAssertEqual(HookEvent.of(reply), [], "a state said anew is no change")
  }

  func testAHookIsGivenJSONThatParsesAndItsVariables() throws {
    let event = HookEvent.of(line)[0]
    let parsed = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
    XCTAssertEqual(parsed["event"] as? String, "completed")
    XCTAssertEqual((parsed["state"] as? [String: Any])?["label"] as? String, "Report \"Q4\"")
    let variables = Dictionary(uniqueKeysWithValues: event.environment)
    XCTAssertEqual(variables["POMODORO_EVENT"], "completed")
    XCTAssertEqual(variables["POMODORO_PHASE"], "ringing")
    XCTAssertEqual(variables["POMODORO_REMAINING_MS"], "0")
    XCTAssertEqual(variables["POMODORO_LABEL"], "Report \"Q4\"")
    XCTAssertEqual(variables["POMODORO_ROOM"], "team")
    XCTAssertEqual(variables["POMODORO_ENDS_AT"], "", "no end without a synchronised clock")
  }

  func testTheQueueDropsTheOldestAndSaysHowManyOnce() throws {
    var queue = HookQueue<Int>(limit: 3)
    for i in 1...5 { queue.append(i) }
    XCTAssertEqual(queue.count, 3)
    let first = try XCTUnwrap(queue.next())
    XCTAssertEqual(first.job, 3)
    XCTAssertEqual(first.dropped, 2)
    XCTAssertEqual(queue.next()?.dropped, 0, "said once")
    XCTAssertEqual(queue.next()?.job, 5)
    XCTAssertNil(queue.next())
    for i in 0..<10_000 { queue.append(i) }
    XCTAssertEqual(queue.count, 3, "bounded whatever comes")
  }

  func testTheHeadersFileTakesNameValueLinesAndNamesABadOne() {
    XCTAssertEqual(
      try WebhookHeaders.parse("# a token\n\nAuthorization: Bearer x:y\n X-Desk :  office \n", file: "/h").get(),
      ["Authorization: Bearer x:y", "X-Desk: office"])
    for bad in ["Authorization Bearer x", ": no name", "Bad Name: x", "X: a\u{7F}b"] {
      switch WebhookHeaders.parse("X-Ok: 1\n" + bad, file: "/etc/pomodoro/webhook.headers") {
      case .success(let lines): XCTFail("\(bad) taken: \(lines)")
      case .failure(let error):
        XCTAssertEqual(error.file, "/etc/pomodoro/webhook.headers")
        XCTAssertEqual(error.line, 2, bad)
        XCTAssertTrue(error.message.contains("write `Name: value`"), error.message)
      }
    }
    let many = (0...WebhookHeaders.mostLines).map { "X-\($0): v" }.joined(separator: "\n")
    if case .success = WebhookHeaders.parse(many, file: "/h") {
      XCTFail("more than \(WebhookHeaders.mostLines) lines taken")
    }
  }

  func testTheHooksKeysAreTheHooksAndAConfigWithoutOneIsRefused() {
    let keys = ConfigKey.all.filter { $0.applies == .hooks }.map(\.name)
    XCTAssertEqual(keys, ["hook_command", "webhook_url", "webhook_headers", "hook_timeout"])
    switch HooksService.setup(DeviceConfig(), environment: []) {
    case .success: XCTFail("a config with no hook ran")
    case .failure(let error): XCTAssertTrue(error.message.contains("neither hook_command nor webhook_url is set"))
    }
    var config = DeviceConfig()
    config.webhookURL = "https://ntfy.sh/desk"
    let setup = try? HooksService.setup(config, environment: [("PATH", "/bin"), ("POMODORO_EVENT", "forged")]).get()
    XCTAssertEqual(setup?.headers, ["Content-Type: application/json; charset=utf-8"])
    XCTAssertEqual(setup?.environment.map(\.0), ["PATH"], "the process's own POMODORO_ variables are not passed on")
    var problems: [String] = []
    for (key, value) in [
      ("hook_command", "hooks/x"), ("webhook_url", "ftp://x"), ("webhook_url", "https://"),
      ("hook_timeout", "0s"),
    ] {
      var probe = DeviceConfig()
      if let problem = ConfigParser.read(key, value, into: &probe) { problems.append(problem) }
    }
    XCTAssertEqual(problems.count, 4, "\(problems)")
  }
}
