import PomodoroCore
import PomodoroSystem

/// One save, taken on the loop as bytes and lines (nothing the loop goes on changing): the state
/// file's new contents (with the history lines still pending in it), those lines to append
/// after it, whether a failed state write must remove the file (it may hold a timer whose
/// session has since been recorded), and the settings overlay's new text when it changed
/// (`ctl config set`, the page: the last set before the save wins).
public struct SaveJob {
  public var state: [UInt8]
  public var lines: [String]
  public var removeStateOnFailure: Bool
  public var settings: String?

  public init(state: [UInt8], lines: [String], removeStateOnFailure: Bool, settings: String? = nil) {
    self.state = state
    self.lines = lines
    self.removeStateOnFailure = removeStateOnFailure
    self.settings = settings
  }
}

/// What a save came to; the loop logs it and drops the lines written from those pending.
public struct SaveOutcome {
  public var stateError: Error?
  /// The state file was removed after its write failed.
  public var removed = false
  public var removeError: Error?
  /// The job's first lines that reached the history file (the rest failed or were not tried).
  public var linesWritten = 0
  public var appendError: Error?
  /// The settings overlay's write failed (the old overlay is whole on disk).
  public var settingsError: Error?

  /// Does a job's blocking writes in the order a power cut allows for: the state replaced
  /// atomically (temporary file written and fsynced, renamed, directory fsynced), or removed
  /// when that fails and it may hold an ended timer; then each line appended and fsynced, in
  /// order, up to the first that fails; then the settings overlay, replaced atomically as the
  /// state is. Touches nothing but the files.
  public static func perform(_ job: SaveJob, on storage: Storage) -> SaveOutcome {
    var outcome = SaveOutcome()
    do {
      try Files.writeAtomically(storage.state.path, job.state, in: storage.state.fileSystem)
    } catch {
      outcome.stateError = error
      if job.removeStateOnFailure {
        do {
          try storage.state.remove()
          outcome.removed = true
        } catch {
          outcome.removeError = error
        }
      }
    }
    for line in job.lines {
      do {
        try storage.history.appendLine(line)
        outcome.linesWritten += 1
      } catch {
        outcome.appendError = error
        break
      }
    }
    if let settings = job.settings {
      do {
        try storage.settings.save(settings)
      } catch {
        outcome.settingsError = error
      }
    }
    return outcome
  }
}

/// Who does a save's blocking writes: the loop itself (`InlineSaveWriter`: tests, scripts, the
/// simulator, where the virtual clock must see every write at the instant it is asked for), or
/// a thread of its own (`ThreadSaveWriter`: `pomodoro run`, so that the loop never waits on an
/// fsync). One job at a time: `SessionRecorder` starts the next only once this one is taken.
public protocol SaveWriter: AnyObject {
  /// Starts `job` (inline: does it before returning).
  func start(_ job: SaveJob)
  /// The outcome of the job started, once it has ended (nil while it runs); taken once.
  func finished() -> SaveOutcome?
  /// Waits for the job started to end and takes its outcome (nil: none was started).
  func wait() -> SaveOutcome?
  /// Readable when a job has ended (nil: jobs end before `start` returns).
  var descriptor: Int32? { get }
  /// Ends the writer once its job is done (a thread is joined).
  func stop()
}

/// Does each job on the caller's thread, before `start` returns.
public final class InlineSaveWriter: SaveWriter {
  let storage: Storage
  var outcome: SaveOutcome?

  public init(storage: Storage) { self.storage = storage }

  public func start(_ job: SaveJob) { outcome = SaveOutcome.perform(job, on: storage) }
  public func finished() -> SaveOutcome? {
    defer { outcome = nil }
    return outcome
  }
  public func wait() -> SaveOutcome? { finished() }
  public var descriptor: Int32? { nil }
  public func stop() {}
}

/// Does each job on a thread of its own, which does nothing but the job's blocking writes: the
/// job (bytes and lines) is handed over under a mutex, and the end is said through a pipe whose
/// read end the one loop polls (`Device.saveDescriptor`), so the loop goes on with the buttons,
/// the display, the alarm and the socket meanwhile. Nothing else of the device runs on it.
public final class ThreadSaveWriter: SaveWriter, @unchecked Sendable {
  // Everything below `lock` is shared with the thread and touched only under it; the storage's
  // file system is used by the thread alone while a job runs.
  let storage: Storage
  let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  var job: SaveJob?
  var outcome: SaveOutcome?
  var running = false
  var stopping = false
  /// The pipe: the thread writes a byte when a job ends; the loop polls the read end.
  let endRead: Int32
  let endWrite: Int32
  #if os(Linux)
    var thread = pthread_t()
  #else
    var thread: pthread_t?
  #endif
  var stopped = false

  /// Starts the thread. Throws when the pipe or the thread cannot be made.
  public init(storage: Storage) throws {
    self.storage = storage
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw SystemError("cannot make the save writer's pipe") }
    endRead = ends[0]
    endWrite = ends[1]
    for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(endRead, F_SETFL, fcntl(endRead, F_GETFL) | O_NONBLOCK)
    pthread_mutex_init(lock, nil)
    pthread_cond_init(changed, nil)
    let me = Unmanaged.passRetained(self).toOpaque()
    // Signals are the loop's (its self-pipe): the thread is born with every one blocked, so none
    // is handled on it nor interrupts a write.
    var all = sigset_t()
    var before = sigset_t()
    sigfillset(&all)
    pthread_sigmask(SIG_SETMASK, &all, &before)
    defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
    #if os(Linux)
      let made = pthread_create(
        &thread, nil,
        { raw in
          Unmanaged<ThreadSaveWriter>.fromOpaque(raw!).takeRetainedValue().run()
          return nil
        }, me)
    #else
      let made = pthread_create(
        &thread, nil,
        { raw in
          Unmanaged<ThreadSaveWriter>.fromOpaque(raw).takeRetainedValue().run()
          return nil
        }, me)
    #endif
    if made != 0 {
      Unmanaged<ThreadSaveWriter>.fromOpaque(me).release()
      stopped = true
      throw SystemError("cannot start the save writer's thread", errno: made)
    }
  }

  deinit {
    systemClose(endRead)
    systemClose(endWrite)
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(lock)
    lock.deallocate()
    changed.deallocate()
  }

  /// The thread: takes a job, does it, says so; until `stop`.
  func run() {
    pthread_mutex_lock(lock)
    while true {
      while job == nil && !stopping { pthread_cond_wait(changed, lock) }
      guard let next = job else { break }
      job = nil
      pthread_mutex_unlock(lock)
      let result = SaveOutcome.perform(next, on: storage)
      pthread_mutex_lock(lock)
      outcome = result
      running = false
      pthread_cond_broadcast(changed)
      var byte: UInt8 = 1
      _ = retryingOnInterrupt { systemWrite(endWrite, &byte, 1) }
    }
    pthread_mutex_unlock(lock)
  }

  public func start(_ job: SaveJob) {
    pthread_mutex_lock(lock)
    precondition(!running && outcome == nil, "a save started while another was not taken")
    self.job = job
    running = true
    pthread_cond_broadcast(changed)
    pthread_mutex_unlock(lock)
  }

  public func finished() -> SaveOutcome? {
    var bytes = [UInt8](repeating: 0, count: 16)
    while retryingOnInterrupt({ systemRead(endRead, &bytes, bytes.count) }) > 0 {}
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    defer { outcome = nil }
    return outcome
  }

  public func wait() -> SaveOutcome? {
    pthread_mutex_lock(lock)
    while running { pthread_cond_wait(changed, lock) }
    pthread_mutex_unlock(lock)
    return finished()
  }

  public var descriptor: Int32? { endRead }

  public func stop() {
    guard !stopped else { return }
    stopped = true
    pthread_mutex_lock(lock)
    stopping = true
    pthread_cond_broadcast(changed)
    pthread_mutex_unlock(lock)
    #if os(Linux)
      pthread_join(thread, nil)
    #else
      if let thread { pthread_join(thread, nil) }
    #endif
  }
}
