import PomodoroCore
import PomodoroDrivers
import PomodoroMock

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Figures for the inputs: the quadrature decoder's throughput and its accuracy under bounce,
/// the button debouncer's cost, and gpiozero's RotaryEncoder beside them.
func inputBench() {
  decoderThroughput()
  decoderAccuracyUnderBounce()
  debouncerCost()
  gpiozeroPeer()
}

/// Clean quadrature edges, spinning back and forth, decoded as fast as the CPU allows.
private func decoderThroughput() {
  var rng = SplitMix64(seed: 1)
  var edges: [(QuadratureChannel, Bool)] = []
  edges.reserveCapacity(1_000_000)
  var state = 0
  while edges.count < 1_000_000 {
    let direction = rng.next() % 2 == 0 ? 1 : -1
    for _ in 0..<(4 * (1 + Int(rng.next() % 20))) {
      let before = MockGPIOScript.encoderLevels(state: state)
      state += direction
      let after = MockGPIOScript.encoderLevels(state: state)
      // Logical levels: active-low contacts, so logical = !physical.
      edges.append(before.a != after.a ? (.a, !after.a) : (.b, !after.b))
    }
  }
  var decoder = QuadratureDecoder()
  var detents = 0
  let rounds = 5
  let start = cpuNanoseconds()
  for round in 0..<rounds {
    var t = Instant(nanoseconds: seconds(Int64(round)))
    for (channel, active) in edges {
      t = t + 1000
      if let d = decoder.edge(channel, active: active, at: t) { detents &+= d.steps }
    }
  }
  let cpu = Double(cpuNanoseconds() - start)
  let count = Double(edges.count * rounds)
  figure("decoder_cpu_per_edge", cpu / count, "ns")
  figure("decoder_edges_per_cpu_second", count / cpu * 1e9, "edges/s")
  if detents != decoder.detents { print("decoder_self_check_failed 1 flag") }
}

/// A long random run through the mock chip: 200 detents/s at most, up to 0.5 ms of bounce on
/// every edge, direction changes; detents counted against detents turned.
private func decoderAccuracyUnderBounce() {
  let clock = VirtualClock()
  let chip = MockGPIOChip.raspberryPiHeader(clock: clock, seed: 42)
  guard
    let lines = try? chip.requestInputs(
      [InputLineSpec(line: "GPIO17"), InputLineSpec(line: "GPIO27")], consumer: "bench")
  else { return }
  var decoder = QuadratureDecoder()
  var rng = SplitMix64(seed: 7)
  var turned = 0
  var reported = 0
  var wrongEvents = 0
  var edgeCount = 0
  for _ in 0..<2000 {
    let n = 1 + Int(rng.next() % 15)
    let sign = rng.next() % 2 == 0 ? 1 : -1
    let spacing = ms(5) + Int64(rng.next() % UInt64(ms(45)))
    let end = chip.scheduleTurn(
      a: "GPIO17", b: "GPIO27", detents: sign * n, start: clock.now + ms(1), spacing: spacing,
      bounce: Int64(rng.next() % 500_001))
    clock.advance(to: end + ms(5))
    for edge in (try? lines.readEdges()) ?? [] {
      edgeCount += 1
      if let d = decoder.edge(edge.index == 0 ? .a : .b, active: edge.active, at: edge.timestamp) {
        reported += abs(d.steps)
        if d.steps != sign { wrongEvents += 1 }
      }
    }
    turned += n
  }
  figure("decoder_bounce_detents_turned", Double(turned), "detents")
  figure("decoder_bounce_detents_reported_per_turned", Double(reported) / Double(turned), "ratio")
  figure("decoder_bounce_wrong_direction_events", Double(wrongEvents), "events")
  figure("decoder_bounce_edges_per_detent", Double(edgeCount) / Double(turned), "edges")
}

/// Button presses with 5 ms of chatter on both edges, through the debouncer.
private func debouncerCost() {
  var rng = SplitMix64(seed: 3)
  var edges: [(Bool, Instant)] = []
  var t = Instant.zero
  for _ in 0..<20_000 {
    for high in [false, true] {
      t = t + ms(100)
      for e in MockGPIOScript.settle(high: high, at: t, bounce: ms(5), rng: &rng) { edges.append((!e.high, e.time)) }
    }
  }
  var presses = 0
  let start = cpuNanoseconds()
  var debouncer = ButtonDebouncer()
  for (active, time) in edges {
    for event in debouncer.edge(active: active, at: time) { if case .pressed = event { presses += 1 } }
  }
  for event in debouncer.advance(to: t + seconds(2)) { if case .pressed = event { presses += 1 } }
  let cpu = Double(cpuNanoseconds() - start)
  figure("debouncer_cpu_per_edge", cpu / Double(edges.count), "ns")
  figure("debouncer_presses_per_20000_chattering_presses", Double(presses), "presses")
}

/// gpiozero's RotaryEncoder on its mock pins, measured by Tests/bench/gpiozero_rotary.py when
/// python3 can import gpiozero (POMODORO_BENCH_PYTHON picks the interpreter), and the figure
/// measured earlier on one of these machines (4.4 us an edge), always.
private func gpiozeroPeer() {
  figure("gpiozero_rotary_cpu_per_edge_reported_in_facts", 4.4, "us")
  let python = getenv("POMODORO_BENCH_PYTHON").map { String(cString: $0) } ?? "python3"
  guard let pipe = popen("\(python) Tests/bench/gpiozero_rotary.py 2>/dev/null", "r") else { return }
  var line = [CChar](repeating: 0, count: 512)
  while fgets(&line, Int32(line.count), pipe) != nil {
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasPrefix("gpiozero_rotary_cpu_per_edge ") || text.hasPrefix("gpiozero_rotary_edges_per_cpu_second ") {
      let parts = text.split(separator: " ")
      if parts.count == 3, let value = Double(parts[1]) {
        figure(parts[0] + "_measured_now", value, String(parts[2].filter { $0 != "\n" }))
      }
    }
  }
  pclose(pipe)
}
