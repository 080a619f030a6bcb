// pomodoro-bench: prints the project's figures, one a line (name value unit).
// Run with: swift run -c release pomodoro-bench
// Each area adds its figures in a file of its own here.
// `pomodoro-bench soak [DAYS] [SEED]` runs only the soak (issue 12): 28 virtual days by default;
// `pomodoro-bench history` only the history readers at a million lines and the device's time
// to READY=1 and peak memory on a million-line history (`ready-child DIR` is that device);
// `pomodoro-bench mqtt-payloads` the bridge's peak memory with large payloads on its command
// topic; `pomodoro-bench burst [--inline] [FSYNC_MS...]` only 800 toggles in one socket write (issue 29);
// `pomodoro-bench mqtt-burst [--inline] [FSYNC_MS...]` 3,000 and 20,000 toggles through a broker and the bridge;
// `pomodoro-bench settings-burst [--inline] [FSYNC_MS...]` 8 clients x 400 `config set`s (issue 34);
// `pomodoro-bench web` only the web page's server beside a device (issue 28);
// `pomodoro-bench room-flood` a desk's buttons while its room's topics are flooded (issue 36);
// `pomodoro-bench web-attack` the attacks on its connections and streams (issue 34);
// `pomodoro-bench web-heavy` its heavy readers and cookies (issue 34, $POMODORO_BINARY for another build's);
// `pomodoro-bench labels` stats --by-label and history --ics --days 7 at a million lines (issue 35);
// `pomodoro-bench memory [BINARY]` the peak memory of the device, the page's server and the bridge (issue 33);
// `pomodoro-bench room [DESKS] [--rounds K] [--alarms A] [--work DIR]` a room of 50 desks on one broker (issue 36;
// `room-desk CONFIG` is one of its desks).
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "history" {
  historyBench()
  readyBench()
} else if arguments.first == "ready-child", arguments.count >= 2 {
  readyChild(directory: arguments[1], unsynced: arguments.dropFirst(2).first == "unsynced")
} else if arguments.first == "mqtt-payloads" {
  mqttPayloadBench()
} else if arguments.first == "burst" {
  let delays = arguments.dropFirst().compactMap { Int64($0) }
  burstBench(fsyncDelays: delays.isEmpty ? [0, 10, 20] : delays, background: !arguments.contains("--inline"))
} else if arguments.first == "mqtt-burst" {
  let delays = arguments.dropFirst().compactMap { Int64($0) }
  mqttBurstBench(fsyncDelays: delays.isEmpty ? [10, 20] : delays, background: !arguments.contains("--inline"))
} else if arguments.first == "settings-burst" {
  let delays = arguments.dropFirst().compactMap { Int64($0) }
  settingsBurstBench(fsyncDelays: delays.isEmpty ? [10, 20] : delays, background: !arguments.contains("--inline"))
} else if arguments.first == "web" {
  webBench()
} else if arguments.first == "web-attack" {
  webAttackBench(parts: arguments.count > 1 ? Set(arguments.dropFirst()) : ["connections", "streams"])
} else if arguments.first == "labels" {
  labelBench()
} else if arguments.first == "memory" {
  memoryBench(binary: arguments.dropFirst().first)
} else if arguments.first == "room" {
  roomBench(Array(arguments.dropFirst()))
} else if arguments.first == "room-flood" {
  roomFloodBench()
} else if arguments.first == "room-desk", arguments.count == 2 {
  roomDesk(config: arguments[1])
} else if arguments.first == "web-heavy" {
  webHeavyBench()
} else if arguments.first == "soak" {
  soakBench(
    days: arguments.count > 1 ? Double(arguments[1]) ?? 28 : 28,
    seed: arguments.count > 2 ? UInt64(arguments[2]) ?? 12 : 12)
} else {
  engineBench()
  displayBench()
  inputBench()
  runtimeBench()
  leanBench()
  mqttBench()
  historyBench()
  labelBench()
  readyBench()
  burstBench(fsyncDelays: [0, 10, 20])
}
