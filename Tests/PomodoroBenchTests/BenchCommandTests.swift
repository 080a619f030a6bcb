import PomodoroSystem
import XCTest

@testable import pomodoro_bench

/// pomodoro-bench's one table of commands: what a typo, an unknown word or a malformed number
/// gets (refused, named, exit 64), and that the usage comes from the table.
final class BenchCommandTests: XCTestCase {
  /// The usage error `words` get, or nil when they parse.
  func refusal(_ words: [String]) -> String? {
    guard let command = Bench.command(words[0]) else { return "no command" }
    do {
      _ = try BenchArguments(command, words.dropFirst())
      return nil
    } catch {
      return "\(error)"
    }
  }

  func testATypoIsRefusedNamingWhatItGot() {
    XCTAssertEqual(refusal(["soak", "abc"]), "soak: DAYS takes a number from 0.01 to 3660.0, got 'abc'")
    XCTAssertEqual(refusal(["soak", "7", "1e3"]), "soak: SEED takes a number from 0 to \(UInt64.max), got '1e3'")
    XCTAssertEqual(refusal(["soak", "7", "-1"]), "soak: unknown option '-1'")
    XCTAssertEqual(refusal(["room", "--rounds", "x"]), "room: --rounds takes a number from 1 to 1000, got 'x'")
    XCTAssertEqual(refusal(["room", "65"]), "room: DESKS takes a number from 2 to 64, got '65'")
    XCTAssertEqual(refusal(["burst", "10", "2O"]), "burst: FSYNC_MS takes a number from 0 to 10000, got '2O'")
    XCTAssertEqual(refusal(["burst", "--inlin"]), "burst: unknown option '--inlin'")
    XCTAssertEqual(refusal(["web", "extra"]), "web takes no more words, got 'extra': web [--json FILE]")
    XCTAssertEqual(refusal(["room-desk"]), "room-desk needs CONFIG: room-desk CONFIG")
    XCTAssertEqual(refusal(["room-desk", "a.conf", "--json", "f"]), "room-desk: unknown option '--json'")
    // Each of them exits 64, as `pomodoro` does for a usage error; so does an unknown command.
    for words in [["soak", "abc"], ["sok"], ["room", "--rounds"], ["web-attack", "foo"], ["--quik"]] {
      XCTAssertEqual(Bench.main(words), ExitCode.usage, "\(words)")
    }
  }

  func testWhatParsesIsWhatTheRunGets() throws {
    let soak = try BenchArguments(Bench.command("soak")!, ["0.5", "99"])
    XCTAssertEqual(soak.number("DAYS", otherwise: 28.0), 0.5)
    XCTAssertEqual(soak.number("SEED", otherwise: 12 as UInt64), 99)
    let room = try BenchArguments(Bench.command("room")!, ["12", "--rounds=3", "--long", "--json", "r.json"])
    XCTAssertEqual(room.number("DESKS", otherwise: 50), 12)
    XCTAssertEqual(room.number("--alarms", otherwise: 3), 3)
    XCTAssertEqual(room.number("--rounds", otherwise: 10), 3)
    XCTAssert(room.has("--long"))
    XCTAssertEqual(room.value("--json"), "r.json")
    let burst = try BenchArguments(Bench.command("burst")!, ["--inline", "5", "20"])
    XCTAssertEqual(burst.numbers("FSYNC_MS", otherwise: Bench.burstDelays), [5, 20])
    XCTAssertEqual(Bench.withoutJSON(["12", "--json", "r.json", "--long", "--json=x"]), ["12", "--long"])
  }

  func testTheUsageComesFromTheTable() {
    XCTAssertEqual(
      Bench.command("room")?.usage, "room [DESKS] [--rounds K] [--alarms A] [--long] [--work DIR] [--json FILE]")
    XCTAssertEqual(Bench.command("burst")?.usage, "burst [--inline] [--verbose] [FSYNC_MS...] [--json FILE]")
    XCTAssertEqual(Bench.command("ready-child")?.usage, "ready-child DIR [--unsynced]")
    for command in Bench.commands where !command.child {
      XCTAssert(Bench.overview.contains("  \(command.name) "), command.name)
      XCTAssert(command.help.hasPrefix("Usage: pomodoro-bench \(command.usage)\n"), command.name)
    }
    XCTAssertEqual(Set(Bench.commands.map(\.name)).count, Bench.commands.count, "each command once")
  }
}
