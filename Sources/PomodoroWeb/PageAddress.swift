import PomodoroCore
import PomodoroSystem

/// The page's address on the LAN that the pairing screen's QR code carries
/// (`http://192.168.1.23:8080/`): one a phone can reach, chosen by `pomodoro web` (it knows the
/// port, `web_bind` and, from the request, the client asking) and sent to the desk with the code.
/// An IPv4 address of this machine, never a loopback one: `web_bind` when it is one; else the one
/// whose network holds the client that asked (the phone that will scan, as a rule); else the first
/// private one (10/8, 172.16/12, 192.168/16), else the first other. None (no IPv4 address but
/// loopback, or `web_bind` on loopback or IPv6): nil, and the desk shows the digits alone.
public enum PageAddress {
  /// An interface's IPv4 address and netmask, as 32-bit numbers in host order.
  public struct IPv4: Equatable, Sendable {
    public var address: UInt32
    public var netmask: UInt32
    public init(address: UInt32, netmask: UInt32) {
      self.address = address
      self.netmask = netmask
    }
    public init?(_ address: String, netmask: String = "255.255.255.255") {
      guard let a = PageAddress.parse(address), let m = PageAddress.parse(netmask) else { return nil }
      self.init(address: a, netmask: m)
    }
    var isLoopback: Bool { address >> 24 == 127 }
    var isPrivate: Bool {
      address >> 24 == 10 || address >> 20 == (172 << 4 | 1) || address >> 16 == (192 << 8 | 168)
    }
    var text: String { PageAddress.text(address) }
  }

  public static func url(interfaces: [IPv4], client: String, bind: String?, port: Int) -> String? {
    if let bind, bind != "0.0.0.0", bind != "::" {
      // Served on one address only: that one, or none a phone reaches (loopback, IPv6).
      guard let b = IPv4(bind), !b.isLoopback else { return nil }
      return "http://\(b.text):\(port)/"
    }
    let usable = interfaces.filter { !$0.isLoopback && $0.address != 0 }
    let client4 = parse(client.hasPrefix("::ffff:") ? String(client.dropFirst(7)) : client)
    let pick =
      client4.flatMap { c in usable.first { $0.netmask != 0 && $0.address & $0.netmask == c & $0.netmask } }
      ?? usable.first(where: \.isPrivate) ?? usable.first
    guard let pick else { return nil }
    return "http://\(pick.text):\(port)/"
  }

  /// Every address a phone may open the page at, for `pomodoro probe`: `<host>.local` (mDNS: the
  /// Pi's own name, and the service pomodoro web announces), then each IPv4 address but
  /// loopback; only `web_bind` when the page serves on one address.
  public static func all(hostName: String, interfaces: [IPv4], bind: String?, port: Int) -> [String] {
    if let bind, bind != "0.0.0.0", bind != "::" {
      return ["http://\(bind.contains(":") ? "[\(bind)]" : bind):\(port)/"]
    }
    let names = hostName.isEmpty ? [] : ["http://\(hostName.lowercased()).local:\(port)/"]
    return names + interfaces.filter { !$0.isLoopback && $0.address != 0 }.map { "http://\($0.text):\(port)/" }
  }

  /// Dotted IPv4 text to its number; nil for anything else.
  static func parse(_ text: String) -> UInt32? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var value: UInt32 = 0
    for p in parts {
      guard (1...3).contains(p.count), p.allSatisfy({ $0.isASCII && $0.isNumber }), let n = UInt32(p), n <= 255 else {
        return nil
      }
      value = value << 8 | n
    }
    return value
  }

  static func text(_ value: UInt32) -> String {
    [24, 16, 8, 0].map { String(value >> UInt32($0) & 255) }.joined(separator: ".")
  }

  /// This machine's interfaces' IPv4 addresses and netmasks now.
  public static func interfaces() -> [IPv4] {
    var first: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&first) == 0 else { return [] }
    defer { freeifaddrs(first) }
    var out: [IPv4] = []
    var next = first
    while let a = next {
      defer { next = a.pointee.ifa_next }
      guard let addr = a.pointee.ifa_addr, Int32(addr.pointee.sa_family) == AF_INET else { continue }
      func number(_ p: UnsafeMutablePointer<sockaddr>?) -> UInt32 {
        guard let p else { return 0 }
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
      }
      out.append(IPv4(address: number(addr), netmask: number(a.pointee.ifa_netmask)))
    }
    return out
  }
}
