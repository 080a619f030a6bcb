import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem
import PomodoroTestFixtures

/// Issue 34, item 5: 8 clients each sending 400 `config_set`s (the focus preset, a new value each
/// time) in one write to the control socket of a device on the real clock and the real loop
/// (mock hardware, state.json and settings.conf on the real disk with every fsync `delay`
/// slower, as an SD card's), while the cancel button is pressed every 97 ms and start 48 ms
/// after each: how long each cancel takes from its edge to the idle state it makes, the
/// watchdog's longest gap (pinged every second), the loop's longest busy turn, and how many
/// saves and fsyncs the 3,200 sets cost. `pomodoro-bench settings-burst [--inline] [FSYNC_MS...]`
/// (default 10 20).
func settingsBurstBench(fsyncDelays: [Int64], background: Bool = true) {
  for delay in fsyncDelays { settingsBurstBench(fsyncDelay: ms(delay), background: background) }
}

func settingsBurstBench(fsyncDelay: Nanoseconds, background: Bool) {
  let name = "settings_burst\(background ? "" : ".inline").fsync_plus_\(fsyncDelay / 1_000_000)ms"
  let directory = "/tmp/pomodoro-bench-settings-\(getpid())"
  mkdir(directory, 0o700)
  defer {
    for file in ["state.json", "state.json.tmp", "history.jsonl", "settings.conf", "settings.conf.tmp", "c.sock"] {
      unlink(directory + "/" + file)
    }
    rmdir(directory)
  }
  let disk = SlowSyncFileSystem(delay: fsyncDelay)
  let (device, hardware, server, seen) = benchDevice(
    socket: directory + "/c.sock", storage: (directory, disk, background))
  let clock = seen.clock
  let config = device.config
  let savesBefore = device.saves

  // The clients: 8, each one write of 400 sets, then reading its 400 replies (and item lines).
  let clients = 8
  let sets = 400
  let replies = Counter()
  var readers: [Thread] = []
  for c in 0..<clients {
    let fd = try! UnixSocket.connect(server.path)
    readers.append(
      Thread {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let burst = (0..<sets).map {
          "{\"cmd\":\"config_set\",\"key\":\"focus\",\"value\":\"\(20 + ($0 + c) % 30)m\"}\n"
        }
        _ = UnixSocket.writeAll(fd, Array(burst.joined().utf8))
        var got = 0
        while got < sets {
          let n = read(fd, &buffer, buffer.count)
          if n <= 0 { break }
          let ok = buffer[0..<n].split(separator: 0x0A).filter { $0.starts(with: Array("{\"ok\"".utf8)) }.count
          got += ok
          replies.add(ok)
        }
        close(fd)
      })
  }
  let began = clock.now
  for reader in readers { reader.start() }
  let presses = (0..<400).map { began + ms(30) + Int64($0) * ms(97) }
  for at in presses {
    hardware.chip.schedulePress(config.buttonCancel, at: at, holding: ms(30))
    hardware.chip.schedulePress(config.buttonStart, at: at + ms(48), holding: ms(30))
  }

  let waiter = BusyWaiter(try! PollWaiter(clock: clock), clock: clock)
  var pings: [Instant] = [began]
  var nextPing = began + seconds(1)
  var finished: Instant?
  _ = try? EventLoop.serve(
    device, waiter: waiter, extraDeadline: { nextPing }, sources: [server],
    onWake: { _ in
      if finished == nil && replies.value >= clients * sets { finished = clock.now }
      return finished.map { clock.now - $0 < seconds(1) } ?? (clock.now - began < seconds(120))
    },
    onStep: {
      let now = clock.now
      if now >= nextPing {
        pings.append(now)
        nextPing = now + seconds(1)
      }
    })
  server.close()
  device.shutdown()
  for reader in readers { while !reader.isFinished { usleep(1000) } }

  let end = finished ?? clock.now
  let latencies = seen.latencies(presses, before: end, debounce: config.debounce)
  let gaps = zip(pings.dropFirst(), pings).map { Double($0 - $1) / 1e6 }
  figure("\(name).sets_8x400_wall", Double(end - began) / 1e6, "ms")
  figure("\(name).replies", Double(replies.value), "lines")
  figure("\(name).saves", Double(device.saves - savesBefore), "saves")
  figure("\(name).fsyncs", Double(disk.syncs), "fsyncs")
  figure("\(name).presses_measured", Double(latencies.count), "presses")
  if !latencies.isEmpty {
    figure("\(name).press_to_state_median", latencies[latencies.count / 2], "ms")
    figure("\(name).press_to_state_max", latencies.last!, "ms")
  }
  figure("\(name).press_debounce", Double(config.debounce) / 1e6, "ms")
  figure("\(name).longest_busy_turn", Double(waiter.longestBusy) / 1e6, "ms")
  figure("\(name).watchdog_1s_pings_longest_gap", gaps.max() ?? 0, "ms")
}
