/// A room's topics under the bridge's prefix (docs/room.md, "Topics"): each desk writes only its
/// own session and member topics (the ACL's `<prefix>/room/<room>/sessions/<desk>` and
/// `.../members/<desk>`), so a message's author is the topic's last level. The first room wire's
/// one session topic is heard only to say that a desk of an earlier release is there.
public struct RoomTopics: Equatable, Sendable {
  public var base: String

  public init(prefix: String, room: String) { base = "\(prefix)/room/\(room)" }

  public func session(_ desk: String) -> String { "\(base)/sessions/\(desk)" }
  public func member(_ desk: String) -> String { "\(base)/members/\(desk)" }
  /// The first room wire's session topic (v1, before 0.3.0).
  public var earlierSession: String { "\(base)/session" }

  /// Every desk's session topic.
  public var sessions: String { "\(base)/sessions/+" }
  public var subscriptions: [String] { [sessions, "\(base)/members/+", earlierSession] }

  public enum Kind: Equatable {
    case session(author: String)
    case member(desk: String)
    case earlierRelease
  }

  /// What `topic` is, with the desk it names; nil for none of the room's.
  public func which(_ topic: String) -> Kind? {
    if topic == earlierSession { return .earlierRelease }
    guard topic.hasPrefix(base + "/") else { return nil }
    let rest = topic.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false)
    guard rest.count == 2 else { return nil }
    switch rest[0] {
    case "sessions": return .session(author: String(rest[1]))
    case "members": return .member(desk: String(rest[1]))
    default: return nil
    }
  }
}
