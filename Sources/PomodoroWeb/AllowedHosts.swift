import PomodoroCore
import PomodoroSystem

/// The Host names a request may carry: the device's host name, `<name>.local`, its addresses and
/// localhost. A page rebound to this device by DNS (its Origin then equals its Host) carries
/// another name and is refused with 421, which an Origin check alone would let through.
public struct AllowedHosts: Sendable {
  public let names: Set<String>

  public init(hostName: String, addresses: [String]) {
    let name = hostName.lowercased()
    names = Set([name, name + ".local", "localhost", "127.0.0.1", "::1"] + addresses.map { $0.lowercased() })
  }

  /// A Host header's or an Origin's authority split into its name (lowercased, an IPv6 address
  /// without its brackets) and its port; nil when it is neither `name`, `name:port`, `[v6]` nor
  /// `[v6]:port` (`[::1]evil.example`, `desk:80x`, an empty name).
  static func authority(_ text: String) -> (name: String, port: Int?)? {
    var h = Substring(text.lowercased())
    var name: Substring
    if h.hasPrefix("[") {
      guard let close = h.firstIndex(of: "]") else { return nil }
      name = h[h.index(after: h.startIndex)..<close]
      h = h[h.index(after: close)...]
      guard h.isEmpty || h.hasPrefix(":") else { return nil }
    } else {
      // More than one colon and no brackets: an IPv6 address a client sent bare, no port.
      if let colon = h.firstIndex(of: ":"), h.lastIndex(of: ":") == colon {
        name = h[..<colon]
        h = h[colon...]
      } else {
        name = h
        h = ""
      }
    }
    guard !name.isEmpty else { return nil }
    guard h.hasPrefix(":") else { return (String(name), nil) }
    let digits = h.dropFirst()
    guard (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits),
      port <= 65535
    else { return nil }
    return (String(name), port)
  }

  public func allows(host: String?) -> Bool {
    guard let host, let a = Self.authority(host) else { return false }
    return names.contains(a.name)
  }

  /// An Origin header (`http://desk.local:8080`) of this device's page: scheme http, one of its
  /// names, and the port it serves on (`port`; none written means 80). A page on another port of
  /// the same host is another site (SameSite cookies ignore ports, so the cookie alone would let
  /// it act). nil (no Origin sent: curl, `pomodoro ctl`) is allowed.
  public func allows(origin: String?, port: Int) -> Bool {
    guard let origin else { return true }
    let scheme = "http://"
    guard origin.lowercased().hasPrefix(scheme), let a = Self.authority(String(origin.dropFirst(scheme.count))) else {
      return false
    }
    return names.contains(a.name) && (a.port ?? 80) == port
  }
}

extension AllowedHosts {
  /// This machine's: its host name and every address of its interfaces now.
  public static func thisMachine() -> AllowedHosts {
    AllowedHosts(hostName: thisHostName(), addresses: interfaceAddresses())
  }

  /// This machine's host name (gethostname).
  public static func thisHostName() -> String {
    var name = [CChar](repeating: 0, count: 256)
    gethostname(&name, name.count - 1)
    return text(ofCString: name)
  }

  static func interfaceAddresses() -> [String] {
    var first: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&first) == 0 else { return [] }
    defer { freeifaddrs(first) }
    var out: [String] = []
    var next = first
    while let a = next {
      defer { next = a.pointee.ifa_next }
      guard let addr = a.pointee.ifa_addr else { continue }
      var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
      switch Int32(addr.pointee.sa_family) {
      case AF_INET:
        addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
          var a = $0.pointee.sin_addr
          inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
        }
      case AF_INET6:
        addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
          var a = $0.pointee.sin6_addr
          inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
        }
      default: continue
      }
      // A link-local IPv6 address as a Host carries its zone ("fe80::1%wlan0" is not sent by browsers).
      out.append(PomodoroSystem.text(ofCString: text))
    }
    return out
  }
}
