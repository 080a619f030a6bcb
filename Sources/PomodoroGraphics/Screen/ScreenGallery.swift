import PomodoroCore

/// Every screen the device shows, each produced by driving the real engine to it: the idle
/// picker in pomodoro and egg modes, running (MM:SS and H:MM:SS), the dissolves (a start, and
/// every return to idle: cancel while running or paused, stopping the alarm), paused,
/// restored after a power cut, ringing with the flash on and off, today's tomatoes, idle and
/// paused with hours, OLED care's pixel shift at two ends of its orbit, and flow: its picker,
/// counting up, paused, and the break it earned.
/// `pomodoro snapshot DIR` writes them as PNGs; the golden tests keep them pixel-exact.
public func screenGallery(height: Int = 64) -> [(name: String, image: Framebuffer)] {
  screenGalleryStates().map { scene in
    (scene.name, renderScreen(state: scene.state, now: scene.now, height: height, shift: scene.shift))
  }
}

/// The engine states behind `screenGallery`, with the instant each is drawn at and the pixel
/// shift it is drawn with.
public func screenGalleryStates() -> [(name: String, state: EngineState, now: Instant, shift: PixelShift.Offset)] {
  let t0 = Instant(nanoseconds: 1_000 * nanosecondsPerSecond)
  func run(_ s: EngineState, _ events: [(Event, Nanoseconds)]) -> EngineState {
    var state = s
    for (event, at) in events { state = Engine.step(state, event, now: t0 + at).0 }
    return state
  }
  let fresh = run(EngineState(now: t0), [(.setCompletedToday(2), 0)])
  func mode(_ presses: Int) -> EngineState {
    run(fresh, Array(repeating: (.press(.encoder), 0), count: presses))
  }
  let started = run(fresh, [(.press(.start), seconds(1))])
  let running = seconds(1) + minutes(7) + seconds(23) + ms(400)
  let egg = run(mode(4), [(.press(.start), seconds(1))])  // medium: 7:00
  var long = EngineSettings()
  long.presets[.focus] = hours(1) + minutes(5)
  let hours = run(EngineState(settings: long, now: t0), [(.press(.start), seconds(1))])
  long.presets[.focus] = PomodoroCore.hours(12) + minutes(34) + seconds(56)
  let manyHours = run(EngineState(settings: long, now: t0), [(.press(.start), seconds(1))])
  let paused = run(started, [(.press(.start), running)])
  let soft = run(mode(3), [(.press(.start), seconds(1))])
  let softDone = seconds(1) + minutes(5)
  let ringingEgg = run(soft, [(.tick, softDone)])
  let focusDone = seconds(1) + minutes(25)
  let ringingFocus = run(started, [(.tick, focusDone)])
  let cancelled = run(started, [(.press(.cancel), running)])
  let busyDay = run(started, [(.setCompletedToday(9), seconds(2))])
  let pausedCancelled = run(paused, [(.press(.cancel), running + seconds(5))])
  let stopped = run(ringingEgg, [(.press(.start), softDone + seconds(2))])
  let restored = EngineState(
    restoring: SavedTimer(
      phase: .running, mode: .focus, duration: minutes(25), remaining: minutes(12) + seconds(3), focusDoneInCycle: 1),
    settings: EngineSettings(), now: t0)
  let idleHours = run(fresh, [(.setDuration(PomodoroCore.hours(6) + minutes(56)), 0)])
  let pausedHours = run(idleHours, [(.press(.start), seconds(1)), (.press(.start), seconds(2))])
  // Flow: the knob's seventh mode; 41:07 counted earns 8:00 of break, which ending it preselects.
  let flow = mode(6)
  let flowing = run(flow, [(.press(.start), seconds(1))])
  let flowed = seconds(1) + minutes(41) + seconds(7) + ms(400)
  let flowPaused = run(flowing, [(.press(.start), flowed)])
  let earned = run(flowPaused, [(.press(.cancel), flowed + seconds(10))])
  let flowScenes: [(String, EngineState, Instant)] = [
    ("24-idle-flow", flow, t0),
    ("25-running-flow", flowing, t0 + flowed),
    ("26-paused-flow", flowPaused, t0 + flowed + seconds(3)),
    ("27-idle-earned-break", earned, t0 + flowed + seconds(10) + ScreenTiming.transition),
  ]
  let scenes: [(String, EngineState, Instant)] = [
    ("01-idle-focus", fresh, t0),
    ("02-idle-short-break", mode(1), t0),
    ("03-idle-egg-soft", mode(3), t0),
    ("04-start-dissolve-midpoint", started, t0 + seconds(1) + ms(250)),
    ("05-running-focus", started, t0 + running),
    ("06-running-focus-spin-step", started, t0 + running + ScreenTiming.spinStep),
    ("07-running-last-second", started, t0 + focusDone - ms(300)),
    ("08-running-egg-medium", egg, t0 + seconds(1) + seconds(95)),
    ("09-running-hours", hours, t0 + seconds(2)),
    ("10-running-12-hours", manyHours, t0 + seconds(2)),
    ("11-running-nine-today", busyDay, t0 + running),
    ("12-paused", paused, t0 + running + seconds(3)),
    ("13-restored-after-power-cut", restored, t0 + seconds(1)),
    ("14-ringing-egg-flash-on", ringingEgg, t0 + softDone + ms(100)),
    ("15-ringing-egg-flash-off", ringingEgg, t0 + softDone + ms(600)),
    ("16-ringing-focus-flash-on", ringingFocus, t0 + focusDone + ms(1100)),
    ("17-cancel-dissolve-midpoint", cancelled, t0 + running + ms(250)),
    ("18-paused-cancel-dissolve-midpoint", pausedCancelled, t0 + running + seconds(5) + ms(250)),
    ("19-ringing-stop-dissolve-midpoint", stopped, t0 + softDone + seconds(2) + ms(250)),
    ("20-idle-hours", idleHours, t0),
    ("21-paused-hours", pausedHours, t0 + seconds(3)),
  ]
  // OLED care: the picture moved a pixel right and down, and left and up (two corners of the orbit).
  let shifted = [
    ("22-running-shift-right-down", started, t0 + running, PixelShift.Offset(dx: 1, dy: 1)),
    ("23-paused-shift-left-up", paused, t0 + running + seconds(3), PixelShift.Offset(dx: -1, dy: -1)),
  ]
  return (scenes.map { ($0.0, $0.1, $0.2, PixelShift.Offset.zero) } + shifted)
    + (flowScenes + labelScenes(t0)).map { ($0.0, $0.1, $0.2, PixelShift.Offset.zero) }
}

/// Labels, interruptions and the daily goal: the label under the title (cut where it does not
/// fit, a character the font lacks as its stand-in), the goal's count in place of the tomatoes
/// (a tick when met), the interruptions in the footer and their acknowledgement, and the knob's
/// label chooser in the middle of its list and at its end.
func labelScenes(_ t0: Instant) -> [(String, EngineState, Instant)] {
  func run(_ s: EngineState, _ events: [Event], at: Nanoseconds = 0) -> EngineState {
    events.reduce(s) { state, event in Engine.step(state, event, now: t0 + at).0 }
  }
  func label(_ text: String) -> Event {
    guard case .success(let label) = SessionLabel.parse(text) else { return .setLabel(nil) }
    return .setLabel(label)
  }
  let goal = EngineState(settings: EngineSettings(dailyGoal: 8), now: t0)
  let labelled = run(goal, [.setCompletedToday(2), label("Mail"), label("Write the report")])
  let running = run(
    labelled, [label("Quarterly report for the board, draft 2"), .press(.start)], at: seconds(1))
  let at = seconds(1) + minutes(7) + seconds(23) + ms(400)
  let interrupted = run(running, [.interrupt(.internal), .interrupt(.internal), .interrupt(.external)], at: at)
  let met = run(
    EngineState(settings: EngineSettings(dailyGoal: 2), now: t0),
    [.setCompletedToday(2), label("Überarbeitung 字"), .press(.start)], at: seconds(1))
  // The chooser: past flow, the knob's last mode, with three labels and "no label".
  let chooser = run(run(labelled, [label("Reading")]), Array(repeating: .press(.encoder), count: 7) + [.turn(1)])
  let chooserEnd = run(chooser, [.turn(5)])
  return [
    ("28-idle-label-goal", labelled, t0),
    ("29-running-label-cut-interruptions", interrupted, t0 + at + seconds(3)),
    ("30-running-interruption-noted", interrupted, t0 + at + ms(500)),
    ("31-running-goal-met-stand-in", met, t0 + seconds(1) + minutes(3)),
    ("32-label-chooser", chooser, t0),
    ("33-label-chooser-end", chooserEnd, t0),
  ] + profileScenes(t0)
}

/// Profiles (issue 48): the picker with its profile's name beside the title, the knob's profile
/// chooser on the profile in use, and a desk at the room's pace.
func profileScenes(_ t0: Instant) -> [(String, EngineState, Instant)] {
  let deep = Profile(name: "deep", presets: [.focus: minutes(50), .shortBreak: minutes(10)], longBreakEvery: 3)
  let light = Profile(name: "light", presets: [.focus: minutes(15)])
  let settings = EngineSettings(
    modes: [.focus, .shortBreak, .longBreak], profiles: [deep, light].compactMap { $0 }, profile: "deep")
  let picker = Engine.step(EngineState(settings: settings, now: t0), .setCompletedToday(2), now: t0).0
  let chooser = [Event.press(.encoder), .press(.encoder), .press(.encoder)].reduce(picker) { state, event in
    Engine.step(state, event, now: t0).0
  }
  // Following a room session another desk started at its profile's 50 minutes: "(room)".
  let others = [RoomView.Member(desk: "b", phase: .running, mode: .focus, label: nil, following: true)]
  let plan = [RoomSession.Phase(mode: .focus, length: minutes(50)), .init(mode: .shortBreak, length: minutes(10))]
  let session = RoomSession(revision: 7, origin: "b", plan: plan, phase: 0, state: .running, elapsed: 0)
  let following = [
    Event.setRoom(RoomIdentity(name: "team", desk: "a")),
    .roomView(RoomView(desk: "a", broker: true, clockTrusted: true, others: others)),
    .roomSession(RoomHeld(session: session, anchor: t0)),
  ].reduce(EngineState(now: t0)) { state, event in Engine.step(state, event, now: t0).0 }
  return [
    ("34-idle-profile", picker, t0), ("35-profile-chooser", chooser, t0),
    ("36-running-room-pace", following, t0 + minutes(3)),
  ]
}
