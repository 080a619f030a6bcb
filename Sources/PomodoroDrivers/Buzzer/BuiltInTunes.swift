/// The tunes the device knows by name (`pomodoro tune --list`): short, and pleasant on a piezo
/// (octaves 5 to 7 sit near its loudest, 1 to 4 kHz). Melodies in the public domain, or our own.
public enum BuiltInTunes {
  /// Name and RTTTL, in the order `--list` shows them.
  public static let all: [(name: String, rtttl: String)] = [
    ("chime", "chime:d=8,o=6,b=160:c,e,g,4c7,p,g,4c7"),
    ("westminster", "westminster:d=4,o=6,b=140:e,c,d,2g5,p,g5,d,e,2c"),
    ("ode", "ode:d=4,o=6,b=160:e,e,f,g,g,f,e,d,c,c,d,e,e.,8d,2d"),
    ("arpeggio", "arpeggio:d=16,o=6,b=140:c,e,g,c7,e7,g7,8c8,8p,g7,e7,c7,g,4c"),
    ("cuckoo", "cuckoo:d=4,o=6,b=125:g,e,p,g,e,p,g,e"),
    ("reveille", "reveille:d=8,o=6,b=180:g5,c,e,c,g5,c,e,c,g5,c,e,c,4g,p,e,4c"),
    ("beeps", "beeps:d=16,o=7,b=150:a,p,a,p,a,4p"),
  ]

  /// The built-in tune called `name` (compared without case); nil when there is none.
  public static func named(_ name: String) -> Tune? {
    let lower = name.lowercased()
    guard let entry = all.first(where: { $0.name == lower }), case .success(var tune) = RTTTL.parse(entry.rtttl)
    else { return nil }
    tune.source = entry.name
    return tune
  }

  /// A built-in tune's name or the user's RTTTL: the tune, or why it is not one.
  public static func read(_ text: String) -> Result<Tune, RTTTLError> {
    if let tune = named(text) { return .success(tune) }
    return RTTTL.parse(text)
  }

  /// What the tune keys take, for messages.
  public static var expected: String {
    "a built-in tune (\(all.map(\.name).joined(separator: ", "))) or RTTTL like tea:d=8,o=6,b=140:c,e,g,2c7"
  }
}
