import Foundation
import PomodoroControl
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures

/// Issue 29, item 1, through the broker: 3,000 and 20,000 toggles published at once on the
/// command topic of a real mosquitto on 127.0.0.1 (started here), through the real bridge
/// (`pomodoro mqtt`, a child process) to a device on the real clock and the real loop (mock
/// hardware, state.json on the real disk with every fsync `delay` slower, as an SD card's),
/// while its cancel button is pressed every 97 ms: each press's time from its edge to the state
/// it makes, the watchdog's longest gap (pinged every second), how many commands reached the
/// device (the bridge lets 10 a second through after a burst of 20: the rest are dropped by
/// design) and how long the run took. It ends 5 s after the last message is published.
/// `pomodoro-bench mqtt-burst [--inline] [--verbose] [FSYNC_MS...]` (default 10 20); `--inline`: the loop
/// writes the state itself (as tests do, and as `pomodoro run` did before its writer thread).
func mqttBurstBench(fsyncDelays: [Int64], background: Bool, verbose: Bool) {
  guard let mosquitto = findTool("mosquitto"), let pub = findTool("mosquitto_pub"),
    let sub = findTool("mosquitto_sub")
  else {
    print("# mqtt burst skipped: no mosquitto on the PATH (sudo apt install mosquitto mosquitto-clients)")
    return
  }
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# mqtt burst skipped: build \(binary) first (swift build --product pomodoro)")
    return
  }
  for delay in fsyncDelays {
    for toggles in [3000, 20000] {
      mqttBurst(
        toggles: toggles, fsyncDelay: ms(delay), background: background, tools: (mosquitto, pub, sub), binary: binary,
        verbose: verbose)
    }
  }
}

/// Sees each state change with the real clock's time it happened: the phases, the idle
/// states a cancel makes, and the changes of mode (a knob's push).
final class StateTimes: DeviceObserver {
  let clock: SystemClock
  var idleAt: [Instant] = []
  var phases: [(Instant, Phase)] = []
  var modeChanges: [Instant] = []
  var mode: Mode?
  var changes: Int { phases.count }
  init(clock: SystemClock) { self.clock = clock }
  func stateChanged(_ state: EngineState, at: Instant) {
    let now = clock.now
    phases.append((now, state.phase))
    if state.phase == .idle { idleAt.append(now) }
    if let mode, mode != state.mode { modeChanges.append(now) }
    mode = state.mode
  }
  func frameFlushed(bytes: Int, shown: String, at: Instant) {}
  func buzzerChanged(_ on: Bool, at: Instant) {}
  func recorded(_ entry: HistoryEntry, at: Instant) {}

  /// Whether a timer (running or paused) existed at `at`, as far as the loop had made it then.
  func timer(at: Instant) -> Bool {
    guard let last = phases.last(where: { $0.0 <= at }) else { return false }
    return last.1 == .running || last.1 == .paused
  }

  /// Each press of `presses` before `end` that found a timer at its edge (nothing but a cancel
  /// ends one, so it acts at its settled press-down): from its edge to the first idle state
  /// after it settled, in ms, sorted. A press that found none acts, if at all, at its release,
  /// on a timer a command started meanwhile: not counted.
  func latencies(_ presses: [Instant], before end: Instant, debounce: Nanoseconds) -> [Double] {
    var out: [Double] = []
    for at in presses where at < end && timer(at: at) {
      let settled = at + debounce
      guard let idle = idleAt.first(where: { $0 >= settled }), idle < settled + seconds(5) else { continue }
      out.append(Double(idle - at) / 1e6)
    }
    return out.sorted()
  }
}

func mqttBurst(
  toggles: Int, fsyncDelay: Nanoseconds, background: Bool, tools: (String, String, String), binary: String,
  verbose: Bool
) {
  let (mosquitto, pub, sub) = tools
  let name = "mqtt_burst\(background ? "" : ".inline").\(toggles)_toggles.fsync_plus_\(fsyncDelay / 1_000_000)ms"
  let directory = NSTemporaryDirectory() + "pomodoro-mqtt-burst-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  guard let port = freeLocalPort() else { return print("# mqtt burst skipped: no free port on 127.0.0.1") }
  writeText(directory + "/mosquitto.conf", "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n")
  guard let broker = launch(mosquitto, ["-c", directory + "/mosquitto.conf"]), waitForListener(port) else { return }
  defer { stopProcess(broker) }

  // The device, served by this thread's loop.
  let socketPath = directory + "/device.sock"
  let disk = SlowSyncFileSystem(delay: fsyncDelay)
  let (device, hardware, server, seen) = benchDevice(socket: socketPath, storage: (directory, disk, background))
  let clock = seen.clock
  let config = device.config

  // The bridge, and a subscriber that says when it has published the device's state (it is
  // subscribed to its command topic by then).
  let conf = directory + "/bridge.conf"
  writeText(
    conf,
    "control_socket = \(socketPath)\nmqtt_host = 127.0.0.1\nmqtt_port = \(port)\nmqtt_device_id = bench\n")
  let bridge = Process()
  bridge.executableURL = URL(fileURLWithPath: binary)
  bridge.arguments = ["mqtt", "--config", conf]
  bridge.standardOutput = FileHandle.nullDevice
  FileManager.default.createFile(atPath: directory + "/bridge.log", contents: nil)
  bridge.standardError = FileHandle(forWritingAtPath: directory + "/bridge.log")
  guard (try? bridge.run()) != nil else { return print("# mqtt burst skipped: cannot start \(binary)") }
  defer { stopProcess(bridge) }
  guard
    let ready = launch(
      sub, ["-h", "127.0.0.1", "-p", String(port), "-t", "pomodoro/bench/state", "-C", "1", "-W", "20"])
  else { return }
  // The publisher: all the toggles in one `mosquitto_pub -l` (a message a line), once the bridge is up.
  let lines = Data(String(repeating: "toggle\n", count: toggles).utf8)
  let publishing = Flag()
  let published = Flag()
  let publishedAt = Counter()
  nonisolated(unsafe) let subscriber = ready
  // The publisher wakes the loop when it starts (a byte down this pipe).
  var wake: [Int32] = [-1, -1]
  _ = pipe(&wake)
  let (wakeRead, wakeWrite) = (wake[0], wake[1])
  defer {
    close(wakeRead)
    close(wakeWrite)
  }
  let publisher = Thread {
    subscriber.waitUntilExit()
    guard
      let p = launch(
        pub, ["-h", "127.0.0.1", "-p", String(port), "-t", "pomodoro/bench/command", "-l"], input: true),
      let input = p.standardInput as? Pipe
    else { return published.set() }
    publishing.set()
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
    input.fileHandleForWriting.write(lines)
    try? input.fileHandleForWriting.close()
    p.waitUntilExit()
    publishedAt.add(Int(monotonicNanoseconds()))
    published.set()
  }
  publisher.start()

  let waiter = BusyWaiter(try! PollWaiter(clock: clock), clock: clock)
  let began = clock.now
  var pings: [Instant] = [began]
  var nextPing = began + seconds(1)
  // Cancel pressed every 97 ms from the start until the run ends (at most 2 minutes), and start
  // 48 ms after each: the bridge lets about 20 of the toggles through, all at once, so without
  // it nearly every cancel would find no timer to end. The cancels are measured.
  let presses = (0..<1300).map { began + ms(30) + Int64($0) * ms(97) }
  for at in presses {
    hardware.chip.schedulePress(config.buttonCancel, at: at, holding: ms(30))
    hardware.chip.schedulePress(config.buttonStart, at: at + ms(48), holding: ms(30))
  }
  var requestsBefore = 0
  var publishStart: Instant?
  _ = try? EventLoop.serve(
    device, waiter: waiter, extraDeadline: { nextPing }, watching: [wakeRead], sources: [server],
    onWake: { wake in
      let now = clock.now
      if wake.readable.contains(wakeRead) {
        var byte: UInt8 = 0
        _ = read(wakeRead, &byte, 1)
      }
      if publishStart == nil && publishing.value {
        publishStart = now
        requestsBefore = server.requests
      }
      if published.value {
        let last = Instant(nanoseconds: Int64(publishedAt.value))
        return now - last < seconds(5)
      }
      return now - began < seconds(120)
    },
    onStep: {
      let now = clock.now
      if now >= nextPing {
        pings.append(now)
        nextPing = now + seconds(1)
      }
    })
  let end = clock.now
  let requests = server.requests - requestsBefore
  server.close()
  device.shutdown()
  while !publisher.isFinished { usleep(1000) }
  guard let start = publishStart else { return print("# \(name): the bridge never published the device's state") }
  let lastPublish = Instant(nanoseconds: Int64(publishedAt.value))
  // The presses from the first message published on.
  let latencies = seen.latencies(presses.filter { $0 >= start }, before: end, debounce: config.debounce)
  let gaps = zip(pings.dropFirst(), pings).map { Double($0 - $1) / 1e6 }
  figure("\(name).publish_wall", Double(lastPublish - start) / 1e6, "ms")
  figure("\(name).run_wall", Double(end - start) / 1e6, "ms")
  figure("\(name).requests_reaching_device", Double(requests), "requests")
  figure("\(name).state_saves", Double(device.saves), "saves")
  figure("\(name).fsyncs", Double(disk.syncs), "fsyncs")
  figure("\(name).presses_measured", Double(latencies.count), "presses")
  if !latencies.isEmpty {
    figure("\(name).press_to_state_median", latencies[latencies.count / 2], "ms")
    figure("\(name).press_to_state_max", latencies.last!, "ms")
  }
  figure("\(name).longest_busy_turn", Double(waiter.longestBusy) / 1e6, "ms")
  figure("\(name).watchdog_1s_pings_longest_gap", gaps.max() ?? 0, "ms")
  // What the bridge said of the commands it dropped.
  stopProcess(bridge)
  let said = (try? String(contentsOfFile: directory + "/bridge.log", encoding: .utf8)) ?? ""
  for line in said.split(separator: "\n") where line.contains("drop") || verbose {
    print("# bridge: \(line)")
  }
}

/// The loop's waiter, timing what the loop does between two waits: the longest time it was
/// awake at a stretch, all of which a press that came then waited for.
final class BusyWaiter: Waiter {
  let inner: Waiter
  let clock: SystemClock
  var woke: Instant?
  var longestBusy: Nanoseconds = 0
  init(_ inner: Waiter, clock: SystemClock) {
    self.inner = inner
    self.clock = clock
  }
  func wait(until deadline: Instant?, watching extra: [Int32]) throws -> Wake {
    try wait(until: deadline, watching: extra, writable: [])
  }
  func wait(until deadline: Instant?, watching extra: [Int32], writable: [Int32]) throws -> Wake {
    if let woke { longestBusy = max(longestBusy, clock.now - woke) }
    defer { woke = clock.now }
    return try inner.wait(until: deadline, watching: extra, writable: writable)
  }
}

final class Flag: @unchecked Sendable {
  let lock = NSLock()
  var flag = false
  var value: Bool { lock.withLock { flag } }
  func set() { lock.withLock { flag = true } }
}
