import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro ctl COMMAND`: status and control of a running device through its control socket.
enum CtlCommand {
  /// How long a reply may take.
  static let replyTimeout: Nanoseconds = seconds(5)

  /// `replyTimeout`: a test's shorter wait for a device that says nothing.
  /// `trusts`: whose replies to believe, by the serving process's user id (a test's narrower rule).
  static func run(
    _ words: ArraySlice<String>, replyTimeout: Nanoseconds = CtlCommand.replyTimeout,
    trusts: (uid_t) -> Bool = { ControlPaths.trusts(peer: $0) }
  ) throws -> Int32 {
    let args = try Arguments(words, valued: ["--socket", "--config"], switches: ["--json", "--external"])
    let command: ControlCommand
    // `interrupt --external`: the kind as the request's word (any other command refuses it there).
    let kind = args.switches.contains("--external") ? ["external"] : []
    switch ControlCommand.parse(words: args.positional + kind) {
    case .success(let c): command = c
    case .failure(let refusal): throw UsageError(refusal.message)
    }
    let json = args.switches.contains("--json")
    let path = try socketPath(args)
    let fd: Int32
    do {
      fd = try UnixSocket.connect(path)
    } catch let failure as UnixSocket.Failure {
      let (code, message) = advice(connecting: path, errno: failure.errno)
      PomodoroCLI.fail(message)
      return code
    }
    defer { close(fd) }
    // Another local user may have bound the name first (the simulator's socket in /tmp): believe
    // only a device served by this user, root or the service's user.
    let peer = UnixSocket.peerUID(fd)
    guard let peer, trusts(peer) else {
      let who = peer.map { "uid \($0)" } ?? "a process whose user cannot be told"
      PomodoroCLI.fail(
        "pomodoro: \(path) is served by \(who), not by you, root or \(UnixSocket.serviceUser): not believing it; "
          + "remove the socket and start the device or the simulator again")
      return ExitCode.unavailable
    }
    return exchange(fd, path: path, command: command, json: json, replyTimeout: replyTimeout)
  }

  /// Sends `command` on the connection `fd` to the device at `path` and prints its reply (and,
  /// for watch, every state line after it; for the config's commands, the item lines before it,
  /// as a table or, with `json`, as they came); returns the exit code.
  static func exchange(
    _ fd: Int32, path: String, command: ControlCommand, json: Bool, replyTimeout: Nanoseconds
  ) -> Int32 {
    let sent = UnixSocket.writeAll(fd, Array((command.requestLine + "\n").utf8))
    let sendErrno = sent ? 0 : currentErrno()
    // A device that turns this client away (16 are connected) writes why and closes at once: the
    // request then fails (EPIPE) while the refusal waits unread. So read before judging the write.
    var reader = LineReader(fd: fd)
    // The limit is for the whole reply: a peer that trickles a byte now and then cannot hold ctl.
    let deadline = SystemClock().now + replyTimeout
    var items: [[String: JSONValue]] = []
    var next = reader.next(until: deadline)
    // A list's item lines come before its reply.
    while let line = next, let item = ControlProtocol.decodeItem(line) {
      if json { emit(json: line) }
      items.append(item.fields)
      next = reader.next(until: deadline)
    }
    guard let line = next else {
      if reader.ended || !sent {
        let why = reader.ended ? "" : " (\(String(cString: strerror(sendErrno))))"
        PomodoroCLI.fail(
          "pomodoro: the device at \(path) closed the connection without a reply\(why): stopping or restarting? systemctl status pomodoro"
        )
        return ExitCode.unavailable
      }
      PomodoroCLI.fail(
        "pomodoro: no reply from \(path) within \(DurationText.format(replyTimeout)): is the device stuck? systemctl status pomodoro"
      )
      return ExitCode.noAnswer
    }
    switch ControlProtocol.decodeReply(line) {
    case nil:
      PomodoroCLI.fail("pomodoro: unexpected reply from \(path): \(Log.oneLine(String(line.prefix(200))))")
      return ExitCode.protocolError
    case .failure(let refusal)?:
      if json { emit(json: line) }
      PomodoroCLI.fail("pomodoro: \(Log.oneLine(refusal.message))")
      return ExitCode.failure
    case .success(let state)?:
      if command.isConfig {
        if !json { for row in configTable(items, header: command == .config) { emit(row) } }
      } else {
        if json { emit(json: ControlProtocol.replyForPeople(line, state)) } else { emit(ControlProtocol.text(state)) }
      }
    }
    guard command == .watch else { return ExitCode.ok }
    // The device says why it closes a watcher (one making way for a newer client) before it does.
    var reason: String?
    while let line = reader.next(until: nil) {
      switch ControlProtocol.decodeReply(line) {
      case .success(let state)?: if json { emit(json: line) } else { emit(ControlProtocol.text(state)) }
      case .failure(let refusal)?: reason = refusal.message
      case nil: continue
      }
    }
    PomodoroCLI.fail(
      "pomodoro: the device closed the connection (\(reason.map(Log.oneLine) ?? "stopped, or this watcher fell behind"))"
    )
    return ExitCode.unavailable
  }

  /// The config's item lines as a table: a row a key (its value and where it comes from:
  /// `default`, `FILE:LINE`, or `set` by ctl config set or the page), under a header when `header`.
  static func configTable(_ items: [[String: JSONValue]], header: Bool) -> [String] {
    let rows =
      (header ? [["KEY", "VALUE", "FROM"]] : [])
      + items.map { item in ["key", "value", "from"].map { item[$0]?.string ?? "?" } }
    let widths = (0..<2).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
      (0..<2).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count + 2) }.joined() + row[2]
    }
  }

  /// The exit code and message for a connection that failed with `errno`.
  static func advice(connecting path: String, errno: Int32) -> (Int32, String) {
    switch errno {
    case EACCES, EPERM:
      return (
        ExitCode.noPermission,
        "pomodoro: permission denied on \(path): add yourself to the group pomodoro (sudo usermod -aG pomodoro $USER, then log in again)"
      )
    default:
      return (
        ExitCode.unavailable,
        "pomodoro: no device answers at \(path) (\(String(cString: strerror(errno)))): is pomodoro running? systemctl status pomodoro"
      )
    }
  }

  /// --socket, else the config's control_socket (default /run/pomodoro/control.sock); when that
  /// does not exist but the simulator's per-user socket does, the simulator's.
  static func socketPath(_ args: Arguments) throws -> String {
    if let path = args.values["--socket"] { return path }
    let config = try PomodoroCLI.loadConfig(
      args.values["--config"], defaultPath: DeviceConfig.defaultPath, log: Log(sink: { _, _ in }))
    guard let path = config.controlSocket else {
      throw UsageError("control_socket is off in the config; turn it on or pass --socket PATH")
    }
    if !Files.exists(path) && args.values["--config"] == nil && Files.exists(ControlPaths.simulator) {
      return ControlPaths.simulator
    }
    return path
  }

  /// Prints a line for people, its control characters escaped (`Log.oneLine`): whatever answers
  /// on the socket cannot send escape sequences to the terminal.
  static func emit(_ line: String) {
    print(Log.oneLine(line))
    flushStandardOutput()
  }

  /// Prints a JSON line of the device's for programs: as it came, but with any invisible
  /// character in it as JSON's own escape (`\u200b`, never Swift's `\u{200B}`, which JSON
  /// parsers refuse), so it parses as the same JSON and still sends nothing raw to a terminal.
  static func emit(json line: String) {
    print(FlatJSON.visible(line))
    flushStandardOutput()
  }
}

/// Lines from a blocking descriptor, each by a deadline on the monotonic clock (ctl's, and the
/// tests' fixtures', through `package` access).
package struct LineReader {
  let fd: Int32
  var buffer = LineBuffer(limit: 1 << 20)
  var ready: [String] = []
  var ended = false
  let clock = SystemClock()
  /// The device's waiter (poll, the deadline on a timerfd), signals left at their default.
  let waiter: PollWaiter?

  package init(fd: Int32) {
    self.fd = fd
    waiter = try? PollWaiter(clock: clock, catchingSignals: false)
  }

  /// The next line, or nil at end of input, on an error or once `deadline` has passed (nil: no
  /// limit), however the bytes before it came.
  package mutating func next(until deadline: Instant?) -> String? {
    var chunk = [UInt8](repeating: 0, count: 65536)
    guard let waiter else { return nil }
    while ready.isEmpty && !ended {
      if let deadline, deadline <= clock.now { return nil }
      guard let wake = try? waiter.wait(until: deadline, watching: [fd]) else { return nil }
      guard wake.readable.contains(fd) else { continue }  // the deadline, or a signal: looked at again
      let got = retryingOnInterrupt { chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
      if got <= 0 {
        ended = true
        if let last = buffer.finish() { ready.append(last) }
        break
      }
      for item in buffer.feed(chunk[0..<got]) { if case .line(let l) = item { ready.append(l) } }
    }
    return ready.isEmpty ? nil : ready.removeFirst()
  }
}
