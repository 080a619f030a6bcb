import Foundation
import PomodoroCore
import PomodoroMock
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro-bench room-flood` (issue 36 item 5): a desk's buttons while its room's topics are
/// flooded. A device on the mocks and the real clock, in the room `flood`, with its bridge (the
/// real `pomodoro mqtt`, at `Nice=10` as its unit runs it) on a mosquitto on 127.0.0.1. The start
/// and cancel buttons are pressed every 250 ms, 40 presses quiet, then 40 while `mosquitto_pub -l`
/// publishes hostile session and member messages (malformed, oversized, out of range, random
/// bytes) as fast as it can: press-to-state (from the button's edge, its debounce included) for
/// each, median and p99, and how many messages the broker took meanwhile.
func roomFloodBench() {
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0, let mosquitto = findTool("mosquitto"), let pub = findTool("mosquitto_pub"),
    let port = freeLocalPort()
  else {
    print("# room-flood skipped: build \(binary) first, and install mosquitto and mosquitto-clients")
    return
  }
  let directory = NSTemporaryDirectory() + "pomodoro-room-flood-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  writeText(directory + "/mosquitto.conf", "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n")
  guard let broker = launch(mosquitto, ["-c", directory + "/mosquitto.conf"]), waitForListener(port) else {
    print("# room-flood skipped: mosquitto did not listen on 127.0.0.1:\(port)")
    return
  }
  defer { stopProcess(broker) }
  let socket = directory + "/c.sock"
  writeText(
    directory + "/bridge.conf",
    "control_socket = \(socket)\nroom = flood\nmqtt_host = 127.0.0.1\nmqtt_port = \(port)\nmqtt_device_id = desk-a\n")
  let (device, hardware, server, changes) = benchDevice(socket: socket, room: "flood")
  let clock = changes.clock
  let config = device.config
  // Its log kept: the refusals it says show the flood reached it.
  guard
    let bridge = launch(
      "/bin/sh",
      ["-c", "exec /usr/bin/nice -n 10 \(binary) mqtt --config \(directory)/bridge.conf 2>\(directory)/bridge.log"])
  else { return }
  defer { stopProcess(bridge) }
  let waiter = try! PollWaiter(clock: clock)
  func serve(until end: Instant, while going: () -> Bool = { true }) {
    _ = try? EventLoop.serve(
      device, waiter: waiter, extraDeadline: { end }, sources: [server],
      onWake: { _ in clock.now < end && going() })
  }
  serve(until: clock.now + seconds(15)) { !(device.state.room?.bridged(at: clock.now) ?? false) }
  guard device.state.room?.bridged(at: clock.now) == true else {
    print("# room-flood skipped: the bridge never said the room to the desk (built without libmosquitto?)")
    return
  }

  // Hostile lines for `mosquitto_pub -l`: 20,000, each refused by the bridge.
  var rng = SplitMix64(seed: 36)
  var lines: [String] = []
  let valid =
    #"{"v":1,"rev":9,"by":"zz","modes":["focus","short"],"lengths":[1500,300],"plan_rev":9,"phase":0,"state":"running","elapsed_ms":0,"expiry":1860,"sent_ms":1796040000000,"synced":true}"#
  for i in 0..<20_000 {
    switch i % 4 {
    case 0: lines.append(String(valid.prefix(Int(rng.next() % UInt64(valid.count - 1)))))  // cut short
    case 1: lines.append(valid.replacingOccurrences(of: #""v":1"#, with: #""v":\#(2 + rng.next() % 9)"#))
    case 2: lines.append(valid.dropLast() + #","pad":""# + String(repeating: "x", count: 1100) + #""}"#)
    default:
      lines.append(
        String((0..<(1 + rng.next() % 200)).map { _ in Character(Unicode.Scalar(UInt8(32 + rng.next() % 95))) }))
    }
  }
  writeText(directory + "/hostile", lines.joined(separator: "\n") + "\n")

  /// 40 presses (start, cancel, ...) every 250 ms from now + 200 ms; press-to-state of each.
  func presses(_ name: String) {
    let pressedAt = scheduleStartCancelPresses(hardware, config, from: clock.now)
    let before = changes.phases.count
    serve(until: pressedAt.last! + seconds(1))
    report(name, pressToState(pressedAt, seen: changes.phases.dropFirst(before).map(\.0)))
  }
  presses("room.quiet_press_to_state")
  // The flood: the hostile lines on the session's and a ghost member's topic, again and again for
  // as long as the presses take (11 s), each pass counted.
  let topics = ["pomodoro/room/flood/sessions/zzzz", "pomodoro/room/flood/members/ghost"]
  let pass = topics.map { "\(pub) -h 127.0.0.1 -p \(port) -t \($0) -l < \(directory)/hostile" }.joined(separator: " & ")
  let script =
    "end=$(($(date +%s) + 11)); n=0; while [ $(date +%s) -lt $end ]; do \(pass); wait; n=$((n + 1)); "
    + "echo $n > \(directory)/passes; done"
  guard let flood = launch("/bin/sh", ["-c", script]) else { return }
  let floodStart = clock.now
  presses("room.flood_press_to_state")
  let pressesEnded = clock.now
  let outlasted = flood.isRunning
  flood.waitUntilExit()
  let passes =
    Int(((try? String(contentsOfFile: directory + "/passes", encoding: .utf8)) ?? "0").filter(\.isNumber)) ?? 0
  figure("room.flood_messages", Double(passes * topics.count * lines.count), "messages")
  figure("room.flood_lasted", Double(clock.now - floodStart) / 1e6, "ms")
  figure("room.presses_lasted", Double(pressesEnded - floodStart) / 1e6, "ms")
  figure("room.flood_outlasted_the_presses", outlasted ? 1 : 0, "")
  figure("room.desk_in_the_room_after", device.state.room?.bridged(at: clock.now) == true ? 1 : 0, "")
  let said = (try? String(contentsOfFile: directory + "/bridge.log", encoding: .utf8)) ?? ""
  figure(
    "room.bridge_refusal_lines", Double(said.split(separator: "\n").filter { $0.contains("ignored a ") }.count), "lines"
  )
}
