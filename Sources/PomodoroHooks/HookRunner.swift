import PomodoroCore
import PomodoroSystem

/// Runs the hooks of each event, one at a time and in order, on the process's one loop: the
/// command (`hook_command`), then the webhook (`webhook_url`). A bounded queue takes what comes
/// while one runs (`HookQueue`: the oldest dropped, said once); a webhook that fails (no answer,
/// or not 2xx) is tried again after `retryAfter`'s back-off, at most `attempts` times in all.
public final class HookRunner: LoopSource {
  public struct Setup {
    public var command: String?
    public var webhook: String?
    /// The webhook's header lines (`webhook_headers`), Content-Type added unless they set one.
    public var headers: [String]
    public var timeout: Nanoseconds
    /// The process's own environment, which a command inherits beside the event's variables.
    public var environment: [(String, String)]

    public init(
      command: String?, webhook: String?, headers: [String] = [], timeout: Nanoseconds,
      environment: [(String, String)] = []
    ) {
      self.command = command
      self.webhook = webhook
      self.headers = headers
      self.timeout = timeout
      self.environment = environment
    }
  }

  enum Job {
    case command(HookEvent)
    case webhook(HookEvent, attempt: Int)
  }

  enum Running {
    case command(CommandRun)
    case webhook(WebhookPost, HookEvent, attempt: Int)
  }

  public static let attempts = 3
  /// The waits before the second and third attempts.
  public static let retryAfter: [Nanoseconds] = [seconds(2), seconds(8)]

  let setup: Setup
  let clock: MonotonicClock
  let log: Log
  var queue = HookQueue<Job>()
  var running: Running?
  /// A failed webhook waiting for its next attempt (it holds the order: nothing runs before it).
  var retry: (job: Job, at: Instant)?
  /// Hooks run to their end since start (tests and the bench count them).
  public private(set) var finished = 0

  public init(_ setup: Setup, clock: MonotonicClock, log: Log) {
    self.setup = setup
    self.clock = clock
    self.log = log
  }

  /// Queues the hooks of `event`, and starts the first when none runs.
  public func take(_ event: HookEvent) {
    if setup.command != nil { queue.append(.command(event)) }
    if setup.webhook != nil { queue.append(.webhook(event, attempt: 1)) }
    startNext()
  }

  /// Whether nothing runs or waits.
  public var idle: Bool { running == nil && retry == nil && queue.isEmpty }

  public var readDescriptors: [Int32] {
    switch running {
    case .command(let run)?: return run.readDescriptors
    case .webhook(let post, _, _)?: return post.readDescriptors
    case nil: return []
    }
  }

  public var writeDescriptors: [Int32] {
    switch running {
    case .command(let run)?: return run.writeDescriptors
    case .webhook(let post, _, _)?: return post.writeDescriptors
    case nil: return []
    }
  }

  public var deadline: Instant? {
    switch running {
    case .command(let run)?: return run.nextDeadline
    case .webhook(let post, _, _)?: return post.nextDeadline
    case nil: return retry?.at
    }
  }

  public func handle(_ wake: Wake) {
    let now = clock.now
    switch running {
    case .command(let run)?:
      if run.handle(wake, at: now) { ended() }
    case .webhook(let post, let event, let attempt)?:
      if post.handle(wake, at: now) {
        settle(post.outcome, event: event, attempt: attempt, at: now)
        ended()
      }
    case nil: break
    }
    startNext()
  }

  /// Ends what runs (the process stops).
  public func stop() {
    if case .command(let run)? = running { run.abandon() }
    running = nil
  }

  private func ended() {
    running = nil
    finished += 1
  }

  private func settle(_ outcome: WebhookPost.Outcome?, event: HookEvent, attempt: Int, at now: Instant) {
    let why: String
    switch outcome {
    case .answered(let status)? where (200..<300).contains(status):
      log.info("webhook \(event.name): \(status)")
      return
    case .answered(let status)?: why = "answered \(status)"
    case .failed(let reason)?: why = reason
    case nil: why = "no answer"
    }
    guard attempt < Self.attempts else {
      log.warning("webhook \(event.name) failed (\(why)); gave up after \(attempt) attempts")
      return
    }
    let wait = Self.retryAfter[min(attempt - 1, Self.retryAfter.count - 1)]
    log.warning("webhook \(event.name) failed (\(why)); trying again in \(DurationText.format(wait))")
    retry = (.webhook(event, attempt: attempt + 1), now + wait)
  }

  private func startNext() {
    while running == nil {
      let now = clock.now
      let job: Job
      if let waiting = retry {
        guard now >= waiting.at else { return }
        job = waiting.job
        retry = nil
      } else {
        guard let (next, dropped) = queue.next() else { return }
        if dropped > 0 {
          log.warning("hooks fell behind: dropped the \(dropped) oldest (at most \(queue.limit) wait)")
        }
        job = next
      }
      start(job, at: now)
    }
  }

  private func start(_ job: Job, at now: Instant) {
    switch job {
    case .command(let event):
      guard let path = setup.command else { return }
      switch CommandRun.start(
        path, event: event, environment: setup.environment + event.environment, timeout: setup.timeout, at: now,
        log: log)
      {
      case .success(let run): running = .command(run)
      case .failure(let error): log.error("hook_command \(event.name): \(error) (hook_command = \(path))")
      }
    case .webhook(let event, let attempt):
      guard let url = setup.webhook else { return }
      let post = WebhookPost(
        url: url, headers: setup.headers, body: event.json, timeout: setup.timeout, at: now)
      if post.outcome != nil {
        settle(post.outcome, event: event, attempt: attempt, at: now)
      } else {
        running = .webhook(post, event, attempt: attempt)
      }
    }
  }
}
