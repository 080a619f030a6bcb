import Foundation
import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSimulator
import PomodoroSystem

/// Issue 36 item 5: a room of DESKS desks (50 by default) on one real mosquitto (127.0.0.1, a
/// free port, its config in a folder of its own). Each desk is a process of its own: the device
/// on the mock hardware and the real clock, served as `pomodoro run` serves it (`room-desk`:
/// DeviceService, its control socket, its state on the disk), and its bridge, the real
/// `pomodoro mqtt`, all in the room `bench` with the ids desk-01... (clocks trusted, as desks with
/// NTP: a timesync flag of the bench's own, `POMODORO_TIMESYNC_FLAG`). The bench watches every desk
/// through its control socket (`watch`: an event at each change) and counts every message the
/// broker takes (`mosquitto_sub -v -t '#'`), by topic: the room's session, its member messages,
/// the desks' state (`pomodoro/<desk>/state`, the bridge's Home Assistant side) and the rest.
///
/// - `rounds` times (10): `ctl start` on one desk (a different one each round), the time to
///   each desk's event `running` in the new session (room_rev, room_by), and to the last; the
///   messages it cost, counted until the broker has been quiet for 2 s; then pause and resume
///   from two other desks (the same), skip from a fourth (all in the break) and again (the
///   session ended, every desk idle).
/// - In the first round, the messages over 10 s of the running focus (none, if traffic grows
///   with changes only).
/// - `alarms` times (3): a 5 s focus (`set`, the dial's shortest) started on one desk; the
///   spread between the first and last desk's `ringing` event as the bench sees them. Each desk
///   acknowledges its own alarm, follows the room's break, which one skip ends.
/// - Where each desk's timer ends (its time left over `status`, on the monotonic clock every
///   process here shares) after each start and each alarm's start: their spread.
/// - The CPU the broker, the desks and the bridges used over it all, their peak memory, and the
///   machine's load before and after (the figures mean little on a machine busy with other work).
/// Exits 1 when a desk never follows (each wait is 30 s at most) or the room never forms.
/// `--long`: desk ids of 39 characters and a label of 40 on every desk (their `room_status` line
/// passes the desk's 4 KiB request limit at about 37 desks: docs/room.md, Scale).
/// `pomodoro-bench room [DESKS] [--rounds K] [--alarms A] [--long] [--work DIR]` (DIR keeps every
/// desk's config and logs); needs `pomodoro` beside this binary, built with libmosquitto.
/// `room`'s defaults (its words: `Bench.commands`).
enum RoomBench {
  static let desks = 50
  static let rounds = 10
  static let alarms = 3
}

func roomBenchRun(desks: Int, rounds: Int, alarms: Int, work: String?, long: Bool) -> Int32 {
  guard let mosquitto = findTool("mosquitto"), let sub = findTool("mosquitto_sub") else {
    print("# room skipped: no mosquitto on the PATH (sudo apt install mosquitto mosquitto-clients)")
    return ExitCode.ok
  }
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0, let port = freeLocalPort() else {
    print("# room skipped: build \(binary) first (swift build --product pomodoro), and a free port on 127.0.0.1")
    return ExitCode.ok
  }
  let directory = work ?? NSTemporaryDirectory() + "pomodoro-room-bench-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { if work == nil { try? FileManager.default.removeItem(atPath: directory) } }
  let run = RoomRun(desks: desks, directory: directory, port: port, long: long)
  defer { run.stop() }
  guard run.start(mosquitto: mosquitto, sub: sub, binary: binary) else { return ExitCode.failure }
  return run.measure(rounds: rounds, alarms: alarms) ? ExitCode.ok : ExitCode.failure
}

/// The child: one desk, the device on the mock hardware and the real clock as `pomodoro run`
/// serves it (its control socket, its state in `state_dir`), with the config file `path`.
func roomDesk(config path: String) -> Int32 {
  guard let text = try? Files.readText(path), let config = try? ConfigParser.parse(text, file: path),
    let socket = config.controlSocket
  else {
    print("room-desk: cannot read the config \(path)")
    return ExitCode.config
  }
  let clock = SystemClock()
  let log = Log()
  try? Files.makeDirectories(config.stateDirectory)
  guard let hardware = try? MockHardware(config: config, clock: clock), let waiter = try? PollWaiter(clock: clock)
  else { return ExitCode.failure }
  let device = Device(
    config: config, parts: hardware.parts, clock: clock, screen: .standard(height: config.height),
    storage: Storage(directory: config.stateDirectory, writesInBackground: true), log: log, configFile: path,
    configLines: ConfigParser.lines(in: text))
  try? Signals.watch([SIGQUIT])
  let service = DeviceService(
    device: device, notify: SystemdNotify(environment: [:]), log: log, configFile: path)
  do {
    service.control = try ControlServer(path: socket, device: device, log: log)
  } catch {
    print("room-desk: \(error)")
    return ExitCode.failure
  }
  return service.serve(waiter: waiter)
}

/// What the bench last heard of a desk (its watch events).
struct RoomDeskView {
  var phase = ""
  var mode = ""
  var members = 0
  var following = false
  var rev: Int64 = 0
  var by = ""
  var roomState = ""
  var events = 0
}

/// The room's processes, the watchers and the counter, in the bench's one loop.
final class RoomRun {
  let count: Int
  let directory: String
  let port: Int
  let ids: [String]
  var broker: pid_t = 0
  var deskPIDs: [pid_t] = []
  var bridgePIDs: [pid_t] = []
  var counter: Process?
  var counterFD: Int32 = -1
  var counterBuffer = LineBuffer(limit: 1 << 16)
  var watchFDs: [Int32] = []
  var watchBuffers: [LineBuffer] = []
  var views: [RoomDeskView] = []
  /// Messages the broker took, by kind (session, member, state, other), and when the last came.
  var messages: [String: Int] = [:]
  var lastRoomMessage: Int64 = 0
  var lastMessage: Int64 = 0
  /// The first time each desk's view met what `waitAll` waits for.
  var met: [Int64?] = []

  /// Labels set on every desk before the room forms (`--long`: 40 characters), or none.
  let label: String?

  init(desks: Int, directory: String, port: Int, long: Bool) {
    count = desks
    self.directory = directory
    self.port = port
    let prefix = long ? "desk-on-the-third-floor-east-wing-nr-" : "desk-"
    ids = (1...desks).map { prefix + ($0 < 10 ? "0" : "") + String($0) }
    label = long ? "Quarterly report, section 4: the figures" : nil
    views = Array(repeating: RoomDeskView(), count: desks)
  }

  func deskDirectory(_ i: Int) -> String { directory + "/" + ids[i] }
  func socketPath(_ i: Int) -> String { deskDirectory(i) + "/control.sock" }

  /// The broker, the counter, every desk and its bridge; true once every desk counts the room.
  func start(mosquitto: String, sub: String, binary: String) -> Bool {
    writeText(
      directory + "/mosquitto.conf",
      "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\nmax_queued_messages 100000\n"
    )
    broker = spawnLogged(mosquitto, ["-c", directory + "/mosquitto.conf"], log: directory + "/mosquitto.log")
    guard broker > 0, waitForListener(port) else {
      print("# room: the broker did not listen on 127.0.0.1:\(port) within 5 s")
      return false
    }
    guard
      let c = launch(
        sub, ["-h", "127.0.0.1", "-p", String(port), "--nodelay", "-q", "1", "-v", "-t", "#"], pipe: true)
    else { return false }
    counter = c
    counterFD = (c.standardOutput as! Pipe).fileHandleForReading.fileDescriptor
    let flag = directory + "/synced"
    writeText(flag, "")
    let me = executablePath()
    let began = monotonicNanoseconds()
    for i in 0..<count {
      let d = deskDirectory(i)
      try? FileManager.default.createDirectory(atPath: d + "/state", withIntermediateDirectories: true)
      writeText(
        d + "/pomodoro.conf",
        [
          "control_socket = \(socketPath(i))", "state_dir = \(d)/state", "room = bench", "mqtt_host = 127.0.0.1",
          "mqtt_port = \(port)", "mqtt_device_id = \(ids[i])",
        ].joined(separator: "\n") + "\n")
      deskPIDs.append(spawnLogged(me, ["room-desk", d + "/pomodoro.conf"], log: d + "/desk.log"))
    }
    for i in 0..<count {
      var fd: Int32 = -1
      for _ in 0..<200 {
        if let c = try? UnixSocket.connect(socketPath(i)) {
          fd = c
          break
        }
        usleep(50_000)
      }
      guard fd >= 0, UnixSocket.writeAll(fd, Array("{\"cmd\":\"watch\"}\n".utf8)) else {
        print("# room: \(ids[i])'s control socket did not answer within 10 s (\(deskDirectory(i))/desk.log)")
        return false
      }
      UnixSocket.setNonBlocking(fd)
      if let label, !request(i, "label", extra: ",\"text\":\"\(label)\"") { return false }
      watchFDs.append(fd)
      watchBuffers.append(LineBuffer(limit: 1 << 20))
    }
    for i in 0..<count {
      bridgePIDs.append(
        spawnLogged(
          binary, ["mqtt", "--config", deskDirectory(i) + "/pomodoro.conf"], log: deskDirectory(i) + "/bridge.log",
          environment: ["POMODORO_TIMESYNC_FLAG=" + flag]))
    }
    guard waitAll("every desk counts \(count) members", limit: seconds(60), { $0.members == self.count }) != nil
    else { return false }
    let formed = Double(monotonicNanoseconds() - began) / 1e6
    print(
      "# room: \(count) desks, each a device (room-desk) and its bridge (pomodoro mqtt), mosquitto on 127.0.0.1:\(port)"
    )
    figure("room.\(count)_desks.formed", formed, "ms")
    figure("room.\(count)_desks.messages_to_form", Double(messages.values.reduce(0, +)), "messages")
    return true
  }

  /// The rounds, the alarms and the CPU; false when a desk never followed.
  func measure(rounds: Int, alarms: Int) -> Bool {
    let name = "room.\(count)_desks"
    let cpuBefore = cpuTimes()
    let began = monotonicNanoseconds()
    var toLast: [Double] = []
    var perDesk: [Double] = []
    var perAction: [String: [Int]] = [:]
    var deliveredPerStart: [Int] = []
    var statePerStart: [Int] = []
    var ends: [(spread: Double, others: Double, originEarly: Double, error: Double)] = []
    figure("\(name).load_average_before", loadAverage(), "")
    _ = quiet()
    let roundsBefore = messages
    for round in 0..<rounds {
      let origin = (round * 7) % count
      let rev = views.map(\.rev).max() ?? 0
      let before = messages
      let sent = monotonicNanoseconds()
      guard request(origin, "start"),
        let times = waitAll(
          "running in the session \(ids[origin]) started",
          { $0.phase == "running" && $0.by == self.ids[origin] && $0.rev > rev })
      else { return false }
      toLast.append(Double(times.max()! - sent) / 1e6)
      for (i, t) in times.enumerated() where i != origin { perDesk.append(Double(t - sent) / 1e6) }
      guard let end = endSpread(origin: origin) else { return false }
      ends.append(end)
      _ = quiet()
      let states = messages["state", default: 0] - before["state", default: 0]
      perAction["start", default: []].append(roomMessages(since: before))
      statePerStart.append(states)
      // Every room message goes to each desk's room connection and the counter; a state to the counter.
      deliveredPerStart.append(roomMessages(since: before) * (count + 1) + states)
      if round == 0 {
        let running = messages
        pump(until: monotonicNanoseconds() + seconds(10))
        figure("\(name).room_messages_10s_running", Double(roomMessages(since: running)), "messages")
        figure(
          "\(name).state_messages_10s_running",
          Double(messages["state", default: 0] - running["state", default: 0]), "messages")
        figure(
          "\(name).other_messages_10s_running",
          Double(messages["other", default: 0] - running["other", default: 0]), "messages")
      }
      let steps: [(String, Int, (RoomDeskView) -> Bool)] = [
        ("pause", (origin + 1) % count, { $0.phase == "paused" }),
        ("resume", (origin + 2) % count, { $0.phase == "running" && $0.roomState == "running" }),
        ("skip", (origin + 3) % count, { $0.phase == "running" && $0.mode != "focus" }),
        ("skip", (origin + 3) % count, { $0.phase == "idle" && $0.roomState == "ended" }),
      ]
      for (command, desk, done) in steps {
        let before = messages
        let now = views.map(\.rev).max() ?? 0
        guard request(desk, command), waitAll("\(command) from \(ids[desk])", { $0.rev > now && done($0) }) != nil
        else { return false }
        _ = quiet()
        perAction[command, default: []].append(roomMessages(since: before))
      }
    }
    // Over all the rounds' actions: robust where a window's edge is not (a loaded machine can
    // hold the counter's messages past the 2 s of quiet that ends a window).
    _ = quiet()
    pump(until: monotonicNanoseconds() + seconds(3))
    figure(
      "\(name).room_messages_per_action.mean", Double(roomMessages(since: roundsBefore)) / Double(rounds * 5),
      "messages")
    report("\(name).start_to_last_desk_running", toLast)
    report("\(name).start_to_each_desk_running", perDesk)
    for action in ["start", "pause", "resume", "skip"] {
      guard let counts = perAction[action], !counts.isEmpty else { continue }
      figure("\(name).room_messages_per_\(action).max", Double(counts.max()!), "messages")
      figure("\(name).room_messages_per_\(action).min", Double(counts.min()!), "messages")
    }
    if let most = deliveredPerStart.max(), let states = statePerStart.max() {
      figure("\(name).state_messages_per_start.max", Double(states), "messages")
      figure("\(name).deliveries_per_start.max", Double(most), "deliveries")
    }
    if let worst = ends.max(by: { $0.spread < $1.spread }) {
      figure("\(name).end_spread_after_start.max", worst.spread, "ms")
      figure("\(name).end_spread_after_start.median", ends.map(\.spread).sorted()[ends.count / 2], "ms")
      figure("\(name).end_spread_reading_error.max", ends.map(\.error).max()!, "ms")
      figure("\(name).end_spread_without_the_starting_desk.max", ends.map(\.others).max()!, "ms")
      figure(
        "\(name).starting_desk_ends_before_the_others.median", ends.map(\.originEarly).sorted()[ends.count / 2], "ms")
    }

    var spreads: [Double] = []
    var alarmEnds: [Double] = []
    for round in 0..<alarms {
      let origin = (round * 11 + 5) % count
      let rev = views.map(\.rev).max() ?? 0
      guard request(origin, "set", extra: ",\"mode\":\"focus\",\"duration\":\"5s\""), request(origin, "start"),
        waitAll("running the 5 s focus", { $0.phase == "running" && $0.rev > rev }) != nil,
        let end = endSpread(origin: origin), let rang = waitAll("ringing", { $0.phase == "ringing" })
      else { return false }
      spreads.append(Double(rang.max()! - rang.min()!) / 1e6)
      alarmEnds.append(end.spread)
      for i in 0..<count { _ = request(i, "ack") }
      guard waitAll("in the room's break after the alarm", { $0.phase == "running" && $0.mode != "focus" }) != nil
      else { return false }
      let now = views.map(\.rev).max() ?? 0
      guard request(origin, "skip"), waitAll("idle after the break", { $0.rev > now && $0.phase == "idle" }) != nil
      else { return false }
      _ = quiet()
    }
    if !spreads.isEmpty {
      figure("\(name).alarm_spread.max", spreads.max()!, "ms")
      figure("\(name).alarm_spread.median", spreads.sorted()[spreads.count / 2], "ms")
      figure("\(name).alarm_end_spread.max", alarmEnds.max()!, "ms")
    }

    figure("\(name).load_average_after", loadAverage(), "")
    let wall = Double(monotonicNanoseconds() - began) / 1e9
    let cpuAfter = cpuTimes()
    figure("\(name).measured_for", wall, "s")
    for (i, part) in ["broker", "desks", "bridges"].enumerated() {
      let used = Double(cpuAfter[i] - cpuBefore[i]) / 1e6 / wall
      figure("\(name).cpu_\(part)", used, "ms/s")
      if part != "broker" { figure("\(name).cpu_\(part)_per_desk", used / Double(count), "ms/s") }
    }
    let rss = bridgePIDs.map { peakResidentKiB($0) } + deskPIDs.map { peakResidentKiB($0) }
    figure("\(name).peak_rss_broker", Double(peakResidentKiB(broker)) / 1024, "MiB")
    figure("\(name).peak_rss_desk_max", Double(deskPIDs.map { peakResidentKiB($0) }.max() ?? 0) / 1024, "MiB")
    figure("\(name).peak_rss_bridge_max", Double(bridgePIDs.map { peakResidentKiB($0) }.max() ?? 0) / 1024, "MiB")
    figure("\(name).peak_rss_all", Double(rss.reduce(0, +) + peakResidentKiB(broker)) / 1024, "MiB")
    return true
  }

  /// The messages on the room's topics since `before`.
  func roomMessages(since before: [String: Int]) -> Int {
    messages["session", default: 0] + messages["member", default: 0] - before["session", default: 0]
      - before["member", default: 0]
  }

  /// CPU nanoseconds of the broker, the desks and the bridges.
  func cpuTimes() -> [Int64] {
    [
      processCPU(broker), deskPIDs.map { processCPU($0) }.reduce(0, +), bridgePIDs.map { processCPU($0) }.reduce(0, +),
    ]
  }

  /// A request on a connection of its own; true when the desk answered ok.
  func request(_ i: Int, _ command: String, extra: String = "") -> Bool { ask(i, command, extra: extra) != nil }

  /// A request on a connection of its own: the state in the desk's ok reply, or nil (said why).
  func ask(_ i: Int, _ command: String, extra: String = "") -> [String: JSONValue]? {
    guard let fd = try? UnixSocket.connect(socketPath(i)) else {
      print("# room: cannot connect to \(ids[i])")
      return nil
    }
    defer { close(fd) }
    guard UnixSocket.writeAll(fd, Array("{\"cmd\":\"\(command)\"\(extra)}\n".utf8)) else { return nil }
    var buffer = LineBuffer(limit: 1 << 20)
    var chunk = [UInt8](repeating: 0, count: 65536)
    let limit = monotonicNanoseconds() + seconds(30)
    while monotonicNanoseconds() < limit {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard n > 0 else { break }
      for case .line(let line) in buffer.feed(chunk[0..<n]) {
        switch ControlProtocol.decodeReply(line) {
        case .success(let state)?: return state
        case .failure(let refusal)?:
          print("# room: \(ids[i]) refused \(command): \(refusal)")
          return nil
        case nil: continue
        }
      }
    }
    print("# room: no answer from \(ids[i]) to \(command) within 30 s (a reply waits for the desk's save)")
    return nil
  }

  /// Where each desk's running timer ends, on this machine's monotonic clock (every process here
  /// shares it): its time left (`status`) added to the middle of the request's round trip.
  /// The spread of the ends, the same without the desk `origin` (the one that started it), how
  /// much earlier that desk ends than the median of the others, and the largest half round trip
  /// (what each end may be off by).
  func endSpread(origin: Int) -> (spread: Double, others: Double, originEarly: Double, error: Double)? {
    var ends: [Int64] = []
    var error: Int64 = 0
    for i in 0..<count {
      let sent = monotonicNanoseconds()
      guard let state = ask(i, "status"), let left = state["remaining_ms"]?.int else { return nil }
      let back = monotonicNanoseconds()
      ends.append(sent + (back - sent) / 2 + ms(left))
      error = max(error, (back - sent) / 2)
    }
    var others = ends
    others.remove(at: origin)
    let median = others.sorted()[others.count / 2]
    return (
      Double(ends.max()! - ends.min()!) / 1e6, Double(others.max()! - others.min()!) / 1e6,
      Double(median - ends[origin]) / 1e6, Double(error) / 1e6
    )
  }

  /// Waits (at most `limit`) until every desk's view meets `done`: the time each first did (the
  /// event's arrival), or nil (said which desks did not).
  func waitAll(_ what: String, limit: Nanoseconds = seconds(30), _ done: @escaping (RoomDeskView) -> Bool) -> [Int64]? {
    met = views.map { done($0) ? monotonicNanoseconds() : nil }
    let deadline = monotonicNanoseconds() + limit
    while met.contains(where: { $0 == nil }) && monotonicNanoseconds() < deadline {
      pump(until: min(deadline, monotonicNanoseconds() + ms(100))) { i in
        if self.met[i] == nil && done(self.views[i]) { self.met[i] = monotonicNanoseconds() }
      }
    }
    let missing = met.indices.filter { met[$0] == nil }
    guard missing.isEmpty else {
      let shown = missing.prefix(5).map { i in
        "\(ids[i]) (\(views[i].phase) \(views[i].mode), members \(views[i].members), rev \(views[i].rev) by \(views[i].by))"
      }
      print(
        "# room: \(missing.count) of \(count) desks never \(what) within \(limit / 1_000_000_000) s: \(shown.joined(separator: ", "))"
      )
      return nil
    }
    return met.map { $0! }
  }

  /// Until no message came on the room's topics for 2 s (at most 30 s).
  @discardableResult
  func quiet() -> Bool {
    let limit = monotonicNanoseconds() + seconds(30)
    while monotonicNanoseconds() < limit {
      let calm = max(lastRoomMessage, 0) + seconds(2)
      if monotonicNanoseconds() >= calm { return true }
      pump(until: calm)
    }
    return false
  }

  /// Reads the watchers and the counter until `deadline`; `changed` after each watch event.
  func pump(until deadline: Int64, _ changed: (Int) -> Void = { _ in }) {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let left = deadline - monotonicNanoseconds()
      if left <= 0 { return }
      var fds = watchFDs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      fds.append(pollfd(fd: counterFD, events: Int16(POLLIN), revents: 0))
      guard poll(&fds, nfds_t(fds.count), Int32(wholeMilliseconds(left) + 1)) > 0 else { continue }
      for (k, p) in fds.enumerated() where p.revents != 0 {
        let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
        guard n > 0 else { continue }
        if k == count {
          for case .line(let line) in counterBuffer.feed(chunk[0..<n]) { counted(line) }
          continue
        }
        for case .line(let line) in watchBuffers[k].feed(chunk[0..<n]) {
          guard let f = FlatJSON.decode(line), f["event"]?.string == "state" else { continue }
          var v = views[k]
          v.phase = f["phase"]?.string ?? ""
          v.mode = f["mode"]?.string ?? ""
          v.members = Int(f["room_members"]?.int ?? 0)
          v.following = f["room_following"]?.bool ?? false
          v.rev = f["room_rev"]?.int ?? 0
          v.by = f["room_by"]?.string ?? ""
          v.roomState = f["room_state"]?.string ?? ""
          v.events += 1
          views[k] = v
          changed(k)
        }
      }
    }
  }

  /// One line of `mosquitto_sub -v`: its topic, counted by kind.
  func counted(_ line: String) {
    let topic = line.prefix { $0 != " " }
    let now = monotonicNanoseconds()
    lastMessage = now
    let kind: String
    if topic.hasPrefix("pomodoro/room/bench/sessions/") {
      kind = "session"
    } else if topic.hasPrefix("pomodoro/room/bench/members/") {
      kind = "member"
    } else if topic.hasPrefix("pomodoro/") && topic.hasSuffix("/state") {
      kind = "state"
    } else {
      kind = "other"
    }
    if kind == "session" || kind == "member" { lastRoomMessage = now }
    messages[kind, default: 0] += 1
  }

  func stop() {
    for pid in bridgePIDs + deskPIDs { kill(pid, SIGTERM) }
    for pid in bridgePIDs + deskPIDs { waitpid(pid, nil, 0) }
    for fd in watchFDs { close(fd) }
    if let counter { stopProcess(counter) }
    if broker > 0 {
      kill(broker, SIGTERM)
      waitpid(broker, nil, 0)
    }
  }
}

/// The machine's load over the last minute (/proc/loadavg).
func loadAverage() -> Double {
  let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
  return Double(text.split(separator: " ").first ?? "") ?? -1
}

/// This program's own path (for its children).
func executablePath() -> String {
  var buffer = [CChar](repeating: 0, count: 4096)
  let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
}

/// Starts `path` with `args`, its output and errors appended to `log`, this environment and
/// `environment` over it; its pid (0: it could not start).
func spawnLogged(_ path: String, _ args: [String], log: String, environment: [String] = []) -> pid_t {
  var pid: pid_t = 0
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
  posix_spawn_file_actions_adddup2(&actions, 1, 2)
  let argv = ([path] + args).map { strdup($0) } + [nil]
  let env =
    (ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" } + environment).map { strdup($0) } + [nil]
  defer { for p in argv + env { free(p) } }
  let ok = posix_spawn(&pid, path, &actions, nil, argv, env) == 0
  posix_spawn_file_actions_destroy(&actions)
  return ok ? pid : 0
}
