import PomodoroCore
import XCTest

/// Named profiles in the engine (issue 48): the settings in effect are the base with the chosen
/// profile over it; the knob's profile chooser is the label chooser's twin.
final class ProfileTests: XCTestCase {
  static func deep() -> Profile {
    Profile(name: "deep", presets: [.focus: minutes(50), .shortBreak: minutes(10)], longBreakEvery: 3)!
  }
  static func light() -> Profile { Profile(name: "light", presets: [.focus: minutes(15)], flowBreakRatio: 3)! }
  static func settings(modes: [Mode] = [.focus, .shortBreak, .longBreak], profile: String? = nil) -> EngineSettings {
    EngineSettings(modes: modes, profiles: [deep(), light()], profile: profile)
  }

  func testANameIsADeskIdsLettersAtMostTwentyOfThem() {
    XCTAssertNotNil(Profile(name: "deep-work_2.0"))
    XCTAssertNotNil(Profile(name: String(repeating: "a", count: Profile.longestName)))
    XCTAssertNil(Profile(name: String(repeating: "a", count: Profile.longestName + 1)))
    XCTAssertNil(Profile(name: ""))
    XCTAssertNil(Profile(name: "deep work"))
    XCTAssertNil(Profile(name: "tiefe-Ü"))
  }

  func testAProfileSetsWhatItNamesAndTheBaseTheRest() {
    let base = EngineSettings(presets: [.focus: minutes(30), .longBreak: minutes(20)], longBreakEvery: 5)
    let applied = base.applying(Self.deep())
    XCTAssertEqual(applied.preset(.focus), minutes(50))
    XCTAssertEqual(applied.preset(.shortBreak), minutes(10))
    XCTAssertEqual(applied.preset(.longBreak), minutes(20), "left out: the base's")
    XCTAssertEqual(applied.longBreakEvery, 3)
    XCTAssertEqual(applied.flowBreakRatio, base.flowBreakRatio)
    XCTAssertEqual(base.applying(nil), base)
  }

  func testTheProfileChosenAtStartIsInEffectAndAnUnknownOneIsTheBase() {
    let state = EngineState(settings: Self.settings(profile: "deep"), now: Instant(nanoseconds: 0))
    XCTAssertEqual(state.profile, "deep")
    XCTAssertEqual(state.duration, minutes(50))
    XCTAssertEqual(state.settings.longBreakEvery, 3)
    let unknown = EngineState(settings: Self.settings(profile: "gone"), now: Instant(nanoseconds: 0))
    XCTAssertNil(unknown.profile)
    XCTAssertEqual(unknown.duration, minutes(25))
  }

  func testChoosingAProfileMovesTheIdlePickerAtOnceButNotADialedTime() {
    var h = Harness(settings: Self.settings())
    h.send(.setProfile("deep"))
    XCTAssertEqual(h.state.profile, "deep")
    XCTAssertEqual(h.state.duration, minutes(50), "the picker follows at once")
    XCTAssertEqual(h.state.cycleText, "1/3")
    h.send(.setProfile("nope"))
    XCTAssertEqual(h.state.profile, "deep", "an unknown name changes nothing")
    h.send(.turn(1))
    h.send(.setProfile(nil))
    XCTAssertNil(h.state.profile)
    XCTAssertEqual(h.state.duration, minutes(51), "a dialed time stays")
    XCTAssertEqual(h.state.settings, h.state.base)
  }

  func testARunningTimerKeepsItsLengthAndTheCyclesCountCarriesOver() {
    var h = Harness(settings: Self.settings())
    h.send(.press(.start))
    h.advance(minutes(25))
    h.send(.press(.start))  // Acknowledge: a short break preselected, one focus done.
    XCTAssertEqual(h.state.focusDoneInCycle, 1)
    h.send(.press(.start))
    h.send(.setProfile("deep"))
    XCTAssertEqual(h.state.duration, minutes(5), "the running break keeps its length")
    h.advance(minutes(5))
    h.send(.press(.start))
    XCTAssertEqual(h.state.mode, .focus)
    XCTAssertEqual(h.state.duration, minutes(50), "the next session is the profile's")
    XCTAssertEqual(h.state.cycleText, "2/3", "the count carried over")
  }

  func testPastTheLabelsTheKnobOffersTheProfilesOnlyWhenThereAreProfiles() throws {
    var none = Harness(settings: EngineSettings(modes: [.focus, .shortBreak]))
    none.send(.press(.encoder))
    none.send(.press(.encoder))
    XCTAssertNil(none.state.profileChoice, "no profiles: the cycle wraps as it always did")
    XCTAssertEqual(none.state.mode, .focus)

    var h = Harness(settings: Self.settings(modes: [.focus, .shortBreak]))
    h.send(.setProfile("light"))
    h.send(.press(.encoder))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.profileChoice, 1, "opens on the profile in use")
    XCTAssertEqual(h.state.profileChoices, ["deep", "light", nil])
    XCTAssertEqual(h.state.title, "Which profile?")
    XCTAssertEqual(h.state.startLabel, "Start")
    h.send(.turn(5))
    XCTAssertEqual(h.state.profileChoice, 2, "stops at the base")
    h.send(.turn(-7))
    XCTAssertEqual(h.state.profileChoice, 0, "stops at the first")
    h.send(.press(.encoder))
    XCTAssertNil(h.state.profileChoice)
    XCTAssertEqual(h.state.profile, "deep", "the push takes it")
    XCTAssertEqual(h.state.mode, .focus, "and goes on to the cycle's first mode")
    XCTAssertEqual(h.state.duration, minutes(50))
    XCTAssertTrue(h.effects.contains { $0.1 == .persist })

    // With recent labels, the label chooser comes first and its push goes on to the profiles.
    let mail = try XCTUnwrap(try SessionLabel.parse("Mail").get())
    h.send(.setLabel(mail))
    h.send(.press(.encoder))
    h.send(.press(.encoder))
    XCTAssertNotNil(h.state.labelChoice)
    h.send(.press(.encoder))
    XCTAssertNil(h.state.labelChoice)
    XCTAssertEqual(h.state.profileChoice, 0)
    XCTAssertEqual(h.state.mode, .shortBreak, "still past the last mode")
  }

  func testInTheChooserStartTakesTheProfileAndStartsAndCancelChangesNothing() {
    var h = Harness(settings: Self.settings(modes: [.focus]))
    h.send(.press(.encoder))
    XCTAssertEqual(h.state.profileChoice, 2, "opens on the base")
    h.send(.turn(-2))
    h.send(.press(.cancel))
    XCTAssertNil(h.state.profileChoice)
    XCTAssertNil(h.state.profile, "cancel leaves the profile")
    XCTAssertEqual(h.state.phase, .idle)
    h.send(.press(.encoder))
    h.send(.turn(-1))  // light
    h.send(.press(.start))
    XCTAssertEqual(h.state.profile, "light")
    XCTAssertEqual(h.state.phase, .running)
    XCTAssertEqual(h.state.mode, .focus)
    XCTAssertEqual(h.state.duration, minutes(15), "starts with the profile's preset")
  }

  func testTheSettingsReloadedKeepTheChoiceWhileTheyDefineItAndAChangedStartChoiceWins() {
    var h = Harness(settings: Self.settings())
    h.send(.setProfile("light"))
    var edited = Self.settings()
    edited.profiles[1].presets[.focus] = minutes(20)
    h.send(.configure(edited))
    XCTAssertEqual(h.state.profile, "light")
    XCTAssertEqual(h.state.duration, minutes(20), "the profile's new preset applies at once")
    h.send(.configure(Self.settings(profile: "deep")))
    XCTAssertEqual(h.state.profile, "deep", "the start choice changed: it is chosen")
    h.send(.configure(EngineSettings(profiles: [Self.light()], profile: "deep")))
    XCTAssertNil(h.state.profile, "a profile no longer defined: the base")
    XCTAssertEqual(h.state.duration, minutes(25))
  }

  func testTheProfileIsSavedAndRestoredAndAVanishedOneIsTheBase() {
    var h = Harness(settings: Self.settings())
    h.send(.setProfile("deep"))
    h.send(.press(.start))
    let saved = h.state.saved(at: h.now)
    XCTAssertEqual(saved.profile, "deep")
    let (back, _) = Engine.restore(saved, settings: Self.settings(), now: Instant(nanoseconds: 0))
    XCTAssertEqual(back.profile, "deep")
    XCTAssertEqual(back.settings.longBreakEvery, 3)
    XCTAssertEqual(back.duration, minutes(50))
    let (gone, _) = Engine.restore(saved, settings: EngineSettings(), now: Instant(nanoseconds: 0))
    XCTAssertNil(gone.profile)
    XCTAssertEqual(gone.duration, minutes(50), "the timer keeps its length")
    var older = saved
    older.profile = nil
    XCTAssertNil(Engine.restore(older, settings: Self.settings(), now: Instant(nanoseconds: 0)).0.profile)
  }
}
