import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// `pomodoro web`: the desk's page and API on the LAN, a process of its own. It reaches the
/// device only through its control socket (the shared `DeviceLink`) and keeps the paired
/// browsers in its state directory.
public enum WebService {
  public static var available: Bool { HTTPServer.available }
  public static let notInstalled =
    "the web page was not compiled in: libmicrohttpd is not installed (sudo apt install libmicrohttpd-dev, then rebuild)"

  /// Where the pairings are kept: systemd's $STATE_DIRECTORY, else /var/lib/pomodoro-web for root
  /// (or where it exists and may be written), else ~/.local/state/pomodoro-web (a laptop's
  /// `pomodoro web` beside the simulator).
  public static func stateDirectory(environment: [String: String]) -> String {
    if let dir = environment["STATE_DIRECTORY"], !dir.isEmpty {
      return String(dir.split(separator: ":").first ?? Substring(dir))
    }
    let system = "/var/lib/pomodoro-web"
    if geteuid() == 0 || access(system, W_OK) == 0 { return system }
    let base =
      environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? ((environment["HOME"] ?? "/tmp") + "/.local/state")
    return base + "/pomodoro-web"
  }

  /// Serves until SIGTERM or SIGINT; the exit code.
  public static func run(
    config: DeviceConfig, socketPath: String, stateDirectory: String, log: Log, clock: MonotonicClock = SystemClock()
  ) throws -> Int32 {
    try Files.makeDirectories(stateDirectory, permissions: 0o700)
    let link = DeviceLink(socketPath: socketPath, clock: clock, log: log, shownIn: "the page")
    let server = try HTTPServer(
      address: config.webBind, port: config.webPort, queryNames: WebDesk.queryNames, clock: clock)
    let desk = WebDesk(
      link: link, server: server, hosts: .thisMachine(), rereadHosts: { .thisMachine() }, view: config.webView,
      pairings: Pairings(directory: stateDirectory), clock: clock, log: log)
    let port = server.port
    desk.pageURL = { client in
      PageAddress.url(interfaces: PageAddress.interfaces(), client: client, bind: config.webBind, port: port)
    }
    let waiter = try PollWaiter(clock: clock)
    log.info(
      "serving the page on \(config.webBind ?? "every interface") port \(server.port) (view: \(config.webView.rawValue)) "
        + "for the device at \(socketPath); pairings in \(stateDirectory)")
    // SIGHUP has nothing to read again (the keys apply at a restart): only SIGTERM and SIGINT stop it.
    // Announced over mDNS while it serves (Avahi in this loop); withdrawn when it stops.
    let announcer = Announcer(
      hostName: AllowedHosts.thisHostName(), port: server.port, service: AvahiMDNS(clock: clock), clock: clock, log: log
    )
    announcer.start()
    while true {
      let signals = try SourceLoop.turn([link, server, desk, announcer], waiter: waiter)
      if signals.contains(where: { $0 != SIGHUP }) { break }
    }
    announcer.stop()
    link.close()
    log.info("stopped")
    return ExitCode.ok
  }
}
