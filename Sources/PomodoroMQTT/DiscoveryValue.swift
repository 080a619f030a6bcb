import PomodoroSystem

/// A value in a discovery payload: JSON with nesting (FlatJSON has none).
public indirect enum DiscoveryValue: Sendable, Equatable {
  case text(String)
  case number(Int)
  case list([String])
  case object([Pair])

  public struct Pair: Sendable, Equatable {
    public var key: String
    public var value: DiscoveryValue
    public init(_ key: String, _ value: DiscoveryValue) {
      self.key = key
      self.value = value
    }
  }

  public var json: String {
    switch self {
    case .text(let s): return FlatJSON.quote(s)
    case .number(let n): return String(n)
    case .list(let items): return "[" + items.map(FlatJSON.quote).joined(separator: ",") + "]"
    case .object(let pairs):
      return "{" + pairs.map { FlatJSON.quote($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
    }
  }
}

extension DiscoveryValue {
  /// The text of a `.text`, for the docs.
  var plain: String { if case .text(let s) = self { return s } else { return json } }
}
