import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroSystem
import XCTest

/// The config's profiles (issue 48): `profile NAME = ...` lines and `profile = NAME`, refused
/// with the file's message (file, line, what was expected, the fix), never a trap.
final class ProfileConfigTests: XCTestCase {
  func parse(_ text: String) throws -> DeviceConfig { try ConfigParser.parse(text, file: "/etc/p.conf") }

  func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigError? {
    do {
      _ = try parse(text)
      XCTFail("accepted: \(text)", file: file, line: line)
      return nil
    } catch {
      return error as? ConfigError
    }
  }

  func testAProfileTakesWhatItSetsAndTheBaseTheRest() throws {
    let config = try parse(
      "focus = 30m\nlong_break = 20m\nprofile deep = focus 50m, short 10m, every 3\n"
        + "profile  light\t= flow_ratio 3,long 1h\nprofile = light\n")
    XCTAssertEqual(config.engine.profiles.map(\.name), ["deep", "light"], "in the config's order")
    XCTAssertEqual(config.engine.profile, "light")
    let deep = config.engine.applying(config.engine.profile(named: "deep"))
    XCTAssertEqual(deep.preset(.focus), minutes(50))
    XCTAssertEqual(deep.preset(.shortBreak), minutes(10))
    XCTAssertEqual(deep.preset(.longBreak), minutes(20), "the base's")
    XCTAssertEqual(deep.longBreakEvery, 3)
    let light = config.engine.applying(config.engine.profile(named: "light"))
    XCTAssertEqual(light.preset(.focus), minutes(30), "the base's")
    XCTAssertEqual(light.preset(.longBreak), hours(1))
    XCTAssertEqual(light.flowBreakRatio, 3)
    XCTAssertEqual(try parse(ConfigParser.text(of: config)), config, "written and read back")
    XCTAssertTrue(
      ConfigParser.text(of: config).contains("profile deep = focus 50m, short 10m, every 3\n"),
      ConfigParser.text(of: config))
    XCTAssertEqual(try parse("profile =\n").engine.profile, nil, "empty: the base")
  }

  func testEightProfilesAndNoNinth() throws {
    let eight = (1...Profile.most).map { "profile p\($0) = focus \($0)m\n" }.joined()
    XCTAssertEqual(try parse(eight).engine.profiles.count, Profile.most)
    let e = error(eight + "profile p9 = focus 9m\n")
    XCTAssertEqual(e?.line, Profile.most + 1)
    XCTAssertEqual(
      e?.message,
      "'profile p9' would be profile 9; at most 8 profiles, remove one (p1, p2, p3, p4, p5, p6, p7, p8)")
  }

  func testBadNamesSettingsAndValuesAreRefusedWithTheirLine() {
    let cases: [(String, String)] = [
      (
        "profile \(String(repeating: "a", count: 21)) = focus 5m",
        "'profile \(String(repeating: "a", count: 21))': a profile's name is 1 to 20 of A-Z a-z 0-9 . _ -, got '\(String(repeating: "a", count: 21))'; rename it"
      ),
      (
        "profile déjà = focus 5m",
        "'profile déjà': a profile's name is 1 to 20 of A-Z a-z 0-9 . _ -, got 'déjà'; rename it"
      ),
      ("profile deep = focus 5m\nprofile deep = focus 6m", "'profile deep' is set twice (first on line 1); keep one"),
      (
        "profile deep = focus 5m, nap 3m",
        "'profile deep': no setting 'nap' in a profile; a profile takes focus, short, long, every, flow_ratio"
      ),
      ("profile deep = focus 5m, focus 6m", "'profile deep' sets 'focus' twice; set it once"),
      (
        "profile deep = focus 2",
        "'profile deep', 'focus' (as 'focus' takes it): bad value '2' for 'focus'; expected a duration from 5s to 23h59m59s, like 25m or 1m30s"
      ),
      (
        "profile deep = every 13",
        "'profile deep', 'every' (as 'long_break_every' takes it): bad value '13' for 'long_break_every'; expected a number from 1 to 12"
      ),
      (
        "profile deep = focus",
        "'profile deep': 'focus' is not a setting and its value; expected any of focus, short, long, every, flow_ratio, each once, separated by commas, each as its key takes it (focus: focus, short: short_break, long: long_break, every: long_break_every, flow_ratio: flow_break_ratio), like focus 50m, short 10m, long 30m, every 3"
      ),
      (
        "profile deep = focus 5m,",
        "'profile deep': '' is not a setting and its value; expected any of focus, short, long, every, flow_ratio, each once, separated by commas, each as its key takes it (focus: focus, short: short_break, long: long_break, every: long_break_every, flow_ratio: flow_break_ratio), like focus 50m, short 10m, long 30m, every 3"
      ),
    ]
    for (text, message) in cases {
      let e = error(text + "\n")
      XCTAssertEqual(e?.message, message, text)
      XCTAssertEqual(e?.line, text.split(separator: "\n").count, text)
    }
  }

  func testChoosingAProfileNoLineDefinesIsRefusedOnItsLine() {
    let e = error("profile deep = focus 50m\nprofile = shallow\n")
    XCTAssertEqual(e?.line, 2)
    XCTAssertEqual(
      e?.message,
      "'profile' names 'shallow', which no 'profile shallow = ...' line defines (the profiles are deep); define it, "
        + "like profile shallow = focus 50m, short 10m, long 30m, every 3, or name another")
    XCTAssertEqual(error("profile = bad name\n")?.message.hasPrefix("bad value 'bad name' for 'profile'"), true)
  }

  func testTheOverlaySetsAndResetsAProfileAndRefusesAnUnknownChoice() throws {
    let layers = ConfigLayers(fileConfig: try parse("profile deep = focus 50m\n"), fileLines: ["profile deep": 1])
    guard case .success((let set, _)) = layers.setting("profile deep", to: "focus 40m,every 2") else {
      return XCTFail("sets a profile")
    }
    XCTAssertEqual(set.overlay["profile deep"], "focus 40m, every 2")
    XCTAssertEqual(set.config.engine.profile(named: "deep")?.presets[.focus], minutes(40))
    XCTAssertEqual(set.items.filter { $0.key.hasPrefix("profile") }.map(\.key), ["profile deep", "profile"])
    XCTAssertEqual(set.items.first { $0.key == "profile deep" }?.from, "set")
    XCTAssertTrue(set.overlayText.contains("profile deep = focus 40m, every 2\n"), set.overlayText)
    XCTAssertEqual(set.readOverlay(set.overlayText, path: "s.conf").overlay, set.overlay)
    guard case .success((let chosen, _)) = set.setting("profile", to: "deep") else { return XCTFail("chooses") }
    XCTAssertEqual(chosen.config.engine.profile, "deep")
    guard case .failure(let refusal) = set.setting("profile", to: "light") else { return XCTFail("refuses") }
    XCTAssertTrue(refusal.message.hasPrefix("'profile' names 'light', which no"), refusal.message)
    guard case .success((let back, _)) = set.resetting("profile deep") else { return XCTFail("resets") }
    XCTAssertEqual(back.config.engine.profile(named: "deep")?.presets[.focus], minutes(50), "the file's again")
  }

  /// 10,000 random and mutated `profile ...` lines: each is refused with a message naming its
  /// line, or accepted and written back the same; none traps.
  func testTenThousandProfileLinesAreRefusedOrAcceptedNeverATrap() throws {
    var rng = SplitMix64(seed: 48)
    let words = [
      "focus", "short", "long", "every", "flow_ratio", "nap", "", " ", ",", ",,", "=", "#", "5m", "50m", "0", "13",
      "1h", "24h", "-3", "9999999999999999999", "1.5m", "never", "deep", "é", "\t", "\u{1B}", "\r", "profile",
    ]
    let names = ["deep", "a", String(repeating: "x", count: 20), String(repeating: "y", count: 21), "déjà", "a b", ""]
    func pick<T>(_ list: [T]) -> T { list[Int(rng.next() % UInt64(list.count))] }
    var accepted = 0
    for i in 0..<10_000 {
      var line: String
      if i % 2 == 0 {
        line =
          "profile \(pick(names)) = "
          + (0..<Int(rng.next() % 5)).map { _ in "\(pick(words)) \(pick(words))" }
          .joined(separator: pick([",", ", ", " ,", ";"]))
      } else {
        var bytes = Array("profile deep = focus 50m, short 10m, long 30m, every 3, flow_ratio 4".utf8)
        for _ in 0..<(1 + Int(rng.next() % 4)) {
          let at = Int(rng.next() % UInt64(bytes.count + 1))
          switch rng.next() % 3 {
          case 0 where at < bytes.count: bytes.remove(at: at)
          case 1: bytes.insert(UInt8(truncatingIfNeeded: rng.next() % 128), at: at)
          default: bytes.insert(contentsOf: Array(pick(words).utf8), at: at)
          }
        }
        line = String(decoding: bytes, as: UTF8.self)
      }
      let text = "focus = 25m\n\(line)\n" + (rng.next() % 4 == 0 ? "profile = deep\n" : "")
      do {
        let config = try parse(text)
        accepted += 1
        XCTAssertEqual(try parse(ConfigParser.text(of: config)), config, "written back: \(line.debugDescription)")
      } catch let e as ConfigError {
        XCTAssertTrue((1...3).contains(e.line), "\(e) for \(line.debugDescription)")
        XCTAssertFalse(e.message.isEmpty)
      }
    }
    XCTAssertGreaterThan(accepted, 100, "some are good")
  }
}
