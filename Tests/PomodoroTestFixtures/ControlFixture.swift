// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation
  import PomodoroCore
  import XCTest

  import PomodoroCommandLine
  import PomodoroRuntime
  import PomodoroSystem
  import PomodoroControl
  import PomodoroConfig
  import PomodoroSimulator

  /// A device on the virtual clock (no storage unless `storing`: nothing to fsync) with its
  /// control socket, and blocking clients.
  package final class ControlFixture {
    package let directory: String
    /// The device, on the virtual clock, with no storage (nothing to fsync).
    package let h: DeviceHarness
    package let server: ControlServer
    package var path: String { server.path }

    package init(config: DeviceConfig = DeviceConfig(), storing: Bool = false) throws {
      directory = try DeviceHarness.temporaryDirectory()
      h = try DeviceHarness(directory: directory, config: config, storing: storing)
      server = try ControlServer(
        path: directory + "/control.sock", device: h.device, log: h.device.log,
        wallClock: { WallTime(epochSeconds: 1_796_040_000, synced: true) })
      h.device.start()
    }

    deinit {
      server.close()
      try? FileManager.default.removeItem(atPath: directory)
    }

    package func connect() throws -> Int32 {
      let fd = try UnixSocket.connect(path)
      server.turn()
      return fd
    }

    /// Sends `line`, lets the server answer, and returns the reply line.
    package func request(_ fd: Int32, _ line: String) -> String? {
      XCTAssertTrue(UnixSocket.writeAll(fd, Array((line + "\n").utf8)))
      // The server reads `readPerWake` a wake: a longer line takes more than one.
      for _ in 0...(line.utf8.count / ControlConnections.readPerWake) { server.turn() }
      var reader = LineReader(fd: fd)
      return reader.next(until: SystemClock().now + ms(2000))
    }

    /// Sends `line`, lets the server answer, and returns every line up to and with the reply
    /// (a list's item lines first).
    package func exchange(_ fd: Int32, _ line: String) -> [String] {
      XCTAssertTrue(UnixSocket.writeAll(fd, Array((line + "\n").utf8)))
      server.turn()
      var reader = LineReader(fd: fd)
      var lines: [String] = []
      while let next = reader.next(until: SystemClock().now + ms(2000)) {
        lines.append(next)
        if next.hasPrefix("{\"ok\"") { break }
      }
      return lines
    }

    package func reply(_ fd: Int32, _ line: String) -> (ok: Bool, fields: [String: JSONValue], error: String?) {
      guard let text = request(fd, line), let decoded = ControlProtocol.decodeReply(text) else {
        XCTFail("no reply to \(line)")
        return (false, [:], nil)
      }
      switch decoded {
      case .success(let fields): return (true, fields, nil)
      case .failure(let refusal): return (false, [:], refusal.message)
      }
    }
  }

  /// Serves a control server from a thread until stopped.
  package final class ServerPump: @unchecked Sendable {
    package let server: ControlServer
    package let thread: Thread
    package let box = StopBox()

    package init(_ server: ControlServer) {
      self.server = server
      let box = box
      nonisolated(unsafe) let unsafeServer = server
      thread = Thread {
        while !box.stopped { unsafeServer.turn(waitingUpTo: 1) }
      }
      thread.start()
    }

    package func stop() {
      box.stop()
      join(thread, "the control server's pump")
    }
  }
#endif

#if DEBUG
  import PomodoroCore
  import PomodoroRuntime
  import PomodoroSystem

  extension ControlServer {
    /// A turn of its device's loop (`EventLoop.turn`), never sleeping, and the step that begins
    /// the next: what the clients sent is answered (one wake's batch), the step saves the
    /// batch's state, and the replies that waited for it go out.
    package func turn() {
      _ = try? EventLoop.turn(device, waiter: NowWaiter(), sources: [self])
      device.step()
    }

    /// A turn once a client has sent something (a connection, a request, a close) or after
    /// `milliseconds` if none has: a pump's pass, which wakes for its clients as the device's
    /// loop does and still turns now and then for what the test does to the device meanwhile.
    package func turn(waitingUpTo milliseconds: Int32) { Self.turn([self], waitingUpTo: milliseconds) }

    /// A turn of each of `servers` once a client of any has sent something, or after
    /// `milliseconds` if none has.
    package static func turn(_ servers: [ControlServer], waitingUpTo milliseconds: Int32) {
      var fds = servers.flatMap(\.readDescriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      _ = poll(&fds, nfds_t(fds.count), milliseconds)
      for server in servers { server.turn() }
    }
  }
#endif
