import PomodoroConfig
import PomodoroControl
import PomodoroCore
import PomodoroSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pomodoro hooks`: runs the owner's command and posts their webhook on every change the device
/// says (docs/hooks.md), a process of its own beside the device, as `pomodoro mqtt` and `pomodoro
/// web` are: it reaches the device only through its control socket (the shared `DeviceLink`),
/// and nothing a hook does (hang, flood, fail) reaches the device's loop.
public enum HooksService {
  /// The setup the config asks for; why not when it asks for nothing, or its headers file is bad.
  public static func setup(_ config: DeviceConfig, environment: [(String, String)]) -> Result<
    HookRunner.Setup, ConfigError
  > {
    let file = DeviceConfig.defaultPath
    guard config.hookCommand != nil || config.webhookURL != nil else {
      return .failure(
        ConfigError(
          file: file, line: 0,
          message: "neither hook_command nor webhook_url is set: set one (docs/hooks.md), then start pomodoro hooks"))
    }
    var headers: [String] = []
    if let path = config.webhookHeaders {
      let text: String?
      do {
        text = try Files.readText(path)
      } catch {
        return .failure(
          ConfigError(
            file: path, line: 0,
            message: "cannot read it (\(error)): webhook_headers names a file the user pomodoro-hooks can read"))
      }
      switch WebhookHeaders.parse(text ?? "", file: path) {
      case .success(let lines): headers = lines
      case .failure(let error): return .failure(error)
      }
    }
    if !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
      headers.append("Content-Type: application/json; charset=utf-8")
    }
    return .success(
      HookRunner.Setup(
        command: config.hookCommand, webhook: config.webhookURL, headers: headers, timeout: config.hookTimeout,
        environment: environment.filter { !$0.0.hasPrefix("POMODORO_") }))
  }

  /// Runs until SIGTERM or SIGINT; the exit code.
  public static func run(
    config: DeviceConfig, setup: HookRunner.Setup, socketPath: String, log: Log, clock: MonotonicClock = SystemClock()
  ) throws -> Int32 {
    let link = DeviceLink(socketPath: socketPath, clock: clock, log: log, shownIn: "the hooks")
    let runner = HookRunner(setup, clock: clock, log: log)
    link.onState = { line in
      for event in HookEvent.of(line) { runner.take(event) }
    }
    let waiter = try PollWaiter(clock: clock)
    log.info(
      "running \([setup.command.map { "hook_command \($0)" }, setup.webhook.map { "webhook_url \($0)" }].compactMap { $0 }.joined(separator: " and ")) "
        + "on every change of the device at \(socketPath) (hook_timeout \(DurationText.format(setup.timeout)))")
    if setup.webhook != nil, let why = WebhookPost.unavailable { log.error("webhooks cannot be posted: \(why)") }
    while true {
      let signals = try SourceLoop.turn([link, runner], waiter: waiter)
      if signals.contains(where: { $0 != SIGHUP }) { break }
    }
    runner.stop()
    link.close()
    log.info("stopped")
    return ExitCode.ok
  }
}
