import PomodoroCore
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

  func announcer(host: String = "desk", port: Int = 8080) -> Announcer {
    Announcer(hostName: host, port: port, service: mdns, log: Log(sink: { self.lines.append(($0, $1)) }))
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
  /// twenty taken, it gives up with one line.
  func testANameTakenOnThisHostGetsTheNextAlternativeAndTwentyGiveUp() {
    mdns.taken = ["Pomodoro on desk", "Pomodoro on desk #2"]
    let a = announcer()
    a.start()
    turn(a, .running, .established)
    XCTAssertEqual(a.name, "Pomodoro on desk #3")
    XCTAssertTrue(a.announced)

    lines = []
    mdns = ScriptedMDNS()
    mdns.taken = Set(["Pomodoro on desk"] + (2...30).map { "Pomodoro on desk #\($0)" })
    let b = announcer()
    b.start()
    turn(b, .running)
    XCTAssertTrue(b.off)
    XCTAssertEqual(mdns.calls.filter { $0.hasPrefix("publish") }.count, 21)
    XCTAssertEqual(lines.filter { $0.0 == .warning }.map(\.1).count, 1)
    XCTAssertTrue(lines.contains { $0.1.contains("20 names were taken, the last 'Pomodoro on desk #21'") }, "\(lines)")
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

  /// Avahi absent, its client or group failing, a new client failing: one warning line each
  /// time it gives up, nothing more tried, and the loop keeps serving the page.
  func testAvahiAbsentOrFailingIsOneLineAndThePageServesOn() {
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

    for (setup, events, why) in [
      ({ (m: ScriptedMDNS) in m.publishFailure = "Bad state" }, [MDNSEvent.running], "cannot add 'Pomodoro on desk'"),
      ({ (_: ScriptedMDNS) in }, [.running, .clientFailure("Access denied")], "Avahi failed: Access denied"),
      ({ (_: ScriptedMDNS) in }, [.running, .groupFailure("Not permitted")], "could not announce"),
      ({ (m: ScriptedMDNS) in m.restartFailure = "No memory" }, [.daemonGone], "a new Avahi client failed"),
    ] {
      lines = []
      mdns = ScriptedMDNS()
      setup(mdns)
      let b = announcer()
      XCTAssertTrue(b.start())
      turn(b, events + [.running, .established])
      XCTAssertTrue(b.off, why)
      XCTAssertFalse(b.announced, why)
      XCTAssertEqual(lines.filter { $0.0 == .warning && $0.1.hasPrefix("the page is not announced") }.count, 1, why)
      XCTAssertTrue(lines.contains { $0.1.contains(why) }, "\(why): \(lines)")
    }
  }
}
