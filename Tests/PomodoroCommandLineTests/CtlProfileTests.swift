import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

@testable import PomodoroCommandLine

/// `{"cmd":"profile","name":"deep"}` and `pomodoro ctl profile [NAME]` (issue 48): the profile of
/// the next sessions, an unknown name refused; status and watch lines carry `profile` and
/// `profiles`.
final class CtlProfileTests: XCTestCase {
  static func fixture() throws -> ControlFixture {
    try ControlFixture(
      config: try ConfigParser.parse(
        "profile deep = focus 50m, every 3\nprofile light = focus 15m\n", file: "/etc/p.conf"))
  }

  func testTheSocketChoosesAProfileAndRefusesAnUnknownOne() throws {
    let f = try Self.fixture()
    let fd = try f.connect()
    defer { close(fd) }
    var r = f.reply(fd, #"{"cmd":"status"}"#)
    XCTAssertEqual(r.fields["profile"], .string(""), "the base")
    XCTAssertEqual(r.fields["profiles"], .list([.string("deep"), .string("light")]), "in the config's order")
    r = f.reply(fd, #"{"cmd":"profile","name":"deep"}"#)
    XCTAssertTrue(r.ok, r.error ?? "")
    XCTAssertEqual(r.fields["profile"], .string("deep"))
    XCTAssertEqual(r.fields["total_ms"], .int(3_000_000), "the picker follows at once")
    XCTAssertEqual(r.fields["cycle"], .string("1/3"))
    r = f.reply(fd, #"{"cmd":"profile","name":"nope"}"#)
    XCTAssertFalse(r.ok)
    XCTAssertEqual(
      r.error,
      "no profile 'nope': the profiles are deep, light; define it in the config (profile nope = focus 50m, ...) "
        + "or name another")
    XCTAssertEqual(f.h.device.state.profile, "deep", "a refusal changes nothing")
    r = f.reply(fd, #"{"cmd":"profile","name":""}"#)
    XCTAssertEqual(r.fields["profile"], .string(""), "an empty name: the base")
    _ = f.reply(fd, #"{"cmd":"profile","name":"light"}"#)
    r = f.reply(fd, #"{"cmd":"profile"}"#)
    XCTAssertEqual(r.fields["profile"], .string(""), "no name: the base")
    XCTAssertEqual(r.fields["total_ms"], .int(1_500_000))
    r = f.reply(fd, #"{"cmd":"profile","name":7}"#)
    XCTAssertEqual(r.error, #""name" must be a string, like {"cmd":"profile","name":"deep"}"#)
  }

  /// A profile chosen under a dialed time changes nothing else the journal says: the watchers
  /// hear it all the same.
  func testAWatchLineCarriesTheProfile() throws {
    let f = try Self.fixture()
    let fd = try f.connect()
    defer { close(fd) }
    _ = f.reply(fd, #"{"cmd":"set","duration":"20m"}"#)
    let watcher = try f.connect()
    defer { close(watcher) }
    _ = f.reply(watcher, #"{"cmd":"watch"}"#)
    _ = f.reply(fd, #"{"cmd":"profile","name":"light"}"#)
    XCTAssertEqual(f.h.device.state.duration, minutes(20), "the dialed time stays")
    f.server.turn()
    var reader = LineReader(fd: watcher)
    let line = try XCTUnwrap(reader.next(until: SystemClock().now + ms(2000)))
    XCTAssertTrue(line.hasPrefix(#"{"event":"state""#), line)
    XCTAssertTrue(line.contains(#""profile":"light","profiles":["deep","light"]"#), line)
  }

  func testCtlProfileChoosesGoesBackAndSaysWhy() throws {
    let f = try Self.fixture()
    let pump = SocketPump(f)
    var r = pump.ctl(["profile", "deep"])
    XCTAssertEqual(r.code, ExitCode.ok, r.err)
    XCTAssertEqual(r.out, "idle  focus 1/3  50:00  · profile deep\n")
    r = pump.ctl(["status", "--json"])
    XCTAssertTrue(r.out.contains(#""profile":"deep","profiles":["deep","light"]"#), r.out)
    r = pump.ctl(["profile"])
    XCTAssertEqual(r.out, "idle  focus 1/4  25:00\n", "back to the base")
    r = pump.ctl(["profile", "nope"])
    XCTAssertEqual(r.code, ExitCode.failure)
    XCTAssertTrue(r.err.contains("no profile 'nope': the profiles are deep, light"), r.err)
    r = pump.ctl(["profile", "deep", "light"])
    XCTAssertEqual(r.code, ExitCode.usage)
    XCTAssertTrue(r.err.contains("profile takes one profile's name, or none for the base settings"), r.err)
    r = pump.ctl(["profile", "dé"])
    XCTAssertEqual(r.code, ExitCode.usage)
    XCTAssertTrue(r.err.contains("profile: a profile's name is 1 to 20 of A-Z a-z 0-9 . _ -, got 'dé'"), r.err)
  }
}
