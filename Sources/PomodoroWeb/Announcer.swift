import PomodoroCore
import PomodoroSystem

/// What Avahi said, as the announcer decides on it.
public enum MDNSEvent: Equatable, Sendable {
  /// The daemon is there, the host's name settled: the service may be added.
  case running
  /// The host's name is being registered again (or collided): what was added is withdrawn.
  case hostChanging
  /// Waiting for avahi-daemon.
  case connecting
  /// avahi-daemon went away: a new client waits for it.
  case daemonGone
  /// The client failed for good (the reason).
  case clientFailure(String)
  /// The service is announced.
  case established
  /// Another service on the LAN has the name.
  case nameCollision
  /// Adding the service failed (the reason).
  case groupFailure(String)
}

/// What adding the service came to.
public enum MDNSPublish: Equatable, Sendable {
  case added
  /// Another service of this host has the name (Avahi's local collision).
  case nameTaken
  case failed(String)
}

/// What the announcer needs of Avahi: `AvahiMDNS` (libavahi-client through its shim, served by
/// the one loop), or a test's double.
public protocol MDNSService: AnyObject {
  /// Makes the client (waiting for the daemon if it is not there yet); the reason when it cannot.
  func start() -> String?
  /// Frees the client: everything announced is withdrawn.
  func stop()
  /// A new client after the daemon went away; the reason when it cannot be made.
  func restart() -> String?
  var readDescriptors: [Int32] { get }
  var writeDescriptors: [Int32] { get }
  var deadline: Instant? { get }
  /// Serves Avahi's watches and timeouts for this wake.
  func serve(_ wake: Wake)
  /// The next event Avahi said, nil when none.
  func nextEvent() -> MDNSEvent?
  /// Adds (replacing what was added) and commits the service.
  func publish(name: String, type: String, port: Int, txt: [String]) -> MDNSPublish
  func withdraw()
  /// Avahi's alternative to a name after a collision ("Pomodoro on desk #2").
  func alternative(_ name: String) -> String
}

/// The page announced over mDNS/DNS-SD while `pomodoro web` serves: an `_http._tcp` service
/// "Pomodoro on <host name>" on the port it serves, TXT `path=/`, through Avahi in the one loop
/// (a `LoopSource`: Avahi's descriptors and timeouts are the loop's, no thread, no simple-poll).
/// A name taken on the LAN gets Avahi's alternative ("... #2"); a daemon that restarts gets the
/// service again. It never gives up while the server runs: a failed client or group (or twenty
/// names taken in a row) is tried again with back-off, said once until the name is announced
/// again, and a name once announced starts the count of collisions afresh. Only Avahi's library
/// missing (or not compiled in) at the start is one log line for good; the page serves on.
public final class Announcer: LoopSource {
  public static let serviceType = "_http._tcp"
  public static let txt = ["path=/"]
  /// DNS-SD's longest instance name, in bytes of UTF-8.
  public static let longestName = 63

  public private(set) var name: String
  /// The name before any collision: what a try after back-off starts from again.
  let firstName: String
  public let port: Int
  let service: MDNSService
  let clock: MonotonicClock
  let log: Log
  /// The service was handed to Avahi (and not withdrawn since).
  var published = false
  /// Avahi said it is announced.
  public private(set) var announced = false
  /// Avahi cannot be used (its library absent) or the server stopped: nothing more is tried.
  public private(set) var off = false
  var saidWaiting = false
  /// A client exists (started, not stopped after a failure).
  var clientUp = false
  /// The client said the daemon runs and the host's name is settled: a service may be added.
  var running = false
  /// The wait before the next try after a failure: 1 s, doubling to 5 minutes; reset once the
  /// name is announced.
  var backoff = Backoff(first: seconds(1), last: seconds(300))
  /// When the next try is due, and what it makes again: a new client, or the service.
  public private(set) var retryAt: Instant?
  var retryClient = false

  public init(hostName: String, port: Int, service: MDNSService, clock: MonotonicClock, log: Log) {
    name = Self.serviceName(hostName: hostName)
    firstName = name
    self.port = port
    self.service = service
    self.clock = clock
    self.log = log
  }

  /// "Pomodoro on <host name>", cut to 63 bytes of UTF-8 at a character's end ("Pomodoro" when
  /// the name is empty).
  public static func serviceName(hostName: String) -> String {
    cut(hostName.isEmpty ? "Pomodoro" : "Pomodoro on " + hostName)
  }

  /// `text` cut to `limit` bytes of UTF-8 without splitting a character.
  static func cut(_ text: some StringProtocol, to limit: Int = longestName) -> String {
    var out = ""
    var bytes = 0
    for c in text {
      let n = String(c).utf8.count
      if bytes + n > limit { break }
      out.append(c)
      bytes += n
    }
    return out
  }

  /// An alternative name that fits: its " #N" kept, the name before it cut to make room.
  static func fitting(_ alternative: String) -> String {
    guard alternative.utf8.count > longestName, let hash = alternative.lastIndex(of: "#"),
      hash > alternative.startIndex, alternative[alternative.index(before: hash)] == " "
    else { return cut(alternative) }
    let space = alternative.index(before: hash)
    let suffix = alternative[space...]
    return cut(alternative[..<space], to: longestName - suffix.utf8.count) + suffix
  }

  /// Starts the client; false (said once, the page serves on) when Avahi cannot be used at all
  /// (its library missing or not compiled in): the only failure not tried again.
  @discardableResult
  public func start() -> Bool {
    if let reason = service.start() {
      if !off {
        log.warning(
          "the page is not announced over mDNS (cannot reach Avahi: \(reason)); it serves on: open http://<this host's name>.local:\(port)"
        )
      }
      off = true
      return false
    }
    clientUp = true
    return true
  }

  /// Withdraws the service (the client freed).
  public func stop() {
    guard !off else { return }
    if clientUp { service.stop() }
    if announced { log.info("withdrew '\(name)' from mDNS") }
    announced = false
    published = false
    clientUp = false
    retryAt = nil
    off = true
  }

  /// Something failed: said once until the name is announced again; the client (`client`) or
  /// the service tried again after the back-off's wait.
  func failed(_ why: String, client: Bool) {
    published = false
    announced = false
    if client {
      if clientUp { service.stop() }
      clientUp = false
      running = false
    }
    retryClient = retryClient || client
    let wait = backoff.next()
    retryAt = clock.now + wait
    log.once(
      "mdns", .warning,
      "the page is not announced over mDNS (\(why)); it serves on: open http://<this host's name>.local:\(port); "
        + "trying again with back-off (up to \(DurationText.format(backoff.last))), said once")
  }

  /// The try the back-off waited for: a new client (it publishes when it runs), or the service
  /// again from the first name.
  func retry() {
    retryAt = nil
    if retryClient || !clientUp {
      retryClient = false
      saidWaiting = false
      if let reason = service.start() {
        failed("a new Avahi client failed: \(reason)", client: true)
      } else {
        clientUp = true
      }
    } else if running && !published {
      publish()
    }
  }

  /// Names tried after collisions before backing off (Avahi counts " #2", " #3"...).
  static let alternatives = 20
  /// Collisions since the name was last announced.
  public private(set) var collisions = 0

  func publish() {
    switch service.publish(name: name, type: Self.serviceType, port: port, txt: Self.txt) {
    case .added: published = true
    case .nameTaken: takeAlternative()
    case .failed(let reason): failed("cannot add '\(name)': \(reason)", client: false)
    }
  }

  /// The name is taken (on the LAN, or by another service of this host): Avahi's alternative;
  /// twenty in a row, a wait, then the first name again.
  func takeAlternative() {
    collisions += 1
    guard collisions <= Self.alternatives else {
      let last = name
      service.withdraw()
      collisions = 0
      name = firstName
      failed("\(Self.alternatives) names were taken, the last '\(last)'", client: false)
      return
    }
    let old = name
    name = Self.fitting(service.alternative(name))
    log.notice("the name '\(old)' is taken on the LAN; announcing as '\(name)'")
    announced = false
    publish()
  }

  // MARK: LoopSource

  public var readDescriptors: [Int32] { off || !clientUp ? [] : service.readDescriptors }
  public var writeDescriptors: [Int32] { off || !clientUp ? [] : service.writeDescriptors }
  public var deadline: Instant? {
    guard !off else { return nil }
    return [clientUp ? service.deadline : nil, retryAt].compactMap { $0 }.min()
  }

  public func handle(_ wake: Wake) {
    guard !off else { return }
    if let at = retryAt, at <= clock.now { retry() }
    guard clientUp else { return }
    service.serve(wake)
    while !off, clientUp, let event = service.nextEvent() { take(event) }
  }

  func take(_ event: MDNSEvent) {
    switch event {
    case .running:
      saidWaiting = false
      running = true
      if !published && retryAt == nil { publish() }
    case .hostChanging:
      service.withdraw()
      running = false
      published = false
      announced = false
    case .connecting:
      running = false
      if !saidWaiting { log.notice("waiting for avahi-daemon to announce the page over mDNS") }
      saidWaiting = true
    case .daemonGone:
      running = false
      published = false
      announced = false
      log.warning("avahi-daemon went away; the page is announced again when it is back")
      if let reason = service.restart() { failed("a new Avahi client failed: \(reason)", client: true) }
    case .clientFailure(let reason):
      failed("Avahi failed: \(reason)", client: true)
    case .established:
      announced = true
      collisions = 0
      backoff.reset()
      retryAt = nil
      log.forget("mdns")
      log.notice(
        "announced as '\(name)' (\(Self.serviceType), port \(port), \(Self.txt.joined(separator: " "))) over mDNS")
    case .nameCollision:
      takeAlternative()
    case .groupFailure(let reason):
      service.withdraw()
      failed("Avahi could not announce '\(name)': \(reason)", client: false)
    }
  }
}
