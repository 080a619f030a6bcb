import PomodoroCore
import PomodoroMock
import PomodoroSystem
import XCTest

@testable import PomodoroWeb

/// Avahi as a test drives it: what the announcer asked for, and the events it is told.
final class ScriptedMDNS: MDNSService {
  var startFailure: String?
  var publishFailure: String?
  /// Names another service of this host has.
  var taken: Set<String> = []
  var restartFailure: String?
  var events: [MDNSEvent] = []
  var calls: [String] = []
  var served = 0

  func start() -> String? {
    calls.append("start")
    return startFailure
  }
  func stop() { calls.append("stop") }
  func restart() -> String? {
    calls.append("restart")
    return restartFailure
  }
  var readDescriptors: [Int32] { [42] }
  var writeDescriptors: [Int32] { [] }
  var deadline: Instant? { Instant(nanoseconds: 7) }
  func serve(_ wake: Wake) { served += 1 }
  func nextEvent() -> MDNSEvent? { events.isEmpty ? nil : events.removeFirst() }
  func publish(name: String, type: String, port: Int, txt: [String]) -> MDNSPublish {
    calls.append("publish \(name) \(type) \(port) \(txt.joined(separator: ","))")
    if taken.contains(name) { return .nameTaken }
    return publishFailure.map { .failed($0) } ?? .added
  }
  func withdraw() { calls.append("withdraw") }
  func alternative(_ name: String) -> String {
    guard let hash = name.lastIndex(of: "#"), let n = Int(name[name.index(after: hash)...]) else { return name + " #2" }
    return String(name[..<hash]) + "#\(n + 1)"
  }
}

/// The page announced over mDNS: the name, the TXT, Avahi's states (a double: no avahi-daemon
/// needed), a collision, a daemon that restarts, Avahi absent or failing (one line, serving on).
final class AnnouncerTests: XCTestCase {
  var lines: [(Log.Level, String)] = []
  var mdns = ScriptedMDNS()
  let clock = VirtualClock(start: Instant(nanoseconds: 1_000_000_000))

  func announcer(host: String = "desk", port: Int = 8080) -> Announcer {
    Announcer(
      hostName: host, port: port, service: mdns, clock: clock, log: Log(sink: { self.lines.append(($0, $1)) }))
  }

  /// The warnings said so far that the page is not announced.
  var warnings: [String] {
    lines.filter { $0.0 == .warning && $0.1.hasPrefix("the page is not announced") }.map(\.1)
  }

  /// Moves the clock to the announcer's next try and lets the loop wake for it.
  func waitForRetry(_ a: Announcer, file: StaticString = #filePath, line: UInt = #line) {
    guard let at = a.retryAt else { return XCTFail("no try is due", file: file, line: line) }
    XCTAssertEqual(a.deadline.map { $0 <= at }, true, "the loop wakes for it", file: file, line: line)
    clock.advance(to: at)
    a.handle(Wake())
  }

  func turn(_ a: Announcer, _ events: MDNSEvent...) { turn(a, events) }

  func turn(_ a: Announcer, _ events: [MDNSEvent]) {
    mdns.events += events
    a.handle(Wake())
  }

  func testTheNameIsCutTo63BytesOfUTF8WithoutSplittingACharacter() {
    XCTAssertEqual(Announcer.serviceName(hostName: "desk"), "Pomodoro on desk")
    XCTAssertEqual(Announcer.serviceName(hostName: ""), "Pomodoro")
    let long = Announcer.serviceName(hostName: String(repeating: "a", count: 100))
    XCTAssertEqual(long.utf8.count, 63)
    // "é" is 2 bytes: 12 + 2 x 25 = 62, and the 26th would make 64.
    let accented = Announcer.serviceName(hostName: String(repeating: "é", count: 40))
    XCTAssertEqual(accented, "Pomodoro on " + String(repeating: "é", count: 25))
    XCTAssertEqual(accented.utf8.count, 62)
    // A character of several scalars (a flag: 8 bytes) is kept whole or left out.
    let flags = Announcer.serviceName(hostName: String(repeating: "🇫🇷", count: 10))
    XCTAssertEqual(flags, "Pomodoro on " + String(repeating: "🇫🇷", count: 6))
    // An alternative keeps its " #2", the name before it cut to make room.
    let alt = Announcer.fitting(long + " #2")
    XCTAssertEqual(alt.utf8.count, 63)
    XCTAssertTrue(alt.hasSuffix("a #2"), alt)
    XCTAssertEqual(Announcer.fitting("Pomodoro on desk #2"), "Pomodoro on desk #2")
  }

  func testAnnouncedWithItsTXTOnThePortAndWithdrawnWhenItStops() {
    let a = announcer(port: 8081)
    XCTAssertTrue(a.start())
    XCTAssertEqual(a.readDescriptors, [42], "Avahi's descriptors are the loop's")
    XCTAssertEqual(a.deadline, Instant(nanoseconds: 7))
    turn(a, .connecting, .connecting)
    XCTAssertEqual(lines.filter { $0.1.hasPrefix("waiting for avahi-daemon") }.count, 1, "said once")
    turn(a, .running)
    XCTAssertEqual(mdns.calls, ["start", "publish Pomodoro on desk _http._tcp 8081 path=/"])
    XCTAssertFalse(a.announced)
    turn(a, .established)
    XCTAssertTrue(a.announced)
    XCTAssertTrue(
      lines.contains { $0 == (.notice, "announced as 'Pomodoro on desk' (_http._tcp, port 8081, path=/) over mDNS") },
      "\(lines)")
    a.stop()
    XCTAssertEqual(mdns.calls.last, "stop")
    XCTAssertTrue(lines.contains { $0.1 == "withdrew 'Pomodoro on desk' from mDNS" })
    XCTAssertEqual(a.readDescriptors, [], "nothing more is watched once stopped")
  }

  func testANameTakenOnTheLANGetsAvahisAlternative() {
    let a = announcer()
    a.start()
    turn(a, .running, .nameCollision, .established)
    XCTAssertEqual(
      mdns.calls,
      [
        "start", "publish Pomodoro on desk _http._tcp 8080 path=/",
        "publish Pomodoro on desk #2 _http._tcp 8080 path=/",
      ])
    XCTAssertEqual(a.name, "Pomodoro on desk #2")
    XCTAssertTrue(a.announced)
  }

  /// Another service of this host with the name (a second server): the next alternative at once;
  /// twenty taken in a row, it says so once, waits (back-off) and starts again from its own name:
  /// never given up while the server runs.
  func testANameTakenOnThisHostGetsTheNextAlternativeAndTwentyBackOff() {
    mdns.taken = ["Pomodoro on desk", "Pomodoro on desk #2"]
    let a = announcer()
    a.start()
    turn(a, .running, .established)
    XCTAssertEqual(a.name, "Pomodoro on desk #3")
    XCTAssertTrue(a.announced)
    XCTAssertEqual(a.collisions, 0, "a name announced starts the count afresh")

    lines = []
    mdns = ScriptedMDNS()
    mdns.taken = Set(["Pomodoro on desk"] + (2...30).map { "Pomodoro on desk #\($0)" })
    let b = announcer()
    b.start()
    turn(b, .running)
    XCTAssertFalse(b.off)
    XCTAssertFalse(b.announced)
    XCTAssertEqual(mdns.calls.filter { $0.hasPrefix("publish") }.count, 21)
    XCTAssertEqual(warnings.count, 1)
    XCTAssertTrue(warnings[0].contains("20 names were taken, the last 'Pomodoro on desk #21'"), "\(lines)")
    XCTAssertTrue(warnings[0].hasSuffix("trying again with back-off (up to 5m), said once"), warnings[0])
    XCTAssertEqual(b.retryAt, clock.now + seconds(1))
    // Still all taken at the next try: twenty more, a longer wait, nothing more said.
    waitForRetry(b)
    XCTAssertEqual(mdns.calls.filter { $0.hasPrefix("publish") }.count, 42)
    XCTAssertEqual(b.retryAt, clock.now + seconds(2))
    XCTAssertEqual(warnings.count, 1, "said once")
    // The others gone: the next try from its own name is announced.
    mdns.taken = []
    waitForRetry(b)
    XCTAssertEqual(mdns.calls.last, "publish Pomodoro on desk _http._tcp 8080 path=/")
    turn(b, .established)
    XCTAssertTrue(b.announced)
    XCTAssertNil(b.retryAt)
  }

  /// Twenty collisions spread over the server's life, each after the name was announced: the
  /// count starts afresh at each announcement, so the announcement always comes back (it used
  /// to end for good at the twentieth).
  func testTwentyCollisionsSpreadOverTimeNeverEndTheAnnouncement() {
    let a = announcer()
    a.start()
    turn(a, .running, .established)
    for n in 1...25 {
      clock.advance(by: seconds(3600))
      turn(a, .nameCollision)
      XCTAssertEqual(a.collisions, 1, "collision \(n)")
      turn(a, .established)
      XCTAssertTrue(a.announced, "collision \(n)")
      XCTAssertEqual(a.collisions, 0, "collision \(n)")
    }
    XCTAssertFalse(a.off)
    XCTAssertEqual(warnings, [])
    XCTAssertEqual(mdns.calls.filter { $0.hasPrefix("publish") }.count, 26)
    XCTAssertEqual(a.name, "Pomodoro on desk #26")
  }

  func testTheHostRenamedOrTheDaemonRestartedGetsTheServiceAgain() {
    let a = announcer()
    a.start()
    turn(a, .running, .established, .hostChanging)
    XCTAssertFalse(a.announced)
    XCTAssertEqual(mdns.calls.last, "withdraw")
    turn(a, .running, .established)
    XCTAssertEqual(mdns.calls.filter { $0.hasPrefix("publish") }.count, 2)
    turn(a, .daemonGone)
    XCTAssertEqual(mdns.calls.last, "restart")
    XCTAssertFalse(a.announced)
    turn(a, .connecting, .running, .established)
    XCTAssertEqual(mdns.calls.filter { $0.hasPrefix("publish") }.count, 3)
    XCTAssertTrue(a.announced)
    XCTAssertFalse(a.off)
  }

  /// Avahi's library absent at the start: one warning line, nothing more tried, and the loop
  /// keeps serving the page.
  func testAvahiAbsentIsOneLineAndThePageServesOn() {
    mdns.startFailure = "avahi_client_new: Daemon not running"
    let a = announcer()
    XCTAssertFalse(a.start())
    XCTAssertTrue(a.off)
    XCTAssertEqual(a.readDescriptors, [])
    XCTAssertNil(a.deadline)
    a.handle(Wake())
    XCTAssertEqual(mdns.served, 0)
    a.stop()
    XCTAssertEqual(
      lines.map(\.1),
      [
        "the page is not announced over mDNS (cannot reach Avahi: avahi_client_new: Daemon not running); it serves on: "
          + "open http://<this host's name>.local:8080"
      ])
    XCTAssertEqual(lines.first?.0, .warning)
  }

  /// A group that fails (adding the service, or Avahi's group failing later), a client that
  /// fails, a new client that cannot be made: one warning, the service or a new client tried
  /// again after 1 s, 2 s, 4 s... (up to 5 minutes), said once, until it is announced again;
  /// never given up while the server runs.
  func testAFailedGroupOrClientIsTriedAgainWithBackOffSaidOnce() {
    for (setup, events, why, newClient) in [
      (
        { (m: ScriptedMDNS) in m.publishFailure = "Bad state" }, [MDNSEvent.running], "cannot add 'Pomodoro on desk'",
        false
      ),
      (
        { (_: ScriptedMDNS) in }, [.running, .established, .groupFailure("Not permitted")], "could not announce", false
      ),
      (
        { (_: ScriptedMDNS) in }, [.running, .established, .clientFailure("Access denied")],
        "Avahi failed: Access denied", true
      ),
      (
        { (m: ScriptedMDNS) in m.restartFailure = "No memory" }, [.running, .established, .daemonGone],
        "a new Avahi client failed", true
      ),
    ] {
      lines = []
      mdns = ScriptedMDNS()
      setup(mdns)
      let b = announcer()
      XCTAssertTrue(b.start())
      turn(b, events)
      XCTAssertFalse(b.off, why)
      XCTAssertFalse(b.announced, why)
      XCTAssertEqual(warnings.count, 1, "\(why): \(lines)")
      XCTAssertTrue(warnings.last?.contains(why) ?? false, "\(why): \(lines)")
      XCTAssertTrue(warnings.last?.hasSuffix("trying again with back-off (up to 5m), said once") ?? false, why)
      if newClient {
        XCTAssertEqual(mdns.calls.last, "stop", "\(why): the failed client freed")
        XCTAssertEqual(b.readDescriptors, [], "\(why): nothing of the old client watched")
      }
      // Failing again: the waits double and nothing more is said.
      var waits: [Nanoseconds] = []
      for _ in 0..<10 {
        waits.append((b.retryAt ?? clock.now) - clock.now)
        if newClient { mdns.startFailure = "Daemon not running" } else { mdns.publishFailure = "Bad state" }
        waitForRetry(b)
      }
      XCTAssertEqual(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300].map { seconds($0) }, why)
      XCTAssertEqual(warnings.count, 1, "\(why): said once")
      // It works again: announced, the back-off starts afresh.
      mdns.publishFailure = nil
      mdns.startFailure = nil
      let starts = mdns.calls.filter { $0 == "start" }.count
      waitForRetry(b)
      if newClient {
        XCTAssertEqual(mdns.calls.filter { $0 == "start" }.count, starts + 1, "\(why): a new client")
        turn(b, .connecting, .running)
      }
      XCTAssertEqual(mdns.calls.last, "publish Pomodoro on desk _http._tcp 8080 path=/", why)
      turn(b, .established)
      XCTAssertTrue(b.announced, why)
      XCTAssertNil(b.retryAt, why)
      XCTAssertTrue(lines.last?.1.hasPrefix("announced as 'Pomodoro on desk'") ?? false, "\(why): \(lines)")
      // A later failure is said again, from a 1 s wait.
      turn(b, .groupFailure("Not permitted"))
      XCTAssertEqual(warnings.count, 2, why)
      XCTAssertEqual(b.retryAt, clock.now + seconds(1), why)
    }
  }
}
