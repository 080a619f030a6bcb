import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroLinux
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro tune`: the built-in tunes, a tune as a WAV file, or a tune on the passive buzzer.
enum TuneCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config", "--wav", "--volume"], switches: ["--list"])
    if args.switches.contains("--list") {
      guard args.positional.isEmpty else { throw UsageError("tune --list takes no tune") }
      for (name, rtttl) in BuiltInTunes.all {
        let tune = BuiltInTunes.named(name)!
        let length = DurationText.format((tune.length + ms(50)) / ms(100) * ms(100))
        print("\(name.padding(12)) \(length.padding(6)) \(rtttl)")
      }
      return ExitCode.ok
    }
    guard args.positional.count == 1 else {
      throw UsageError("tune takes one tune, a built-in name or RTTTL: pomodoro tune chime --wav chime.wav")
    }
    let text = args.positional[0]
    let tune: Tune
    switch BuiltInTunes.read(text) {
    case .success(let t): tune = t
    case .failure(let refusal):
      let hint = text.contains(":") ? "" : " (no built-in tune is called '\(TextLines.visible(text))')"
      throw UsageError("the tune '\(TextLines.visible(text))'\(hint) \(refusal); expected \(BuiltInTunes.expected)")
    }
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: nil)
    var volume = config.volume
    if let v = args.values["--volume"] {
      guard let n = Int(v), Volume.range.contains(n) else {
        throw UsageError("--volume takes a number from 1 (soft) to 10 (loud), got '\(TextLines.visible(v))'")
      }
      volume = n
    }
    if let file = args.values["--wav"] {
      let samples = TuneWave.samples(tune, volume: volume)
      try Files.writeAtomically(file, TuneWave.wav(samples))
      print("wrote \(file): \(tune.notes.count) notes, \(DurationText.format(tune.length)), 44.1 kHz")
      return ExitCode.ok
    }
    return try play(tune, volume: volume, config: config)
  }

  /// Plays `tune` once on the passive buzzer's PWM, on deadlines, then releases it; SIGINT or
  /// SIGTERM stop it silent. Refused, before anything is written, while the device (or another
  /// `tune`) holds the channel's lock: the message names the service and how to stop it.
  static func play(_ tune: Tune, volume: Int, config: DeviceConfig) throws -> Int32 {
    let pwm: SysfsPWM
    do {
      pwm = try SysfsPWM(
        chip: config.pwmChip, channel: config.pwmChannel, lock: ChannelLock(path: config.pwmLockPath),
        whenBusy: .refuse)
    } catch {
      throw HardwareError(error, about: "the passive buzzer's PWM", named: "PWM")
    }
    defer { pwm.release() }
    print("playing \(tune.source) on \(pwm.name)")
    let clock = SystemClock()
    let waiter = try PollWaiter(clock: clock)
    var player = MelodyPlayer()
    player.start(tune, gap: nil, at: clock.now)
    while true {
      try player.drive(pwm, duty: Volume.duty(volume), at: clock.now)
      guard let next = player.nextChange(after: clock.now) else { break }
      let wake = try waiter.wait(until: next, watching: [])
      if !wake.signals.isEmpty { break }
    }
    try player.silence(pwm)
    return ExitCode.ok
  }
}
