/// `pomodoro snapshot DIR`: a PNG of every screen.
enum SnapshotCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    throw UsageError("snapshot is not built yet")
  }
}
