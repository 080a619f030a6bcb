import PomodoroCore

/// What a loop serves besides the device's own inputs: the control socket's listener and
/// clients, a bridge's link to the device and its broker. Asked before every sleep; told what
/// woke the loop.
public protocol LoopSource: AnyObject {
  /// Descriptors to wake on when readable.
  var readDescriptors: [Int32] { get }
  /// Descriptors to wake on when writable (those with bytes waiting to go out).
  var writeDescriptors: [Int32] { get }
  /// Acts on what the wake found readable or writable, and on its own deadline when that has
  /// come; must never block.
  func handle(_ wake: Wake)
  /// When the source wants the loop to wake even if nothing is ready (the control socket's
  /// idle clients, a retry); nil when never.
  var deadline: Instant? { get }
}

extension LoopSource {
  public var deadline: Instant? { nil }
}

/// The loop of a process without a device of its own (the MQTT bridge, `--remove`): its
/// sources in one wait, each told of every wake.
public enum SourceLoop {
  /// Sleeps until a source's descriptor is ready, the earliest deadline (or `until`) comes or a
  /// signal arrives; hands the wake to every source unless a signal came. Returns the signals.
  public static func turn(_ sources: [LoopSource], waiter: Waiter, until: Instant? = nil) throws -> [Int32] {
    let deadline = (sources.map(\.deadline) + [until]).compactMap { $0 }.min()
    let wake = try waiter.wait(
      until: deadline, watching: sources.flatMap(\.readDescriptors), writable: sources.flatMap(\.writeDescriptors))
    guard wake.signals.isEmpty else { return wake.signals }
    for source in sources { source.handle(wake) }
    return []
  }
}
