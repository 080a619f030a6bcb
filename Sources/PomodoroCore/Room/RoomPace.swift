extension EngineState {
  /// Whether this desk's timer follows a room session at another desk's pace (issue 48): a plan
  /// another desk started, whose lengths are not this desk's own presets for those modes (that
  /// desk's profile, or its dial). A room session keeps the lengths of the desk that started it;
  /// the panel ("(room)" where the profile goes) and the state (`room_own_pace`) say when they
  /// are not this desk's.
  public var followsRoomPace: Bool {
    guard let room, room.following, let held = room.held, held.session.planRevision != room.planned else {
      return false
    }
    return held.session.plan.contains { settings.preset($0.mode) != $0.length }
  }
}
