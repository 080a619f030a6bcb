import PomodoroRuntime
import PomodoroSystem

/// CPU per displayed frame, ours beside luma.oled's (Python, Pillow) in one run: the device's own
/// frame, the whole `pomodoro simulate --script` process over a 4-hour focus (transcript and
/// emulator included), and luma.oled rendering and sending the same kind of frame, measured by
/// Tests/bench/luma_oled.py when python3 can import luma.oled (POMODORO_BENCH_PYTHON picks the
/// interpreter).
func leanBench() {
  let device = renderDiffEncodeCPU() / 1000
  figure("frame.ours_device_cpu", device, "us/frame")
  let process = processCPUPerFrame()
  let luma = pythonFigures("Tests/bench/luma_oled.py")
  figure("frame.luma_oled_cpu_reported_in_facts", 500, "us/frame")
  guard let lumaCPU = luma["luma_oled_cpu_per_frame"] else {
    print("# luma.oled not measured now: python3 -m venv /tmp/luma && /tmp/luma/bin/pip install luma.oled")
    print("#   then POMODORO_BENCH_PYTHON=/tmp/luma/bin/python .build/release/pomodoro-bench")
    return
  }
  figure("frame.luma_oled_cpu_measured_now", lumaCPU, "us/frame")
  if let bytes = luma["luma_oled_i2c_bytes_per_frame"] {
    figure("frame.luma_oled_i2c_bytes_measured_now", bytes, "B/frame")
  }
  if let rss = luma["luma_oled_peak_rss"] { figure("frame.luma_oled_peak_rss_measured_now", rss, "MiB") }
  if let process, process > 0 { figure("frame.luma_oled_over_ours_process", lumaCPU / process, "x") }
  if device > 0 { figure("frame.luma_oled_over_ours_device", lumaCPU / device, "x") }
}

/// The built `pomodoro` running a 4-hour focus headless (`simulate --script`, its transcript
/// written to a file): the process's CPU time (user + system) over the frames it displayed, and
/// the I2C bytes a frame. Nil when the binary is not built.
func processCPUPerFrame() -> Double? {
  let binary = siblingBinary("pomodoro")
  guard access(binary, X_OK) == 0 else {
    print("# frame.ours_process figures skipped: build \(binary) first (swift build -c release)")
    return nil
  }
  let config = "/tmp/pomodoro-bench-4h.conf"
  let script = "/tmp/pomodoro-bench-4h.pomo"
  let transcript = "/tmp/pomodoro-bench-4h.jsonl"
  writeText(config, "focus = 4h\n")
  writeText(script, "press start\nwait 4h\n")
  defer { unlink(transcript) }
  let run = spawnAndWait(binary, ["simulate", "--script", script, "--config", config], stdout: transcript)
  guard let summary = lastLine(of: transcript).flatMap(FlatJSON.decode), let frames = summary["frames"]?.int,
    let bytes = summary["i2c_bytes"]?.int, frames > 0
  else {
    print("# frame.ours_process figures skipped: no summary line in \(transcript) (exit status \(run.status))")
    return nil
  }
  let perFrame = Double(run.cpuNanoseconds) / Double(frames) / 1000
  figure("frame.ours_process_cpu_4h_focus", perFrame, "us/frame")
  figure("frame.ours_process_frames_4h_focus", Double(frames), "frames")
  figure("frame.ours_process_i2c_bytes_4h_focus", Double(bytes) / Double(frames), "B/frame")
  figure("frame.ours_process_peak_rss_4h_focus", Double(run.peakKiB) / 1024, "MiB")
  return perFrame
}

/// The last line of the text file at `path` (at most its last 4 KiB are read).
func lastLine(of path: String) -> String? {
  guard let f = fopen(path, "r") else { return nil }
  defer { fclose(f) }
  fseek(f, 0, SEEK_END)
  let size = ftell(f)
  let start = max(0, size - 4096)
  fseek(f, start, SEEK_SET)
  var buffer = [UInt8](repeating: 0, count: size - start)
  let n = fread(&buffer, 1, buffer.count, f)
  let text = String(decoding: buffer[0..<n], as: UTF8.self)
  return text.split(separator: "\n").last.map(String.init)
}

/// The figures (`name value unit` lines) a Python script prints, run with POMODORO_BENCH_PYTHON
/// (python3 when unset); empty when it cannot run (the package is not installed).
func pythonFigures(_ script: String) -> [String: Double] {
  let python = getenv("POMODORO_BENCH_PYTHON").map { String(cString: $0) } ?? "python3"
  guard let pipe = popen("\(python) \(script) 2>/dev/null", "r") else { return [:] }
  var figures: [String: Double] = [:]
  var line = [CChar](repeating: 0, count: 512)
  while fgets(&line, Int32(line.count), pipe) != nil {
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let parts = text.split(separator: " ")
    if parts.count == 3, let value = Double(parts[1]) { figures[String(parts[0])] = value }
  }
  pclose(pipe)
  return figures
}
