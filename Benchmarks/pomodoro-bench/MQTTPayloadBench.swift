import Foundation
import PomodoroCore
import PomodoroSystem

/// `pomodoro-bench mqtt-payloads`: the bridge's peak resident memory (VmHWM) with a payload of
/// 1, 16, 64 and 255 MiB on its command topic, retained before it starts and published while it
/// runs. Its CONNECT asks the broker for packets of at most 16 KiB, so the broker drops them for
/// it: the figure should not move with the payload. On its own broker on 127.0.0.1.
func mqttPayloadBench() {
  guard let mosquitto = findTool("mosquitto"), let pub = findTool("mosquitto_pub") else {
    print("# mqtt payloads skipped: no mosquitto on the PATH (sudo apt install mosquitto mosquitto-clients)")
    return
  }
  let binary = siblingBinary("pomodoro")
  let directory = NSTemporaryDirectory() + "pomodoro-mqtt-payloads-\(getpid())"
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  guard access(binary, X_OK) == 0, let port = freeLocalPort() else {
    print("# mqtt payloads skipped: build \(binary) first (swift build -c release)")
    return
  }
  writeText(directory + "/mosquitto.conf", "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n")
  guard let broker = launch(mosquitto, ["-c", directory + "/mosquitto.conf"]), waitForListener(port) else { return }
  defer { stopProcess(broker) }
  let socket = directory + "/device.sock"
  guard let (servers, keep) = mockDevices([socket]) else { return }
  let serving = DeviceServing(servers)
  defer {
    serving.stop()
    for server in servers { server.close() }
    _ = keep
  }
  let conf = directory + "/bridge.conf"
  writeText(conf, "control_socket = \(socket)\nmqtt_host = 127.0.0.1\nmqtt_port = \(port)\nmqtt_device_id = bench\n")
  let topic = "pomodoro/bench/command"
  func publish(_ args: [String]) {
    guard let p = launch(pub, ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic] + args) else { return }
    p.waitUntilExit()
  }
  for mib in [0, 1, 16, 64, 255] {
    let file = directory + "/payload"
    FileManager.default.createFile(atPath: file, contents: Data(repeating: 0x78, count: mib << 20))
    for retained in [true, false] where mib > 0 || retained {
      if retained && mib > 0 { publish(["-r", "-f", file]) }
      guard let bridge = launch(binary, ["mqtt", "--config", conf]) else { return }
      // Time for the bridge to connect, subscribe and be offered the retained payload.
      usleep(1_500_000)
      if !retained { publish(["-f", file]) }
      usleep(1_000_000)
      let peak = peakResidentKiB(bridge.processIdentifier)
      stopProcess(bridge)
      if retained && mib > 0 { publish(["-r", "-n"]) }
      let name = mib == 0 ? "none" : "\(mib)mib_\(retained ? "retained" : "published")"
      figure("mqtt.bridge_peak_rss_payload_\(name)", Double(peak) / 1024, "MiB")
    }
  }
}

/// VmHWM of a running process, in KiB (0 when it cannot be read).
func peakResidentKiB(_ pid: Int32) -> Int {
  let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
  let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
  return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
}
