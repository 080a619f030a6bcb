import PomodoroConfig

extension ControlProtocol {
  /// A settable key's item line: `{"item":"config","key":"focus","value":"25m","from":...,
  /// "about":...,"accepts":...}` (docs/control.md).
  public static func itemLine(_ item: ConfigItem) -> String {
    itemLine(
      "config",
      [
        ("key", .string(item.key)), ("value", .string(item.value)), ("from", .string(item.from)),
        ("about", .string(item.about)), ("accepts", .string(item.accepts)),
      ])
  }
}

extension ControlProtocol.Refusal {
  /// The config's refusal, said as it is.
  public init(_ refusal: ConfigRefusal) { self.init(refusal.message) }
}
