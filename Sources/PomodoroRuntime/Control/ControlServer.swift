import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// The control socket: its connections (`ControlConnections`, served in the device's one loop)
/// and what each request comes to, one JSON object a line each way (`ControlProtocol`). Each
/// `ControlCommand` maps to its answer in one exhaustive switch; a batch's replies wait for the
/// save of the state they report (`ReplyHold`, the device's save tickets), and the device is
/// stepped only by the loop, whose next step makes that save (and, when it has ended, sends
/// them: `Device.onSaveEnded`). Watchers get a line at each state change.
public final class ControlServer: LoopSource, DeviceObserver {
  public typealias Answer = ControlAnswer
  public static let maxClients = ControlConnections.maxClients
  public static let maxWatchers = ControlConnections.maxWatchers
  public static let watcherQuiet = ControlConnections.watcherQuiet
  public static let linesPerWake = ControlConnections.linesPerWake
  public static let maxLine = ControlConnections.maxLine
  public static let maxPending = ControlConnections.maxPending
  public static let idleLimit = ControlConnections.idleLimit
  public static let listChunk = ControlConnections.listChunk

  public let connections: ControlConnections
  package let device: Device
  let wallClock: () -> WallTime
  /// Who watched the device before the server (the simulator's screen, a transcript).
  weak var next: DeviceObserver?

  /// Listens at `path` (mode 0660, group `pomodoro` where that group exists) and watches
  /// `device` for state changes (the device's previous observer still sees them).
  public init(path: String, device: Device, log: Log, wallClock: @escaping () -> WallTime = WallTime.now) throws {
    self.device = device
    self.wallClock = wallClock
    connections = try ControlConnections(path: path, clock: device.clock, log: log, hold: device)
    next = device.observer
    device.observer = self
    connections.answer = { [unowned self] request, client in answer(request, from: client) }
    device.onSaveEnded = { [weak connections] in connections?.release() }
  }

  public var path: String { connections.path }
  public func close() { connections.close() }
  public var requests: Int { connections.requests }
  public var dropped: Int { connections.dropped }
  public var refused: Int { connections.refused }
  public var idleClosed: Int { connections.idleClosed }
  public var watchersClosed: Int { connections.watchersClosed }
  public var watchers: Int { connections.watchers }
  public var idleTimeout: Nanoseconds {
    get { connections.idleTimeout }
    set { connections.idleTimeout = newValue }
  }
  var clients: [Int32: ControlClient] { connections.clients }

  /// For STATUS= and the log: "ctl 12 requests, 1 watching".
  public var summary: String {
    var text = "ctl \(requests) request\(requests == 1 ? "" : "s"), \(watchers) watching"
    if dropped > 0 { text += ", \(dropped) dropped" }
    if idleClosed > 0 { text += ", \(idleClosed) idle closed" }
    if watchersClosed > 0 { text += ", \(watchersClosed) watchers made way" }
    return text
  }

  // MARK: LoopSource (the connections')

  public var readDescriptors: [Int32] { connections.readDescriptors }
  public var writeDescriptors: [Int32] { connections.writeDescriptors }
  public func handle(_ wake: Wake) { connections.handle(wake) }
  public var busy: Bool { connections.busy }
  public var deadline: Instant? { connections.deadline }

  // MARK: The answers

  /// The answer to a request: the command's reply, or a list of item lines and its reply; a
  /// refusal's error line.
  func answer(_ request: Result<ControlCommand, ControlProtocol.Refusal>, from client: ControlClient) -> Answer {
    switch request {
    case .failure(let refusal): return refused(refusal)
    case .success(let command): return answer(command, from: client)
    }
  }

  func answer(_ command: ControlCommand, from client: ControlClient) -> Answer {
    switch command {
    case .status:
      return Answer(reply: ok())
    case .watch:
      if let refusal = connections.admitWatcher(client) { return refused(refusal) }
      return Answer(reply: ok())
    case .pair(let code, let url):
      device.showPairing(code, url: url)
      return Answer(reply: ok())
    case .history(let days):
      return listed(device.historyItems(days: days))
    case .config, .configSet, .configReset:
      return listed(device.settingsAnswer(command))
    case .roomSession(let message, let age, let at):
      device.hearRoom(message.session, age: age, at: at, life: seconds(message.expiry))
      return Answer(reply: ok())
    case .roomStatus(let view):
      device.roomSaid(view)
      return Answer(reply: ok())
    case .start, .pause, .resume, .toggle, .cancel, .ack, .skip, .extend, .set, .label, .interrupt, .profile:
      let state = device.state
      switch ControlProtocol.events(for: command, in: state.phase, mode: state.mode, profiles: state.profileNames) {
      case .failure(let refusal): return refused(refusal)
      case .success(let events):
        for event in events { device.perform(event) }
        return Answer(reply: ok())
      }
    }
  }

  func ok() -> String {
    ControlProtocol.okReply(StateFields.full(device.state, at: device.clock.now, wall: wallClock()))
  }

  func refused(_ refusal: ControlProtocol.Refusal) -> Answer {
    Answer(reply: ControlProtocol.errorReply(refusal.message))
  }

  func listed(_ items: Result<[String], ControlProtocol.Refusal>) -> Answer {
    switch items {
    case .failure(let refusal): return refused(refusal)
    case .success(let items): return Answer(items: items, reply: ok())
    }
  }

  // MARK: DeviceObserver

  public func stateChanged(_ state: EngineState, at: Instant) {
    next?.stateChanged(state, at: at)
    watched(state, at: at)
  }

  public func stateShown(_ state: EngineState, at: Instant) {
    next?.stateShown(state, at: at)
    watched(state, at: at)
  }

  /// The watchers' line: the state, and what the step that made it did (`changes`).
  func watched(_ state: EngineState, at: Instant) {
    guard connections.watchers > 0 else { return }
    let fields = StateFields.full(state, at: at, wall: wallClock())
    connections.broadcast(ControlProtocol.watchLine(fields, changes: device.changes.map(\.rawValue)))
  }

  public func frameFlushed(bytes: Int, shown: String, at: Instant) {
    next?.frameFlushed(bytes: bytes, shown: shown, at: at)
  }
  public func buzzerChanged(_ on: Bool, at: Instant) { next?.buzzerChanged(on, at: at) }
  public func noteChanged(_ midi: Int?, at: Instant) { next?.noteChanged(midi, at: at) }
  public func recorded(_ entry: HistoryEntry, at: Instant) { next?.recorded(entry, at: at) }
  public func displayChanged(_ look: DisplayCare.Look, at: Instant) { next?.displayChanged(look, at: at) }
}
