import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// Whether someone is at the desk, from a presence sensor's line (`presence_line`; without one
/// it never says anything): the line's level once it has held `settle` (a shorter glitch is
/// nothing), and the inputs (a press or a turn is someone there, whatever the sensor says).
/// Nobody seen for `away_after`: away, and from then on as in quiet hours (`hushed`: the idle
/// panel goes dark, no click) until the line sees someone again, which wakes the panel at once,
/// or an input does. A running timer is left as it is, unless `pause_when_away` asks that a
/// focus running when away begins pause (as `ctl pause` would: it stays paused until a press;
/// not in a room, whose session is everyone's). Pure.
package struct PresenceWatch {
  /// How long the line's level must hold to count: a PIR's output is clean, but a wire picks up
  /// a spike.
  package static let settle = ms(100)
  /// The settled level (true: someone seen); nil: no line, or its level not read yet.
  package private(set) var level: Bool?
  /// A level read that has not held `settle` yet, and since when.
  private var raw: (active: Bool, since: Instant)?
  /// When someone was last seen: the line's settled fall, or the last input.
  private var seenAt = Instant.zero
  /// Whether away was said (the journal, the engine's `present`, the pause).
  package private(set) var away = false
  /// When the line saw someone again while away (the panel wakes at that instant).
  private var back: Instant?

  package init() {}

  /// What `advance` found: a line for the journal, the instant the panel wakes, the events
  /// for the engine (`present`, and the pause), in time order.
  package struct Sensed {
    package var said: String?
    package var woke: Instant?
    package var events: [(Instant, Event)] = []
  }

  /// Takes an input: the presence line's level (nil: nothing else is to be done with it), or an
  /// input at the desk, which is someone seen from then on: whether its click is silent (in
  /// quiet hours since `quietSince`, or away until it came: it wakes the panel, as at night).
  package mutating func take(
    _ action: InputMapper.Action, at: Instant, quietSince: Instant?, _ config: DeviceConfig
  ) -> Bool? {
    guard case .presence(let active) = action else {
      let silent = silent(quietSince, config, at: at)
      seenAt = max(seenAt, at)
      return silent
    }
    settle(to: at)
    if level == nil {
      // The level at start: as it is, someone seen now.
      (level, seenAt) = (active, at)
    } else {
      raw = active == level ? nil : (active, at)
    }
    return nil
  }

  /// Settles a level that has held `settle` by `now`.
  private mutating func settle(to now: Instant) {
    guard let (active, since) = raw, now >= since + Self.settle else { return }
    raw = nil
    level = active
    if !active { seenAt = max(seenAt, since) } else if away { back = since }
  }

  /// The instant away begins (it may be after now); nil while the line sees someone, or none.
  package func awaySince(_ config: DeviceConfig) -> Instant? {
    level == false ? seenAt + config.awayAfter : nil
  }

  /// Since when the idle panel is quiet and the click silent: quiet hours' (`quietSince`), or
  /// away's, the earlier (either may be after now: the panel's care schedules it).
  package func hushed(_ quietSince: Instant?, _ config: DeviceConfig) -> Instant? {
    [quietSince, awaySince(config)].compactMap { $0 }.min()
  }

  /// Whether the click is silent at `at`: in quiet hours, or away.
  package func silent(_ quietSince: Instant?, _ config: DeviceConfig, at: Instant) -> Bool {
    hushed(quietSince, config).map { $0 <= at } ?? false
  }

  /// When `advance` must run next: a level settling, away beginning.
  package func nextChange(_ config: DeviceConfig) -> Instant? {
    [raw.map { $0.since + Self.settle }, away ? nil : awaySince(config)].compactMap { $0 }.min()
  }

  /// What changed by `now` for a device in `state`: away began or ended, and the engine's
  /// `present` brought in line.
  package mutating func advance(_ config: DeviceConfig, state: EngineState, to now: Instant) -> Sensed {
    settle(to: now)
    var sensed = Sensed()
    guard let level else { return sensed }
    let begins = awaySince(config)
    let isAway = begins.map { now >= $0 } ?? false
    var at = now
    if isAway && !away, let begins {
      at = begins
      let panel = config.quietPanel == .off ? "goes dark" : "dims"
      sensed.said =
        "away: nobody seen for \(DurationText.format(config.awayAfter)); the picker's panel \(panel), no click"
      // In a room a pause is the room's (everyone's): only a desk alone pauses.
      if config.pauseWhenAway, state.phase == .running, state.mode.kind.isFocus, state.room == nil,
        case .success(let events) = ControlProtocol.events(for: .pause, in: state.phase, mode: state.mode)
      {
        sensed.events = events.map { (at, $0) }
        sensed.said! += "; the focus pauses (pause_when_away)"
      }
    } else if !isAway && away {
      // The line saw someone (the panel wakes at that instant), or an input did (it woke it).
      at = level ? (back ?? now) : now
      sensed.said = level ? "someone is here again: the panel wakes" : "someone is here again (an input)"
      if level { sensed.woke = at }
    }
    (away, back) = (isAway, nil)
    if state.present != !away { sensed.events.append((at, .setPresent(!away))) }
    return sensed
  }
}
