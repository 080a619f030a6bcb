import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures

/// Issue 29, item 1: 800 toggles in one write to the control socket of a device on the real
/// clock and the real loop (mock hardware, state.json on the real disk with every fsync
/// `delay` slower, as an SD card's), 5 times over, while the cancel button is pressed every 97 ms: how long
/// each press takes from its edge to the state it makes, the longest turn of the loop, the
/// watchdog's longest gap (pinged every second as the service does at half of WatchdogSec), and
/// how many saves the burst cost. The state is written by a thread of its own, as `pomodoro run`
/// writes it (`ThreadSaveWriter`); `--inline`: by the loop itself, as tests and scripts do.
/// `pomodoro-bench burst [--inline] [--verbose] [FSYNC_MS...]` (default 0 10 20).
func burstBench(fsyncDelays: [Int64], background: Bool = true, verbose: Bool) {
  for delay in fsyncDelays { burstBench(fsyncDelay: ms(delay), background: background, verbose: verbose) }
}

func burstBench(fsyncDelay: Nanoseconds, background: Bool, verbose: Bool) {
  let name = "burst\(background ? "" : ".inline").fsync_plus_\(fsyncDelay / 1_000_000)ms"
  let directory = "/tmp/pomodoro-bench-burst-\(getpid())"
  mkdir(directory, 0o700)
  defer {
    for file in ["state.json", "state.json.tmp", "history.jsonl", "c.sock"] { unlink(directory + "/" + file) }
    rmdir(directory)
  }
  let disk = SlowSyncFileSystem(delay: fsyncDelay)
  let (device, hardware, server, seen) = benchDevice(
    socket: directory + "/c.sock", storage: (directory, disk, background))
  let clock = seen.clock
  let config = device.config
  let savesBefore = device.saves

  // The client: 5 rounds of one write of 800 toggles, each followed by reading its 800 replies.
  let rounds = 5
  let client = try! UnixSocket.connect(server.path)
  let replies = Counter()
  let reader = Thread {
    var buffer = [UInt8](repeating: 0, count: 65536)
    let burst = Array(String(repeating: "{\"cmd\":\"toggle\"}\n", count: 800).utf8)
    for round in 1...rounds {
      _ = UnixSocket.writeAll(client, burst)
      while replies.value < 800 * round {
        let n = read(client, &buffer, buffer.count)
        if n <= 0 { return }
        replies.add(buffer[0..<n].filter { $0 == 0x0A }.count)
      }
    }
  }
  let began = clock.now
  reader.start()
  // Presses of cancel every 97 ms while the burst lasts (each ends a running or paused timer).
  let presses = (0..<200).map { began + ms(30) + Int64($0) * ms(97) }
  for at in presses { hardware.chip.schedulePress(config.buttonCancel, at: at, holding: ms(40)) }

  let waiter = BusyWaiter(try! PollWaiter(clock: clock), clock: clock)
  var pings: [Instant] = [began]
  var nextPing = began + seconds(1)
  var lastStep = began
  var longestTurn: Nanoseconds = 0
  var finished: Instant?
  _ = try? EventLoop.serve(
    device, waiter: waiter, extraDeadline: { nextPing }, sources: [server],
    onWake: { _ in
      if finished == nil && replies.value >= 800 * rounds { finished = clock.now }
      // On for a second after the burst, so that the presses then are measured too.
      return finished.map { clock.now - $0 < seconds(1) } ?? (clock.now - began < seconds(120))
    },
    onStep: {
      let now = clock.now
      longestTurn = max(longestTurn, now - lastStep)
      lastStep = now
      if now >= nextPing {
        pings.append(now)
        nextPing = now + seconds(1)
      }
    })
  server.close()
  device.shutdown()
  close(client)
  while !reader.isFinished { usleep(1000) }

  // Each press that found a timer: from its edge to the first idle state after it settled.
  let end = finished ?? clock.now
  let during = presses.filter { $0 < end }.count
  if verbose {
    print(
      "# presses during the burst \(during), changes \(seen.changes), saves \(device.saves), idle states \(seen.idleAt.map { Double($0 - began) / 1e6 })"
    )
  }
  let latencies = seen.latencies(presses, before: end, debounce: config.debounce)
  let gaps = zip(pings.dropFirst(), pings).map { Double($0 - $1) / 1e6 }
  figure("\(name).burst_800_toggles_wall", Double(end - began) / 1e6 / Double(rounds), "ms")
  figure("\(name).replies", Double(replies.value), "lines")
  figure("\(name).state_saves", Double(device.saves - savesBefore), "saves")
  figure("\(name).fsyncs", Double(disk.syncs), "fsyncs")
  figure("\(name).presses_measured", Double(latencies.count), "presses")
  if !latencies.isEmpty {
    figure("\(name).press_to_state_median", latencies[latencies.count / 2], "ms")
    figure("\(name).press_to_state_max", latencies.last!, "ms")
  }
  figure("\(name).press_debounce", Double(config.debounce) / 1e6, "ms")
  figure("\(name).longest_loop_turn", Double(longestTurn) / 1e6, "ms")
  figure("\(name).longest_busy_turn", Double(waiter.longestBusy) / 1e6, "ms")
  figure("\(name).watchdog_1s_pings_longest_gap", gaps.max() ?? 0, "ms")
}

final class Counter: @unchecked Sendable {
  let lock = NSLock()
  var count = 0
  var value: Int { lock.withLock { count } }
  func add(_ n: Int) { lock.withLock { count += n } }
}

/// A device on the mocks and the real clock for the benches, started, with its control socket at
/// `socket` and a `StateTimes` watching it; its state and history in `storage`'s directory on
/// its file system (written by a thread unless `background` is false), or nowhere.
func benchDevice(
  socket: String, storage: (directory: String, fs: FileSystem, background: Bool)? = nil, room: String? = nil
) -> (
  Device, MockHardware, ControlServer, StateTimes
) {
  let clock = SystemClock()
  var config = DeviceConfig()
  config.controlSocket = socket
  config.room = room
  if let storage { config.stateDirectory = storage.directory }
  let hardware = try! MockHardware(config: config, clock: clock)
  let seen = StateTimes(clock: clock)
  let device = Device(
    config: config, parts: hardware.parts, clock: clock, screen: .standard(height: 64),
    storage: storage.map { Storage(directory: $0.directory, fileSystem: $0.fs, writesInBackground: $0.background) },
    log: Log(sink: { _, _ in }))
  device.observer = seen
  let server = try! ControlServer(path: socket, device: device, log: Log(sink: { _, _ in }))
  device.start()
  return (device, hardware, server, seen)
}

/// 40 presses every 250 ms from 200 ms after `from`, start then cancel (every press changes the
/// state), scheduled on the mock chip: their instants.
func scheduleStartCancelPresses(_ hardware: MockHardware, _ config: DeviceConfig, from: Instant) -> [Instant] {
  let pressedAt = (0..<40).map { from + ms(200) + Int64($0) * ms(250) }
  for (i, at) in pressedAt.enumerated() {
    hardware.chip.schedulePress(i % 2 == 0 ? config.buttonStart : config.buttonCancel, at: at, holding: ms(40))
  }
  return pressedAt
}

/// Press-to-state in ms of each press in `pressedAt`: the first of the device's phase changes
/// `seen` at or after it and before the next press (a second for the last); none where none came.
func pressToState(_ pressedAt: [Instant], seen: [Instant]) -> [Double] {
  var samples: [Double] = []
  for (i, at) in pressedAt.enumerated() {
    let next = i + 1 < pressedAt.count ? pressedAt[i + 1] : at + seconds(1)
    if let t = seen.first(where: { $0 >= at }), t < next { samples.append(Double(t - at) / 1e6) }
  }
  return samples
}
