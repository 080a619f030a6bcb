// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation
  import PomodoroSystem
  import XCTest

  /// The built `pomodoro` executable run as a child process, for what only a separate process
  /// can show: dying by a signal, stopping on SIGTSTP, stdout block-buffered into a pipe.
  package final class ChildProcess {
    package let pid: pid_t
    private(set) var status: Int32?

    /// The `pomodoro` binary next to the test bundle (`swift test` builds it too).
    package static func pomodoroPath() throws -> String {
      let exe =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
      var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
      if directory.lastPathComponent == "MacOS" {
        directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      }
      let path = directory.appendingPathComponent("pomodoro").path
      guard FileManager.default.isExecutableFile(atPath: path) else {
        throw XCTSkip("no pomodoro executable at \(path); run `swift build` first")
      }
      return path
    }

    /// Runs `pomodoro arguments` as the user nobody (setpriv, from util-linux) and returns its exit
    /// status and stderr: how a test run as root sees a permission that root alone would pass.
    package static func runAsNobody(_ arguments: [String]) throws -> (code: Int32, err: String) {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
        throw XCTSkip("as root this needs setpriv (util-linux) to run pomodoro as nobody")
      }
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", try pomodoroPath()] + arguments
      let pipe = Pipe()
      p.standardError = pipe
      p.standardOutput = FileHandle.nullDevice
      try p.run()
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts `pomodoro arguments` with the given descriptors as its stdin, stdout and stderr,
    /// every signal at its default action and none blocked. `ownGroup`: in a process group of its
    /// own (in this session, so that SIGTSTP stops it as it does a shell's job).
    package init(_ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32, ownGroup: Bool = false) throws {
      let path = try Self.pomodoroPath()
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_adddup2(&actions, stdin, 0)
      posix_spawn_file_actions_adddup2(&actions, stdout, 1)
      posix_spawn_file_actions_adddup2(&actions, stderr, 2)
      var attributes = posix_spawnattr_t()
      posix_spawnattr_init(&attributes)
      defer { posix_spawnattr_destroy(&attributes) }
      var all = sigset_t()
      sigfillset(&all)
      var none = sigset_t()
      sigemptyset(&none)
      posix_spawnattr_setsigdefault(&attributes, &all)
      posix_spawnattr_setsigmask(&attributes, &none)
      var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
      if ownGroup {
        flags |= Int32(POSIX_SPAWN_SETPGROUP)
        posix_spawnattr_setpgroup(&attributes, 0)
      }
      posix_spawnattr_setflags(&attributes, Int16(flags))
      let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
      defer { for arg in argv { free(arg) } }
      var child: pid_t = 0
      let rc = posix_spawn(&child, path, &actions, &attributes, argv, environ)
      guard rc == 0 else { throw NSError(domain: "posix_spawn", code: Int(rc)) }
      pid = child
    }

    deinit {
      if status == nil {
        kill(pid, SIGKILL)
        var s: Int32 = 0
        waitpid(pid, &s, 0)
      }
    }

    package func signal(_ signo: Int32) { kill(pid, signo) }

    /// Waits (up to `timeout` seconds) until the child stops or ends; the raw wait status.
    package func waitForChange(timeout: TimeInterval = Waiting.limit) throws -> Int32 {
      let s: Int32 = try waitFor("pomodoro (pid \(pid)) to stop or end", limit: timeout) {
        var s: Int32 = 0
        return waitpid(pid, &s, WNOHANG | WUNTRACED) == pid ? s : nil
      }
      if !isStopped(s) { status = s }
      return s
    }

    /// Waits for the end; the exit code, or 128 + the signal that ended it (as a shell says).
    package func waitForExit(timeout: TimeInterval = Waiting.limit) throws -> Int32 {
      while true {
        let s = try waitForChange(timeout: timeout)
        if isStopped(s) { continue }
        return exitedNormally(s) ? exitCode(s) : 128 + termSignal(s)
      }
    }
  }

  // The wait-status macros, which Swift does not import.
  package func isStopped(_ s: Int32) -> Bool { s & 0xFF == 0x7F }
  package func stopSignal(_ s: Int32) -> Int32 { (s >> 8) & 0xFF }
  package func exitedNormally(_ s: Int32) -> Bool { s & 0x7F == 0 }
  package func exitCode(_ s: Int32) -> Int32 { (s >> 8) & 0xFF }
  package func termSignal(_ s: Int32) -> Int32 { s & 0x7F }

  /// A pipe whose read end the test drains.
  package final class Pipe2 {
    package let readEnd: Int32
    package let writeEnd: Int32

    package init() throws {
      var ends: [Int32] = [0, 0]
      guard pipe(&ends) == 0 else { throw NSError(domain: "pipe", code: Int(errno)) }
      // Not inherited by children: a child holding the ends itself would never see EOF or EPIPE.
      for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      readEnd = ends[0]
      writeEnd = ends[1]
    }

    deinit {
      closeReadEnd()
      closeWriteEnd()
    }

    private var readClosed = false
    package func closeReadEnd() {
      if !readClosed { close(readEnd) }
      readClosed = true
    }

    private var writeClosed = false
    package func closeWriteEnd() {
      if !writeClosed { close(writeEnd) }
      writeClosed = true
    }

    /// Reads until `condition` holds for what was read, or end of file; what was read.
    package func read(until condition: (String) -> Bool = { _ in false }, timeout: TimeInterval = 60) -> String {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65536)
      let limit = Date().addingTimeInterval(timeout)
      while Date() < limit {
        var fd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        guard poll(&fd, 1, 100) > 0 else { continue }
        let n = buffer.withUnsafeMutableBytes { systemRead(readEnd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes += buffer[0..<n]
        if condition(String(decoding: bytes, as: UTF8.self)) { break }
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }
#endif
