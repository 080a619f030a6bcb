import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The device as a service on a history of 100 lines and of a million (one line in ten torn by
/// a power cut, a session every 10 minutes up to now: 19 years of a busy desk): the time from
/// spawning it to READY=1 on its notify socket, its peak resident memory, and the journal lines
/// it wrote about damaged lines. Today's count reads the history from its end, so the two
/// histories should cost the same (the aim: READY within 50 ms, memory within 1 MiB of each other).
/// Last, the worst case: a device whose clock is not synchronised and reads 1970, so that no
/// record of the history is of an earlier day and the count reads it all, from its end.
func readyBench() {
  for (lines, unsynced) in [(100, false), (1_000_000, false), (1_000_000, true)] {
    guard let run = deviceReady(historyLines: lines, unsynced: unsynced) else { continue }
    let size = (lines == 100 ? "100_lines" : "1m_lines") + (unsynced ? "_clock_unsynced_1970" : "")
    figure("device.ready_\(size)", run.ready * 1000, "ms")
    figure("device.cpu_to_ready_\(size)", run.cpu * 1000, "ms")
    figure("device.peak_rss_\(size)", Double(run.peakKiB) / 1024, "MiB")
    figure("device.damaged_line_messages_\(size)", Double(run.damagedMessages), "lines")
  }
}

struct ReadyRun {
  var ready: Double
  /// The child's CPU time (user + system): it idles from READY=1 to SIGTERM, so this is what its
  /// start cost, steadier than `ready` on a busy machine.
  var cpu: Double
  var peakKiB: Int
  var damagedMessages: Int
}

/// Writes the history, runs `pomodoro-bench ready-child DIR` (the device on mock hardware with
/// its state in DIR, as `pomodoro run`), waits for READY=1, stops it with SIGTERM.
func deviceReady(historyLines lines: Int, unsynced: Bool) -> ReadyRun? {
  let directory = "/tmp/pomodoro-bench-ready"
  let history = directory + "/history.jsonl"
  let socketPath = directory + "/notify"
  let errors = directory + "/stderr"
  mkdir(directory, 0o755)
  defer {
    for file in [history, socketPath, errors, directory + "/state.json"] { unlink(file) }
    rmdir(directory)
  }
  guard let file = fopen(history, "w") else { return nil }
  let now = WallTime.now().epochSeconds
  let modes = Mode.allCases
  for i in 0..<lines {
    if i % 10 == 9 {
      fputs("{\"ended\":\"2026-11-30T1\n", file)
      continue
    }
    let record = SessionRecord(
      mode: modes[i % modes.count], outcome: i % 7 == 0 ? .cancelled : .completed, planned: minutes(25),
      actual: minutes(25), endedAt: .zero)
    let ended = WallTime(epochSeconds: now - Int64(lines - i) * 600, synced: true)
    fputs(HistoryEntry(ended: ended, record: record).jsonLine + "\n", file)
  }
  fclose(file)

  let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &address.sun_path) { raw in
    for (i, byte) in socketPath.utf8.enumerated() { raw[i] = byte }
  }
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
  }
  guard bound == 0 else {
    print("# device.ready skipped: cannot bind \(socketPath)")
    return nil
  }

  var pid: pid_t = 0
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  let words: [String] = ["/proc/self/exe", "ready-child", directory] + (unsynced ? ["--unsynced"] : [])
  let argv = words.map { strdup($0) } + [nil]
  let env: [UnsafeMutablePointer<CChar>?] = [strdup("NOTIFY_SOCKET=" + socketPath), nil]
  defer { for p in argv + env { free(p) } }
  let began = monotonicNanoseconds()
  guard posix_spawn(&pid, "/proc/self/exe", &actions, nil, argv, env) == 0 else { return nil }
  posix_spawn_file_actions_destroy(&actions)
  var ready: Double?
  var message = [UInt8](repeating: 0, count: 4096)
  while ready == nil {
    var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&watch, 1, 60_000) == 1 else { break }
    let n = recv(fd, &message, message.count, 0)
    if n > 0, String(decoding: message[0..<n], as: UTF8.self).split(separator: "\n").contains("READY=1") {
      ready = Double(monotonicNanoseconds() - began) / 1e9
    }
  }
  kill(pid, SIGTERM)
  var status: Int32 = 0
  var usage = rusage()
  wait4(pid, &status, 0, &usage)
  guard let ready else {
    print("# device.ready: no READY=1 within 60 s (\(lines) history lines)")
    return nil
  }
  let log = (try? Files.readText(errors, limit: 1 << 30)) ?? ""
  let damaged = log.split(separator: "\n").filter { $0.contains("damaged") }.count
  func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
  return ReadyRun(
    ready: ready, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime), peakKiB: Int(usage.ru_maxrss),
    damagedMessages: damaged)
}

/// The child: the device as `pomodoro run` serves it (DeviceService: start, READY=1, the loop
/// until SIGTERM), on mock hardware, with its state and history in `directory`, its wall clock
/// the real one or (`unsynced`) an unsynchronised one at 1970-01-03; exits with the service's code.
func readyChild(directory: String, unsynced: Bool) -> Int32 {
  readyService(directory: directory, unsynced: unsynced)
}

func readyService(directory: String, unsynced: Bool) -> Int32 {
  let clock = SystemClock()
  var config = DeviceConfig()
  config.stateDirectory = directory
  let log = Log()
  guard let hardware = try? MockHardware(config: config, clock: clock), let waiter = try? PollWaiter(clock: clock)
  else { return ExitCode.failure }
  let wall: () -> WallTime = {
    let real: WallTime = WallTime.now()
    return unsynced ? WallTime(epochSeconds: 2 * 86_400, synced: false) : real
  }
  let device = Device(
    config: config, parts: hardware.parts, clock: clock, screen: .standard(height: config.height),
    storage: Storage(directory: directory), log: log,
    wallClock: wall)
  let notify = SystemdNotify(environment: ["NOTIFY_SOCKET": getenv("NOTIFY_SOCKET").map { String(cString: $0) } ?? ""])
  return DeviceService(device: device, notify: notify, log: log).serve(waiter: waiter)
}
