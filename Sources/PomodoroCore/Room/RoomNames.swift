/// Room and desk names as topic levels.
public enum RoomNames {
  /// A room: 1-40 of A-Z a-z 0-9 . _ -.
  public static func isRoom(_ s: String) -> Bool { isLevel(s, max: 40) }
  /// A desk id: 1-40 of A-Z a-z 0-9 . _ - (RoomWire's bound), and not `room`.
  public static func isDesk(_ s: String) -> Bool { isLevel(s, max: 40) && !reserved.contains(s) }
  /// The level under the topic prefix that the rooms' topics take (`<prefix>/room/...`): a desk
  /// of that id would have its own topics there (and, by the ACL's `%u` pattern, every room).
  public static let reserved: Set<String> = ["room"]
  /// The letters a level is made of, as messages say them.
  public static let letters = "A-Z a-z 0-9 . _ -"
  /// The rule, as messages say it.
  public static let rule = "1-40 of \(letters), not room"

  static func isLevel(_ s: String, max: Int) -> Bool {
    let u = s.utf8
    return (1...max).contains(u.count)
      && u.allSatisfy {
        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E
          || $0 == 0x5F || $0 == 0x2D
      }
  }
}
