import PomodoroConfig
import PomodoroCore

/// The desk in a room (docs/room.md): the config names the room; the bridge (`pomodoro mqtt`)
/// says this desk's id and what it knows of the room (`room_status`) and passes the sessions it
/// hears (`room_session`); the engine does the rest.
extension Device {
  /// The room the config names, held by the engine (none: nil). Its desk id stays the one the
  /// bridge said; until a bridge says one the desk makes no revisions (it is alone).
  func joinRoom() {
    guard let name = config.room else {
      if state.room != nil { feed(.setRoom(nil), at: clock.now) }
      return
    }
    guard state.room?.name != name else { return }
    feed(.setRoom(RoomIdentity(name: name, desk: "")), at: clock.now)
  }

  /// `room_session`: a session the bridge heard, `age` old at `at` (the bridge's instant on the
  /// machine's monotonic clock, this desk's too), anchored on this desk's clock: the time the line
  /// waited for this loop counts. An `at` in the future or over a minute back (not this clock: a
  /// test's) is not believed, and the age is taken as of now. It expires `life` (its message's
  /// expiry) after that anchor.
  public func hearRoom(_ session: RoomSession, age: Nanoseconds, at: Instant? = nil, life: Nanoseconds? = nil) {
    guard state.room != nil else { return }
    let now = clock.now
    let base = at.flatMap { $0 <= now && now - $0 < seconds(60) ? $0 : nil } ?? now
    feed(.roomSession(RoomHeld(session: session, anchor: base - max(0, age), life: life)), at: now)
  }

  /// `room_status`: this desk's id and the room as the bridge sees it.
  public func roomSaid(_ view: RoomView) {
    guard let name = config.room else { return }
    if state.room?.desk != view.desk { feed(.setRoom(RoomIdentity(name: name, desk: view.desk)), at: clock.now) }
    feed(.roomView(view), at: clock.now)
  }
}
