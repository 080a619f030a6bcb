import CPomodoroSystem
import PomodoroCore
import PomodoroSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One run of `hook_command`: the executable started in a process group of its own with the
/// event's JSON on its stdin and its variables in its environment; its output (stdout and stderr)
/// read as it comes and said in the journal a bounded line at a time (`OutputLines`); ended at its
/// deadline (SIGTERM to its group, then SIGKILL after `grace`); its end found through a pidfd
/// (or, without one, by asking every `reapEvery`). Never blocks: the hooks' loop waits on its
/// descriptors and deadlines.
final class CommandRun {
  /// How it ended.
  enum End: Equatable {
    case exited(Int32)
    case signalled(Int32)
  }

  let pid: Int32
  let what: String
  let startedAt: Instant
  let deadline: Instant
  private var input: [UInt8]
  private var written = 0
  private var stdinFD: Int32
  private var outputFD: Int32
  private var pidFD: Int32
  private var output = OutputLines()
  private(set) var terminatedAt: Instant?
  private(set) var killed = false
  private(set) var end: End?
  /// When it was last looked at (without a pidfd, its end is asked for `reapEvery` after).
  private var lookedAt: Instant
  private let log: Log

  static let grace = seconds(2)
  static let reapEvery = ms(100)
  /// At most this much output is read a wake (a flood costs the loop bounded work a turn).
  static let readEachWake = 65_536

  private init(
    pid: Int32, stdin: Int32, output: Int32, input: [UInt8], what: String, at now: Instant, timeout: Nanoseconds,
    log: Log
  ) {
    self.pid = pid
    stdinFD = stdin
    outputFD = output
    pidFD = pomo_pidfd_open(pid)
    self.input = input
    self.what = what
    startedAt = now
    deadline = now + timeout
    lookedAt = now
    self.log = log
  }

  /// Starts `path` for `event`; why not when it cannot (no such file, not executable).
  static func start(
    _ path: String, event: HookEvent, environment: [(String, String)], timeout: Nanoseconds, at now: Instant, log: Log
  ) -> Result<CommandRun, SystemError> {
    let variables = environment.map { "\($0.0)=\($0.1)" }
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup(event.name), nil]
    var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }
    var stdin: Int32 = -1
    var output: Int32 = -1
    let pid = pomo_spawn(path, &argv, &envp, &stdin, &output)
    guard pid > 0 else { return .failure(SystemError("cannot start \(path)", errno: errno)) }
    return .success(
      CommandRun(
        pid: pid, stdin: stdin, output: output, input: Array((event.json + "\n").utf8),
        what: "hook_command \(event.name)", at: now, timeout: timeout, log: log))
  }

  var readDescriptors: [Int32] { [outputFD, pidFD].filter { $0 >= 0 } }
  var writeDescriptors: [Int32] { stdinFD >= 0 ? [stdinFD] : [] }

  /// The next instant it must be looked at without a descriptor ready.
  var nextDeadline: Instant? {
    guard end == nil else { return nil }
    let reap = pidFD < 0 ? lookedAt + Self.reapEvery : nil
    return [terminatedAt.map { $0 + Self.grace } ?? deadline, reap].compactMap { $0 }.min()
  }

  /// Does what is due at `now`; true once the run has ended (its end said, its descriptors closed).
  func handle(_ wake: Wake, at now: Instant) -> Bool {
    lookedAt = now
    if stdinFD >= 0 { writeInput() }
    if outputFD >= 0 { readOutput(draining: false) }
    if terminatedAt == nil, now >= deadline {
      log.warning("\(what) ran over hook_timeout (\(DurationText.format(deadline - startedAt))): ended it (SIGTERM)")
      kill(-pid, SIGTERM)
      terminatedAt = now
    } else if let at = terminatedAt, !killed, now >= at + Self.grace {
      log.warning("\(what) did not end \(DurationText.format(Self.grace)) after SIGTERM: killed it (SIGKILL)")
      kill(-pid, SIGKILL)
      killed = true
    }
    var status: Int32 = 0
    guard waitpid(pid, &status, WNOHANG) == pid else { return false }
    end = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    finish(at: now)
    return true
  }

  /// Ends it now (the process stops): SIGKILL to its group, reaped.
  func abandon() {
    guard end == nil else { return }
    kill(-pid, SIGKILL)
    var status: Int32 = 0
    _ = waitpid(pid, &status, 0)
    end = .signalled(SIGKILL)
    closeAll()
  }

  private func writeInput() {
    while written < input.count {
      let n = input[written...].withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
      if n > 0 {
        written += n
      } else {
        if n < 0 && errno == EAGAIN { return }
        break  // EPIPE: it does not read its stdin; that is its business
      }
    }
    close(stdinFD)
    stdinFD = -1
  }

  private func readOutput(draining: Bool) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var taken = 0
    while draining || taken < Self.readEachWake {
      let n = buffer.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
      if n > 0 {
        taken += n
        for line in output.feed(buffer[0..<n]) { say(line) }
        if draining && taken >= Self.readEachWake { break }
      } else {
        if n == 0 || errno != EAGAIN { closeOutput() }
        return
      }
    }
  }

  private func say(_ line: String) {
    if output.shown < OutputLines.mostShown { log.info("\(what): \(line)") }
    output.shown += 1
  }

  private func closeOutput() {
    if let last = output.finish() { say(last) }
    if outputFD >= 0 { close(outputFD) }
    outputFD = -1
  }

  private func finish(at now: Instant) {
    if outputFD >= 0 { readOutput(draining: true) }
    closeAll()
    if output.shown > OutputLines.mostShown {
      log.info("\(what): \(output.shown - OutputLines.mostShown) more line(s) of its output not shown")
    }
    let took = DurationText.format((now - startedAt) / 1_000_000 * 1_000_000)
    switch end {
    case .exited(0)?: log.info("\(what) ran (\(took))")
    case .exited(let code)?: log.warning("\(what) exited with \(code) after \(took)")
    case .signalled(let signal)?: log.warning("\(what) was ended by signal \(signal) after \(took)")
    case nil: break
    }
  }

  private func closeAll() {
    if stdinFD >= 0 { close(stdinFD) }
    if outputFD >= 0 { close(outputFD) }
    if pidFD >= 0 { close(pidFD) }
    (stdinFD, outputFD, pidFD) = (-1, -1, -1)
  }
}

/// A hook's output as journal lines: each line at most `limit` bytes (a longer one is cut, the rest
/// goes on as the next), control characters shown as `?`. Pure.
struct OutputLines {
  static let limit = 512
  /// The lines of one run said in the journal; the rest are counted.
  static let mostShown = 50
  private var pending: [UInt8] = []
  var shown = 0

  mutating func feed(_ bytes: ArraySlice<UInt8>) -> [String] {
    var lines: [String] = []
    for byte in bytes {
      if byte == 0x0A {
        lines.append(Self.text(pending))
        pending.removeAll(keepingCapacity: true)
      } else {
        pending.append(byte)
        if pending.count == Self.limit {
          lines.append(Self.text(pending))
          pending.removeAll(keepingCapacity: true)
        }
      }
    }
    return lines
  }

  mutating func finish() -> String? {
    defer { pending.removeAll() }
    return pending.isEmpty ? nil : Self.text(pending)
  }

  static func text(_ bytes: [UInt8]) -> String {
    let line = bytes.last == 0x0D ? bytes.dropLast() : bytes[...]
    return String(decoding: line.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
  }
}
