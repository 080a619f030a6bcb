import PomodoroCore
import PomodoroDrivers
import PomodoroGraphics

/// A bus that only counts: the driver's diff and encoding without any emulation cost.
private final class CountingBus: I2CBus {
  var wireBytes = 0
  func writeBlock(address: UInt8, command: UInt8, data: ArraySlice<UInt8>) throws {
    wireBytes += I2CBusLimits.wireBytes(dataCount: data.count)
  }
}

/// What a whole countdown costs on the bus, woken as the runtime wakes: at the engine's next
/// wake or the screen's next animation frame, whichever is first.
private struct CountdownCost {
  var perSecond: [Int] = []
  var tickFrames: [Int] = []
  var animationFrames: [Int] = []
}

private func countdownCost(mode: Mode, controller: OLEDController) -> CountdownCost {
  let bus = CountingBus()
  let driver = OLEDDriver(bus: bus, controller: controller)
  try? driver.initialize()
  let t0 = Instant(nanoseconds: 0)
  var state = EngineState(now: t0)
  while state.mode != mode { state = Engine.step(state, .press(.encoder), now: t0).0 }
  _ = try? driver.flush(renderScreen(state: state, now: t0))
  state = Engine.step(state, .press(.start), now: t0).0
  let total = state.duration ?? 0  // The countdowns only: a flow has no length.
  var cost = CountdownCost()
  cost.perSecond = [Int](repeating: 0, count: Int(total / nanosecondsPerSecond) + 1)
  var now = t0
  var lastText = ""
  var wasDissolving = true
  while state.phase == .running {
    let wakes = [Engine.nextWake(state, now: now), nextFrameTime(state: state, now: now)].compactMap { $0 }
    guard let next = wakes.min() else { break }
    now = next
    state = Engine.step(state, .tick, now: now).0
    guard state.phase == .running else { break }
    let model = ScreenModel(state: state, now: now)
    let bytes = (try? driver.flush(renderScreen(model))) ?? 0
    // Second n of the countdown is the one that ends n + 1 seconds after the start.
    let second = Int((now - t0 - 1) / nanosecondsPerSecond)
    if second < cost.perSecond.count { cost.perSecond[second] += bytes }
    // Frames of the start dissolve (and the one that ends it) are neither ticks nor spin steps.
    if model.transition == nil && !wasDissolving {
      if model.timeText != lastText { cost.tickFrames.append(bytes) } else { cost.animationFrames.append(bytes) }
    }
    wasDissolving = model.transition != nil
    lastText = model.timeText
  }
  return cost
}

private func median(_ v: [Int]) -> Double {
  guard !v.isEmpty else { return 0 }
  let s = v.sorted()
  return s.count % 2 == 1 ? Double(s[s.count / 2]) : Double(s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The device's own cost of one frame of a running focus, in CPU nanoseconds: render, diff
/// against the controller's RAM, encode, and the bytes counted on a bus that only counts.
func renderDiffEncodeCPU() -> Double {
  let t0 = Instant(nanoseconds: 0)
  let state = Engine.step(EngineState(now: t0), .press(.start), now: t0).0
  let driver = OLEDDriver(bus: CountingBus())
  try? driver.initialize()
  var now = t0 + seconds(5)
  var sink = 0
  let frame = cpuPerIteration(20_000) {
    now = now + ms(250)
    sink &+= (try? driver.flush(renderScreen(state: state, now: now))) ?? 0
  }
  if sink == 42 { print("") }
  return frame
}

/// The display's figures: CPU per frame, and I2C bytes per frame and per second of a countdown.
func displayBench() {
  let t0 = Instant(nanoseconds: 0)
  let state = Engine.step(EngineState(now: t0), .press(.start), now: t0).0
  var now = t0 + seconds(5)
  var sink = 0
  let render = cpuPerIteration(20_000) {
    now = now + ms(250)
    sink &+= Int(renderScreen(state: state, now: now).bytes[300])
  }
  figure("display.render_cpu", render / 1000, "us/frame")
  figure("display.render_diff_encode_cpu", renderDiffEncodeCPU() / 1000, "us/frame")

  var full: [OLEDController: Int] = [:]
  for controller in OLEDController.allCases {
    let d = OLEDDriver(bus: CountingBus(), controller: controller)
    try? d.initialize()
    full[controller] = (try? d.flush(Framebuffer())) ?? 0
    figure("display.full_frame_\(controller.rawValue)", Double(full[controller]!), "bytes")
  }
  for controller in OLEDController.allCases {
    let name = controller.rawValue
    let focus = countdownCost(mode: .focus, controller: controller)
    figure("display.countdown_25min_\(name)_per_second_median", median(focus.perSecond), "bytes/s")
    figure("display.countdown_25min_\(name)_per_second_max", Double(focus.perSecond.max() ?? 0), "bytes/s")
    figure(
      "display.countdown_25min_\(name)_per_second_max_after_start_dissolve",
      Double(focus.perSecond.dropFirst().max() ?? 0), "bytes/s")
    figure("display.tick_frame_\(name)_median", median(focus.tickFrames), "bytes")
    figure("display.tick_frame_\(name)_max", Double(focus.tickFrames.max() ?? 0), "bytes")
    figure("display.tick_frame_\(name)_median_of_full", 100 * median(focus.tickFrames) / Double(full[controller]!), "%")
    figure(
      "display.tick_frame_\(name)_max_of_full", 100 * Double(focus.tickFrames.max() ?? 0) / Double(full[controller]!),
      "%")
    figure("display.spin_frame_\(name)_median", median(focus.animationFrames), "bytes")
    figure("display.spin_frame_\(name)_max", Double(focus.animationFrames.max() ?? 0), "bytes")
    let egg = countdownCost(mode: .soft, controller: controller)
    figure("display.egg_countdown_5min_\(name)_per_second_median", median(egg.perSecond), "bytes/s")
    figure("display.egg_countdown_5min_\(name)_per_second_max", Double(egg.perSecond.max() ?? 0), "bytes/s")
  }
  if sink == 42 { print("") }
}
