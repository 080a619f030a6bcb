import PomodoroWeb
import XCTest

/// Which Host and Origin headers the desk's page answers: its own names and addresses, and for
/// an Origin its own scheme and port too. Pure: no server.
final class AllowedHostsTests: XCTestCase {
  let hosts = AllowedHosts(hostName: "Desk", addresses: ["192.0.2.7", "fe80::1"])

  func testTheDesksOwnNamesWithOrWithoutAPort() {
    for host in [
      "desk", "DESK.local", "desk.local:8080", "192.0.2.7", "localhost:80", "127.0.0.1", "[::1]", "[::1]:8080",
      "[FE80::1]:8080", "::1",
    ] {
      XCTAssertTrue(hosts.allows(host: host), host)
    }
  }

  /// What follows a bracketed address is a port or nothing: `[::1]evil.example` was taken as
  /// `::1` (what followed `]` dropped). A port is digits, at most 65535.
  func testMalformedAuthoritiesAreRefused() {
    for host in [
      "[::1]evil.example", "[::1]:", "[::1", "desk:", "desk:80x", "desk:99999", "desk:+80", ":8080", "", "[]:80",
      "evil.example", "desk.local.evil.example", "desk:8080:1",
    ] {
      XCTAssertFalse(hosts.allows(host: host), host)
    }
    XCTAssertFalse(hosts.allows(host: nil))
  }

  /// An Origin is the desk's only with its scheme (http), one of its names and the port it
  /// serves on: a page on another port of the same host is another site (SameSite cookies
  /// ignore ports, so with the paired cookie it could act).
  func testAnOriginMustBeTheServersSchemeHostAndPort() {
    XCTAssertTrue(hosts.allows(origin: nil, port: 8080), "no Origin: not a browser's cross-site request")
    for origin in ["http://desk.local:8080", "http://127.0.0.1:8080", "http://[::1]:8080", "HTTP://DESK:8080"] {
      XCTAssertTrue(hosts.allows(origin: origin, port: 8080), origin)
    }
    XCTAssertTrue(hosts.allows(origin: "http://desk.local", port: 80), "no port written: 80")
    for origin in [
      "http://127.0.0.1:9", "http://desk.local", "http://desk.local:80", "https://desk.local:8080",
      "http://evil.example:8080", "http://[::1]evil.example:8080", "null", "desk.local:8080", "file://",
    ] {
      XCTAssertFalse(hosts.allows(origin: origin, port: 8080), origin)
    }
  }
}
