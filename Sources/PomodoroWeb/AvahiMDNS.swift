import CPomodoroWeb
import PomodoroCore
import PomodoroSystem

/// libavahi-client through its shim (`pomodoro_mdns.h`): the shim is Avahi's `AvahiPoll`, so its
/// watches and timeouts are served by the one loop (`Announcer` is the `LoopSource`); no Avahi
/// thread, no simple-poll. Avahi's times (gettimeofday's) become monotonic deadlines in the shim.
public final class AvahiMDNS: MDNSService {
  public static var available: Bool { pomo_mdns_available() == 1 }

  var handle: OpaquePointer?
  let clock: MonotonicClock
  var fds: [Int32] = []
  var events: [Int16] = []

  public init(clock: MonotonicClock) { self.clock = clock }

  deinit { stop() }

  public func start() -> String? {
    var error = [CChar](repeating: 0, count: 512)
    handle = pomo_mdns_start(&error, error.count)
    return handle == nil ? text(ofCString: error) : nil
  }

  public func stop() {
    if let handle { pomo_mdns_stop(handle) }
    handle = nil
  }

  public func restart() -> String? {
    guard let handle else { return "no client" }
    let e = pomo_mdns_restart(handle)
    return e == 0 ? nil : reason(e)
  }

  func reason(_ error: Int32) -> String { String(cString: pomo_mdns_strerror(handle, error)) }

  func watches() -> [(fd: Int32, events: Int16)] {
    guard let handle else { return [] }
    var fds = [Int32](repeating: -1, count: 16)
    var events = [Int16](repeating: 0, count: 16)
    let n = Int(pomo_mdns_watches(handle, &fds, &events, Int32(fds.count)))
    return (0..<n).map { (fds[$0], events[$0]) }
  }

  public var readDescriptors: [Int32] { watches().filter { $0.events & Int16(POLLIN) != 0 }.map(\.fd) }
  public var writeDescriptors: [Int32] { watches().filter { $0.events & Int16(POLLOUT) != 0 }.map(\.fd) }
  public var deadline: Instant? {
    guard let handle else { return nil }
    let ms = pomo_mdns_timeout_ms(handle)
    return ms < 0 ? nil : clock.now + PomodoroCore.ms(ms)
  }

  public func serve(_ wake: Wake) {
    guard let handle else { return }
    pomo_mdns_dispatch(handle, wake.readable, Int32(wake.readable.count), wake.writable, Int32(wake.writable.count))
  }

  public func nextEvent() -> MDNSEvent? {
    guard let handle else { return nil }
    var error: Int32 = 0
    switch Int(pomo_mdns_next_event(handle, &error)) {
    case Int(POMO_MDNS_RUNNING): return .running
    case Int(POMO_MDNS_HOST_CHANGING): return .hostChanging
    case Int(POMO_MDNS_CONNECTING): return .connecting
    case Int(POMO_MDNS_DAEMON_GONE): return .daemonGone
    case Int(POMO_MDNS_CLIENT_FAILURE): return .clientFailure(reason(error))
    case Int(POMO_MDNS_ESTABLISHED): return .established
    case Int(POMO_MDNS_NAME_COLLISION): return .nameCollision
    case Int(POMO_MDNS_GROUP_FAILURE): return .groupFailure(reason(error))
    default: return nil
    }
  }

  public func publish(name: String, type: String, port: Int, txt: [String]) -> MDNSPublish {
    guard let handle else { return .failed("no client") }
    var strings = txt.map { strdup($0) }
    defer { for s in strings { free(s) } }
    let e = strings.withUnsafeMutableBufferPointer { b in
      b.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: b.count) {
        pomo_mdns_publish(handle, name, type, Int32(port), $0, Int32(b.count))
      }
    }
    if e == 0 { return .added }
    return e == POMO_MDNS_ERR_COLLISION ? .nameTaken : .failed(reason(e))
  }

  public func withdraw() {
    if let handle { pomo_mdns_withdraw(handle) }
  }

  public func alternative(_ name: String) -> String {
    var out = [CChar](repeating: 0, count: 256)
    pomo_mdns_alternative(handle, name, &out, out.count)
    return text(ofCString: out)
  }
}
