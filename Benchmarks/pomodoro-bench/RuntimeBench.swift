import PomodoroConfig
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// The device as a whole: start-up, memory, CPU per minute of countdown, a scripted 25-minute
/// focus headless, and the alarm's real-time error on the real clock.
func runtimeBench(quick: Bool) {
  headlessFocusBench()
  processBench()
  if quick {
    print("# realtime alarm error skipped (--quick)")
  } else {
    realtimeAlarmBench()
  }
}

/// A scripted 25-minute focus on the mocks and a virtual clock: how long it takes, the CPU a
/// minute of countdown costs the device (the same work as on the real clock: every wake renders
/// and flushes), and the bytes it puts on the bus.
func headlessFocusBench() {
  let lines = try! ScriptParser.parse("press start\nwait 25m\npress start\n", file: "bench")
  var frames = 0
  var bytes = 0
  var frameBytes: [Int] = []
  let wallStart = monotonicNanoseconds()
  let cpuStart = cpuNanoseconds()
  let runner = try! ScriptRunner(
    config: DeviceConfig(), screen: .standard(height: 64), log: Log(sink: { _, _ in }),
    write: { line in
      if line.contains("\"event\":\"frame\"") {
        frames += 1
        if let o = FlatJSON.decode(line), let b = o["bytes"]?.int {
          bytes += Int(b)
          frameBytes.append(Int(b))
        }
      }
    })
  runner.run(lines)
  let cpu = Double(cpuNanoseconds() - cpuStart)
  let wall = Double(monotonicNanoseconds() - wallStart)
  figure("headless.focus_25m_wall", wall / 1e6, "ms")
  figure("headless.focus_25m_frames", Double(frames), "frames")
  figure("device.cpu_per_minute_of_countdown", cpu / 25 / 1e6, "ms/min")
  figure("headless.focus_25m_i2c_bytes_per_second", Double(bytes) / 1500, "B/s")
  let sorted = frameBytes.dropFirst().sorted()
  if !sorted.isEmpty {
    figure("headless.frame_bytes_median", Double(sorted[sorted.count / 2]), "B")
    figure("headless.frame_bytes_max", Double(sorted.last!), "B")
  }
}

/// The built `pomodoro` as a process: start to first frame (a one-step script on the mocks:
/// process start, config, first frame, exit) and peak resident memory over a 25-minute script.
func processBench() {
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# process figures skipped: build \(binary) first (swift build -c release)")
    return
  }
  let quick = "/tmp/pomodoro-bench-quick.pomo"
  let long = "/tmp/pomodoro-bench-focus.pomo"
  writeText(quick, "wait 0s\n")
  writeText(long, "press start\nwait 25m\n")
  var best = Double.infinity
  for _ in 0..<10 {
    let start = monotonicNanoseconds()
    _ = spawnAndWait(binary, ["simulate", "--script", quick])
    best = min(best, Double(monotonicNanoseconds() - start))
  }
  figure("process.start_to_first_frame_and_exit", best / 1e6, "ms")
  let focus = spawnAndWait(binary, ["simulate", "--script", long])
  figure("process.peak_rss_25m_focus", Double(focus.peakKiB) / 1024, "MiB")
}

/// A 60-second focus on the real clock (mock hardware, the real poll/timerfd loop): how late
/// the buzzer line goes high after the deadline.
func realtimeAlarmBench() {
  let clock = SystemClock()
  var config = DeviceConfig()
  config.engine.presets[.focus] = seconds(60)
  let hardware = try! MockHardware(config: config, clock: clock)
  let device = Device(
    config: config, parts: hardware.parts, clock: clock, screen: .standard(height: 64), storage: nil,
    log: Log(sink: { _, _ in }))
  device.start()
  let pressAt = clock.now + ms(10)
  hardware.chip.schedulePress(config.buttonStart, at: pressAt)
  let deadline = pressAt + ms(80) + seconds(60)
  let waiter = try! PollWaiter(clock: clock)
  while clock.now < deadline + seconds(1) {
    device.step()
    _ = try? waiter.wait(until: device.nextDeadline.map { min($0, deadline + seconds(1)) }, watching: [])
  }
  device.shutdown()
  guard let on = hardware.chip.outputHistory(config.buzzer).first(where: { $0.active }) else {
    print("# realtime alarm: the buzzer never sounded")
    return
  }
  figure("realtime.alarm_error_over_60s", Double(on.time - deadline) / 1e3, "us")
}

func siblingBinary(_ name: String) -> String {
  let me = CommandLine.arguments[0]
  guard let slash = me.lastIndex(of: "/") else { return name }
  return String(me[..<slash]) + "/" + name
}

func writeText(_ path: String, _ text: String) {
  guard let f = fopen(path, "w") else { return }
  fputs(text, f)
  fclose(f)
}

/// What `spawnAndWait` saw of a child: its exit status, its own peak resident memory and the CPU
/// time it used (user + system, from wait4's rusage).
struct ChildRun {
  var status: Int32
  var peakKiB: Int
  var cpuNanoseconds: Int64
}

/// Runs `binary` with `args` to its end and prints its wall time, CPU time and peak resident
/// memory as `PREFIX.NAME_wall_SUFFIX`, `_cpu_` and `_peak_rss_` figures; false (and says so) when
/// it failed.
@discardableResult
func measureChild(
  _ prefix: String, _ name: String, suffix: String, _ binary: String, _ args: [String], stdout: String = "/dev/null"
) -> Bool {
  let began = monotonicNanoseconds()
  let run = spawnAndWait(binary, args, stdout: stdout)
  let wall = Double(monotonicNanoseconds() - began) / 1e9
  guard run.status == 0 else {
    print("# \(prefix).\(name) failed: exit status \(run.status)")
    return false
  }
  figure("\(prefix).\(name)_wall_\(suffix)", wall, "s")
  figure("\(prefix).\(name)_cpu_\(suffix)", Double(run.cpuNanoseconds) / 1e9, "s")
  figure("\(prefix).\(name)_peak_rss_\(suffix)", Double(run.peakKiB) / 1024, "MiB")
  return true
}

/// Runs `path` with `args`, stdout to the file `stdout` (/dev/null by default); returns the exit
/// status, the child's own peak resident memory in KiB, which it reports on stderr
/// (POMODORO_REPORT_PEAK_RSS), and the CPU time it used.
@discardableResult
func spawnAndWait(_ path: String, _ args: [String], stdout: String = "/dev/null") -> ChildRun {
  var pid: pid_t = 0
  var pipeFDs: [Int32] = [0, 0]
  pipe(&pipeFDs)
  #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
  #else
    var actions = posix_spawn_file_actions_t()
  #endif
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
  posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
  let argv = ([path] + args).map { strdup($0) } + [nil]
  let env: [UnsafeMutablePointer<CChar>?] = [strdup("POMODORO_REPORT_PEAK_RSS=1"), nil]
  defer { for p in argv + env { free(p) } }
  posix_spawn(&pid, path, &actions, nil, argv, env)
  posix_spawn_file_actions_destroy(&actions)
  close(pipeFDs[1])
  var output: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let n = read(pipeFDs[0], &buffer, buffer.count)
    if n <= 0 { break }
    output += buffer[0..<n]
  }
  close(pipeFDs[0])
  var status: Int32 = 0
  var usage = rusage()
  wait4(pid, &status, 0, &usage)
  func nanoseconds(_ t: timeval) -> Int64 { seconds(Int64(t.tv_sec)) + microseconds(Int64(t.tv_usec)) }
  let text = String(decoding: output, as: UTF8.self)
  let peak = text.split(separator: "\n").first { $0.hasPrefix("peak_rss_kib ") }.flatMap { Int($0.dropFirst(13)) } ?? 0
  return ChildRun(
    status: status, peakKiB: peak, cpuNanoseconds: nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime))
}
