import PomodoroConfig
import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics
import PomodoroLinux
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSystem
import PomodoroWeb

/// `pomodoro probe`: checks a freshly wired device step by step, then echoes the inputs live.
enum ProbeCommand {
  /// pomodoro-web's unit: there, the package is installed.
  static let webUnit = "/usr/lib/systemd/system/pomodoro-web.service"
  /// pomodoro-mqtt's unit: there, the bridge a room goes through is installed.
  static let mqttUnit = "/usr/lib/systemd/system/pomodoro-mqtt.service"

  /// What the probe says of the desk's room (docs/room.md): through which bridge, broker and desk
  /// id it goes, or what keeps it out (no bridge installed, a desk id a room cannot take).
  static func roomLine(_ room: String, config: DeviceConfig, bridgeInstalled: Bool, hostName: String) -> String {
    let desk = config.mqttDeviceId ?? BridgeTopics.topicLevel(hostName)
    guard bridgeInstalled else {
      return "room \(room): no bridge: a room goes through pomodoro-mqtt (sudo apt install pomodoro-mqtt, then "
        + "sudo systemctl enable --now pomodoro-mqtt)"
    }
    guard RoomNames.isDesk(desk) else {
      return "room \(room): cannot join as '\(desk)': a desk id in a room is \(RoomNames.rule) "
        + "(set mqtt_device_id)"
    }
    return "room \(room): through pomodoro-mqtt and the broker \(config.mqttHost):\(config.mqttPort) as \(desk) "
      + "(systemctl status pomodoro-mqtt says whether it runs)"
  }

  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: [])
    guard args.positional.isEmpty else { throw UsageError("probe takes no arguments, got '\(args.positional[0])'") }
    // A line at a time, also into a pipe or a file (`pomodoro probe | tee probe.log`): the
    // turns and presses are echoed as they happen, not when it ends.
    lineBufferStandardOutput()
    let log = Log()
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: log)
    print(PomodoroCLI.versionText)
    // The page, where the package pomodoro-web is installed: where a phone opens it.
    if access(webUnit, F_OK) == 0 {
      let pages = PageAddress.all(
        hostName: AllowedHosts.thisHostName(), interfaces: PageAddress.interfaces(), bind: config.webBind,
        port: config.webPort)
      print("the page (pomodoro-web): \(pages.joined(separator: "  "))")
    }
    if let room = config.room {
      print(
        roomLine(
          room, config: config, bridgeInstalled: access(mqttUnit, F_OK) == 0, hostName: AllowedHosts.thisHostName()))
    }

    // 1. The chip and every line, free or held.
    let chip: LinuxGPIOChip
    do {
      chip = try LinuxGPIOChip(spec: config.chip, lineHint: config.encoderA)
    } catch {
      throw HardwareError(error)
    }
    print("GPIO chip: \(chip.path) (\(chip.name), label \(chip.label), \(chip.lineCount) lines)")
    var problems = 0
    for (signal, line) in config.wired {
      let role = signal.partLabel
      do {
        let info = try chip.lineInfo(line)
        let state = info.used ? "BUSY, held by '\(info.consumer)'" : "free"
        print("  \(role.padding(13)) \(line.padding(8)) offset \(info.offset): \(state)")
        if info.used { problems += 1 }
      } catch {
        print("  \(role.padding(13)) \(line.padding(8)) \(HardwareAdvice.text(error))")
        problems += 1
      }
    }

    // 2. The display.
    var display: OLEDDriver?
    do {
      let bus = try LinuxI2CBus(bus: config.i2cBus)
      try bus.probe(address: config.i2cAddress)
      print(
        "display: a device answers at \(hex(config.i2cAddress)) on \(bus.path); driving it as \(config.controller.rawValue)"
      )
      print("  (if the picture is shifted by two columns with junk at one edge, set controller = sh1106)")
      let driver = config.displayDriver(on: bus)
      try driver.initialize()
      try driver.flush(testPattern(height: config.height))
      print("  test pattern drawn: a border, a diagonal and the corners marked; every edge must be visible")
      display = driver
    } catch {
      print("display: \(HardwareAdvice.text(error))")
      problems += 1
    }

    // 3. The lines: requested as the device does, a beep, then live input.
    let inputs: InputLines
    let buzzer: OutputLine
    do {
      (inputs, buzzer) = try LineRequests.request(on: chip, config: config)
    } catch {
      print("lines: \(HardwareAdvice.text(error))")
      return ExitCode.hardware
    }
    // The passive buzzer: its PWM found by device path, a scale played on the loop's deadlines.
    var tone: SysfsPWM?
    var melody = MelodyPlayer()
    if config.buzzerKind == .passive {
      do {
        let pwm = try SysfsPWM(
          chip: config.pwmChip, channel: config.pwmChannel, lock: ChannelLock(path: config.pwmLockPath),
          whenBusy: .refuse)
        print("passive buzzer: \(pwm.name); a scale now, C6 to C7 (if silent: the wiring, or the overlay's pin)")
        tone = pwm
      } catch {
        print("passive buzzer: \(error)")
        problems += 1
      }
    }
    defer {
      tone?.release()
      try? buzzer.set(false)
      buzzer.release()
      inputs.release()
      try? display?.setDisplayOn(false)
    }
    let clock = SystemClock()
    var player = BuzzerPlayer()
    if config.buzzerKind == .active {
      player.start(BuzzerPattern(segments: [.init(on: true, duration: ms(200))], repeats: false), at: clock.now)
      try? player.drive(buzzer, at: clock.now)
    }
    if let tone, case .success(let scale) = RTTTL.parse(Self.scale) {
      melody.start(scale, gap: nil, at: clock.now)
      try? melody.drive(tone, duty: Volume.duty(config.volume), at: clock.now)
    } else if config.buzzerKind == .active {
      print("buzzer: one 200 ms beep now (if silent: wiring, or buzzer_active_high)")
    }
    print(problems == 0 ? "all checks passed." : "\(problems) problem(s) above.")
    print(
      "Turn the encoder and press the buttons\(config.presenceLine == nil ? "" : "; move before the presence sensor"); Ctrl-C ends."
    )

    var mapper = InputMapper(config: config, initialLevels: (try? inputs.levels()) ?? [])
    let waiter = try PollWaiter(clock: clock)
    var position = 0
    // As in `run`, lines whose read failed are no longer watched (they may stay readable).
    var linesWork = true
    while true {
      let deadline = [mapper.nextDeadline, player.nextChange(after: clock.now), melody.nextChange(after: clock.now)]
        .compactMap { $0 }.min()
      let watched = linesWork ? [inputs.pollDescriptor].compactMap { $0 } : []
      let wake = try waiter.wait(until: deadline, watching: watched)
      if !wake.signals.isEmpty { break }
      let now = clock.now
      try? player.drive(buzzer, at: now)
      if let tone { try? melody.drive(tone, duty: Volume.duty(config.volume), at: now) }
      var edges: [LineEdge] = []
      if linesWork {
        do {
          edges = try inputs.readEdges()
        } catch {
          linesWork = false
          print(
            "reading the input lines failed (\(HardwareAdvice.text(error))); inputs are ignored from now on: Ctrl-C ends"
          )
        }
      }
      var actions = mapper.feed(edges)
      actions += mapper.advance(to: now)
      for (_, action) in actions {
        switch action {
        case .engine(.turn(let steps)):
          position += steps
          print("encoder: \(steps > 0 ? "clockwise" : "counter-clockwise") (position \(position))")
        case .engine(.press(let b)): print("\(b.rawValue): click")
        case .engine(.longPress(let b)): print("\(b.rawValue): long press")
        case .buttonDown(let b): print("\(b.rawValue): down")
        case .presence(let active):
          print("presence: \(active ? "someone seen" : "nobody seen") (\(config.presenceLine ?? ""))")
        default: break
        }
      }
    }
    return problems == 0 ? ExitCode.ok : ExitCode.hardware
  }

  /// What the probe plays on a passive buzzer: a C major scale, C6 to C7.
  static let scale = "scale:d=8,o=6,b=180:c,d,e,f,g,a,b,4c7"

  /// A border, a diagonal and marked corners: shows a shifted (SH1106 as SSD1306), flipped or
  /// interleaved (wrong COM pins) picture at a glance.
  static func testPattern(height: Int) -> Framebuffer {
    var fb = Framebuffer(width: 128, height: height)
    for x in 0..<128 {
      fb.setPixel(x, 0)
      fb.setPixel(x, height - 1)
    }
    for y in 0..<height {
      fb.setPixel(0, y)
      fb.setPixel(127, y)
      fb.setPixel(y * 127 / (height - 1), y)
    }
    for d in 0..<6 {
      fb.setPixel(2 + d, 2)
      fb.setPixel(2, 2 + d)
    }
    return fb
  }
}

extension String {
  func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
