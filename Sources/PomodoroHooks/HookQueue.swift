/// What is waiting to run: one job a hook (the command, the webhook) an event, in order, at most
/// `limit`; when hooks fall behind the oldest are dropped, counted, and said once by the next
/// that runs. Pure.
public struct HookQueue<Job> {
  public let limit: Int
  private(set) var jobs: [Job] = []
  private var head = 0
  /// Dropped since the last `next` said so.
  public private(set) var dropped = 0

  public init(limit: Int = 64) { self.limit = max(1, limit) }

  public var count: Int { jobs.count - head }
  public var isEmpty: Bool { count == 0 }

  public mutating func append(_ job: Job) {
    if count == limit {
      head += 1
      dropped += 1
    }
    jobs.append(job)
    if head > 256 && head * 2 > jobs.count {
      jobs.removeFirst(head)
      head = 0
    }
  }

  /// The oldest job, and how many were dropped before it since the last time (0: none).
  public mutating func next() -> (job: Job, dropped: Int)? {
    guard head < jobs.count else { return nil }
    defer {
      head += 1
      dropped = 0
    }
    return (jobs[head], dropped)
  }
}
