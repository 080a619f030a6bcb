import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// The device's saves: the state and the history's records, asked for by the engine (`.persist`,
/// a record) and made once a step or a batch (`saveIfDue`), by the loop or a writer thread
/// (`SessionRecorder`), and today's count read from the history's end. The device holds the
/// replies of a batch until its save has ended (`ReplyHold`).
extension Device: ReplyHold {
  var storage: Storage? { recorder?.storage }
  /// `history`'s item lines (`SessionRecorder.historyItems`; none without a state directory).
  public func historyItems(days: Int) -> Result<[String], ControlProtocol.Refusal> {
    recorder?.historyItems(days: days) ?? .success([])
  }
  /// History lines not yet in the history file (`SessionRecorder.pending`).
  public var pendingHistory: [String] { recorder?.pending ?? [] }

  /// A save waits, at most this long, while a button settles within it: the press then acts
  /// before the save's two fsyncs (40 ms on a slow SD card), not after them.
  public static let saveHold: Nanoseconds = ms(50)
  /// Saves ended since start: a reply may go out once this reaches the `saveTicket` it was
  /// given (`ControlServer`).
  public var savesEnded: Int { recorder?.ended ?? 0 }
  /// The number of the save that holds the state as it is now: the one being written (or the
  /// last), or, while a save is due, the next.
  public var saveTicket: Int { (recorder?.started ?? 0) + (saveDue ? 1 : 0) }
  /// Readable when the save being written by a thread has ended (`ThreadSaveWriter`); nil when
  /// none is, or saves are written by the loop itself. The loop polls it.
  public var saveDescriptor: Int32? { recorder?.saving == true ? recorder?.writer.descriptor : nil }

  /// Saves the state (with the history lines still pending) when something since the last save
  /// asked for it: once a step, after the buzzer and the panel, and once a batch of commands
  /// (`ControlServer`), before their replies go out. A power cut loses no more than before:
  /// nothing is saved between the events of one step or one batch anyway, and what is saved is
  /// the state after the last of them; only while a button settles does a save wait, 50 ms at
  /// most (`saveHold`), for the step that acts on the press. While a thread writes a save
  /// (`ThreadSaveWriter`) the next waits, still due, and starts at the step after it has ended
  /// with the state as it is then: any number of saves asked meanwhile are that one.
  public func saveIfDue() {
    guard saveDue, storage != nil, recorder?.saving != true else { return }
    let now = clock.now
    // A button settling soon: its step (due by then) saves, unless the save has waited its bound.
    if let settles = inputs.mapper.nextDeadline, settles - now <= Self.saveHold, now - saveDueSince < Self.saveHold {
      return
    }
    save(at: now)
  }

  /// Saves the state and appends the records pending (`SessionRecorder.save`): started, and
  /// written before this returns unless a thread writes it; while one is being written it stays
  /// due.
  func save(at now: Instant) {
    if recorder?.saving == true { return }
    let before = savesEnded
    saves += 1
    saveDue = false
    recorder?.save(state.saved(at: now))
    if savesEnded != before { onSaveEnded?() }
  }

  /// Takes the end of a save a thread was writing, if it has ended (each step does, and the
  /// control socket before it releases the replies that waited for it).
  public func collectSave() {
    guard recorder?.collect() == true else { return }
    onSaveEnded?()
  }

  /// Labels a record with the wall-clock time it ended, hands it to the observer, and saves it
  /// with the state (`SessionRecorder.append`, then `save`).
  func append(_ record: SessionRecord, at now: Instant) {
    var wall = wallClock()
    wall.epochSeconds -= wholeSeconds(now - record.endedAt)
    let entry = HistoryEntry(ended: wall, record: record)
    recorder?.append(entry)
    observer?.recorded(entry, at: now)
    if storage != nil { saveDue = true }
  }

  /// At start, then each minute: a new local day sets today's count afresh from the history.
  func recountToday(at now: Instant) {
    dayCheckedAt = now
    if let count = recorder?.countIfNewDay() { feed(.setCompletedToday(count), at: now) }
  }
}
