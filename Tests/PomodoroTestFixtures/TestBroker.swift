// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation
  import XCTest

  import PomodoroRuntime

  import PomodoroSystem

  /// A mosquitto broker on 127.0.0.1 on a free port, started by the test.
  package final class TestBroker {
    package let port: Int
    package let directory: String
    package var process: Process?
    /// What the broker's config says of its clients (anonymous by default), and the arguments
    /// (credentials) of the client that checks it has started.
    package let access: String
    package let probe: [String]

    package init(directory: String, access: String = "allow_anonymous true\n", probe: [String] = []) throws {
      guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto"),
        FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
      else { throw XCTSkip("the broker tests need mosquitto: sudo apt install mosquitto mosquitto-clients") }
      self.directory = directory
      self.access = access
      self.probe = probe
      port = try Self.freePort()
      try start()
    }

    package static func freePort() throws -> Int {
      let fd = socket(AF_INET, streamSocketType, 0)
      defer { close(fd) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = 0
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
      }
      guard ok else { throw SystemError("no free port") }
      return Int(UInt16(bigEndian: address.sin_port))
    }

    package func start() throws {
      let conf = directory + "/mosquitto.conf"
      try "listener \(port) 127.0.0.1\n\(access)persistence false\n".write(
        toFile: conf, atomically: true, encoding: .utf8)
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
      p.arguments = ["-c", conf]
      p.standardOutput = FileHandle.nullDevice
      p.standardError = FileHandle.nullDevice
      try p.run()
      process = p
      try waitUntil("the broker to take a message on port \(port)", every: 0.05) {
        (try? run("/usr/bin/mosquitto_pub", probe + ["-t", "probe", "-m", "x"])) == 0
      }
    }

    package func stop() {
      process?.terminate()
      process?.waitUntilExit()
      process = nil
    }

    @discardableResult
    package func run(_ tool: String, _ args: [String], output: UnsafeMutablePointer<String>? = nil) throws -> Int32 {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: tool)
      p.arguments = ["-h", "127.0.0.1", "-p", String(port)] + args
      let pipe = Pipe()
      p.standardOutput = pipe
      p.standardError = FileHandle.nullDevice
      try p.run()
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      output?.pointee = String(decoding: data, as: UTF8.self)
      return p.terminationStatus
    }

    package func publish(_ topic: String, _ message: String) throws {
      XCTAssertEqual(try run("/usr/bin/mosquitto_pub", ["-q", "1", "-t", topic, "-m", message]), 0)
    }

    /// The retained messages under `filter` (waiting at most a second for them), as topic -> payload.
    package func retained(_ filter: String, count: Int = 1) throws -> [String: String] {
      var out = ""
      try run(
        "/usr/bin/mosquitto_sub", ["-t", filter, "-v", "-C", String(count), "-W", "1", "--retained-only"], output: &out)
      var messages: [String: String] = [:]
      for line in out.split(separator: "\n") {
        guard let space = line.firstIndex(of: " ") else { continue }
        messages[String(line[..<space])] = String(line[line.index(after: space)...])
      }
      return messages
    }

    /// Waits until the retained payload on `topic` satisfies `ok`; returns it, or throws
    /// `WaitTimeout` naming the topic and the payload last seen.
    package func waitFor(_ topic: String, _ ok: (String) -> Bool) throws -> String? {
      var last: String?
      let payload: String = try PomodoroTestFixtures.waitFor(
        "a retained message on \(topic) that the test wants (last: \(last.map { "'\($0)'" } ?? "none"))", every: 0.05
      ) {
        last = try retained(topic)[topic]
        return last.flatMap { ok($0) ? $0 : nil }
      }
      return payload
    }

    /// The message expiry interval (s) the broker gives a new subscriber of the retained message
    /// on `topic` now: what it counts down in whole seconds (nil: no message, or none).
    package func expiryLeft(_ topic: String) throws -> Int? {
      var out = ""
      try run(
        "/usr/bin/mosquitto_sub",
        ["-V", "mqttv5", "-t", topic, "-F", "%E", "-C", "1", "-W", "5", "--retained-only"], output: &out)
      return Int(out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Waits until the broker has counted `seconds` whole seconds off the retained message on
    /// `topic` since this is called: a room's age is the broker's count of a message's expiry,
    /// in whole seconds, so a test that needs an age waits on that count itself, not on a time.
    package func waitForExpiry(_ topic: String, toFallBy seconds: Int) throws {
      let first = try PomodoroTestFixtures.waitFor("an expiry on the retained message on \(topic)") {
        try expiryLeft(topic)
      }
      var last = first
      try waitUntil(
        "the broker's expiry of \(topic) to fall from \(first) s by \(seconds) (last: \(last) s)", every: 0.1
      ) {
        last = try expiryLeft(topic) ?? last
        return last <= first - seconds
      }
    }
  }
#endif
