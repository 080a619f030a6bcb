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

  /// `host` without its port (and an IPv6 address without its brackets), lowercased.
  static func bare(_ host: String) -> String {
    var h = Substring(host.lowercased())
    if h.hasPrefix("[") {
      h = h.dropFirst()
      if let close = h.firstIndex(of: "]") { h = h[..<close] }
      return String(h)
    }
    if let colon = h.lastIndex(of: ":"), h.firstIndex(of: ":") == colon { h = h[..<colon] }
    return String(h)
  }

  public func allows(host: String?) -> Bool { host.map { names.contains(Self.bare($0)) } ?? false }

  /// An Origin header (`http://desk.local:8080`) of this device; nil (none sent) is allowed.
  public func allows(origin: String?) -> Bool {
    guard let origin else { return true }
    for scheme in ["http://", "https://"] where origin.lowercased().hasPrefix(scheme) {
      return allows(host: String(origin.dropFirst(scheme.count)))
    }
    return false
  }
}

extension AllowedHosts {
  /// This machine's: its host name and every address of its interfaces now.
  public static func thisMachine() -> AllowedHosts {
    var name = [CChar](repeating: 0, count: 256)
    gethostname(&name, name.count - 1)
    return AllowedHosts(hostName: text(ofCString: name), addresses: interfaceAddresses())
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
