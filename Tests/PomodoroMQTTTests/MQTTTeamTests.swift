import Foundation
import PomodoroConfig
import PomodoroCore
import PomodoroMQTT
import PomodoroRuntime
import PomodoroSystem
import PomodoroTestFixtures
import XCTest

/// Serves several control servers from one thread until stopped; `tick` (if given) runs first on
/// each pass, on that thread (to move a device's virtual clock).
final class ServersPump: @unchecked Sendable {
  let box = StopBox()
  let thread: Thread

  init(_ servers: [ControlServer], tick: (() -> Void)? = nil) {
    nonisolated(unsafe) let unsafeServers = servers
    nonisolated(unsafe) let unsafeTick = tick
    let box = box
    thread = Thread {
      while !box.stopped {
        unsafeTick?()
        ControlServer.turn(unsafeServers, waitingUpTo: 1)
      }
    }
    thread.start()
  }

  func stop() {
    box.stop()
    join(thread, "the servers' pump")
  }
}

/// A team of desks: several devices and their bridges on one broker.
final class MQTTTeamTests: XCTestCase {
  func object(_ payload: String?) -> [String: Any] {
    guard let payload, let data = payload.data(using: .utf8),
      let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return o
  }

  /// Publishes `lines`, in order, each a message on `topic` (one mosquitto_pub).
  func publish(_ broker: TestBroker, _ topic: String, _ lines: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
    p.arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", topic, "-l"]
    let input = Pipe()
    p.standardInput = input
    p.standardError = FileHandle.nullDevice
    try p.run()
    input.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    try input.fileHandleForWriting.close()
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0, "mosquitto_pub -t \(topic)")
  }

  /// Waits until the retained messages under `filter` (`count` of them) satisfy `done`; them.
  func retained(
    _ broker: TestBroker, _ filter: String, count: Int, until done: ([String: String]) -> Bool
  ) throws -> [String: String] {
    var last: [String: String] = [:]
    return try waitFor("the retained messages under \(filter) that the test wants (last: \(last))", every: 0.05) {
      last = try broker.retained(filter, count: count)
      return done(last) ? last : nil
    }
  }

  /// 10 devices (each on the mocks with its own control socket) and 10 `pomodoro mqtt` processes
  /// on one mosquitto on 127.0.0.1; each device is driven through the broker to a state of its
  /// own, and every retained `pomodoro/<id>/state` must be that device's.
  func testTenDevicesAndBridgesOnOneBroker() throws {
    guard MQTTBridge.available else {
      throw XCTSkip("pomodoro was built without libmosquitto: sudo apt install libmosquitto-dev, then rebuild")
    }
    let binary = try ChildProcess.pomodoroPath()
    let started = Date()
    let devices = try (0..<10).map { _ in try ControlFixture() }
    let broker = try TestBroker(directory: devices[0].directory)
    defer { broker.stop() }
    let pump = ServersPump(devices.map(\.server))
    defer { pump.stop() }
    var bridges: [Process] = []
    defer {
      for bridge in bridges where bridge.isRunning {
        bridge.terminate()
        bridge.waitUntilExit()
      }
    }
    for (i, f) in devices.enumerated() {
      let conf = f.directory + "/bridge.conf"
      try """
      control_socket = \(f.path)
      mqtt_host = 127.0.0.1
      mqtt_port = \(broker.port)
      mqtt_device_id = desk\(i)
      """.write(toFile: conf, atomically: true, encoding: .utf8)
      let bridge = Process()
      bridge.executableURL = URL(fileURLWithPath: binary)
      bridge.arguments = ["mqtt", "--config", conf]
      bridge.standardError = FileHandle.nullDevice
      try bridge.run()
      bridges.append(bridge)
    }
    let online = try retained(broker, "pomodoro/+/availability", count: 10) { m in
      m.count == 10 && m.values.allSatisfy { $0 == "online" }
    }
    XCTAssertEqual(online.count, 10, "all ten bridges online: \(online)")

    // Device i: mode modes[i % 5], (i + 1) minutes; idle, running or paused by i % 3.
    let modes = ["focus", "short", "soft", "medium", "hard"]
    let phases = ["idle", "running", "paused"]
    for i in 0..<10 {
      let commands = ["set \(modes[i % 5]) \(i + 1)m"] + [[], ["start"], ["start", "pause"]][i % 3]
      try publish(broker, "pomodoro/desk\(i)/command", commands)
    }
    func right(_ i: Int, _ payload: String?) -> Bool {
      let o = object(payload)
      return o["phase"] as? String == phases[i % 3] && o["mode"] as? String == modes[i % 5]
        && o["total_ms"] as? Int == (i + 1) * 60_000 && o["remaining_ms"] as? Int == (i + 1) * 60_000
    }
    let states = try retained(broker, "pomodoro/+/state", count: 10) { m in
      (0..<10).allSatisfy { right($0, m["pomodoro/desk\($0)/state"]) }
    }
    for i in 0..<10 {
      XCTAssertTrue(
        right(i, states["pomodoro/desk\(i)/state"]), "desk\(i): \(states["pomodoro/desk\(i)/state"] ?? "none")")
    }
    // Each device's discovery is its own: a retained config per entity and desk, none naming
    // another's topics.
    // (No desk here has a presence sensor: not its occupancy sensor.)
    let every = HomeAssistant.entities.filter { $0.needs == nil }.count
    let configs = try broker.retained("homeassistant/#", count: 10 * every)
    XCTAssertEqual(configs.count, 10 * every)
    for (topic, payload) in configs {
      let desk = topic.split(separator: "/")[2].replacingOccurrences(of: "pomodoro_", with: "")
      let o = object(payload)
      XCTAssertEqual(o["availability_topic"] as? String, "pomodoro/\(desk)/availability", topic)
    }
    let elapsed = Date().timeIntervalSince(started)
    print("ten devices and bridges: every retained state right after \(String(format: "%.2f", elapsed)) s")
  }

  /// While a timer runs the bridge republishes the state (remaining time moving) every
  /// `refreshInterval`, without any phase change; once paused it stops.
  func testTheBridgeRepublishesTheRemainingTimeWhileRunning() throws {
    guard MQTTBridge.available else {
      throw XCTSkip("pomodoro was built without libmosquitto: sudo apt install libmosquitto-dev, then rebuild")
    }
    let f = try ControlFixture()
    let broker = try TestBroker(directory: f.directory)
    defer { broker.stop() }
    // The device's virtual clock moves 100 ms every pass of the pump (a millisecond or so).
    nonisolated(unsafe) let side = f.h
    let pump = ServersPump([f.server]) { side.run(for: ms(100)) }
    defer { pump.stop() }
    var config = DeviceConfig()
    config.controlSocket = f.path
    config.mqttHost = "127.0.0.1"
    config.mqttPort = broker.port
    config.mqttDeviceId = "desk1"
    let bridge = try MQTTBridge(config: config, log: Log(sink: { _, _ in }), hostName: "test")
    bridge.link.refreshInterval = ms(200)
    let stopBridge = StopBox()
    nonisolated(unsafe) let unsafeBridge = bridge
    let thread = Thread { _ = try? unsafeBridge.run(stop: { stopBridge.stopped }) }
    thread.start()
    defer {
      stopBridge.stop()
      join(thread, "the bridge's thread")
    }
    let topic = "pomodoro/desk1/state"
    XCTAssertNotNil(try broker.waitFor(topic) { self.object($0)["phase"] as? String == "idle" })
    try publish(broker, "pomodoro/desk1/command", ["start"])
    XCTAssertNotNil(try broker.waitFor(topic) { self.object($0)["phase"] as? String == "running" })

    // Four messages on the state topic (the first the retained one): all running, the
    // remaining time going down.
    var out = ""
    try broker.run("/usr/bin/mosquitto_sub", ["-t", topic, "-C", "4", "-W", "30"], output: &out)
    let running = out.split(separator: "\n").map { object(String($0)) }
    XCTAssertEqual(running.count, 4, out)
    XCTAssertTrue(running.allSatisfy { $0["phase"] as? String == "running" }, out)
    let remaining = running.compactMap { $0["remaining_ms"] as? Int }
    XCTAssertEqual(remaining.count, 4, out)
    XCTAssertEqual(remaining, remaining.sorted(by: >), "remaining time goes down: \(remaining)")
    XCTAssertEqual(Set(remaining).count, 4, "each republished state is new: \(remaining)")

    // Paused: one state (paused), then nothing more.
    try publish(broker, "pomodoro/desk1/command", ["pause"])
    XCTAssertNotNil(try broker.waitFor(topic) { self.object($0)["phase"] as? String == "paused" })
    // Nothing more is an absence: a window of five refresh intervals (200 ms each) shows it.
    out = ""
    try broker.run("/usr/bin/mosquitto_sub", ["-t", topic, "-C", "2", "-W", "1"], output: &out)
    XCTAssertEqual(out.split(separator: "\n").count, 1, "nothing republished while paused: \(out)")
  }
}
