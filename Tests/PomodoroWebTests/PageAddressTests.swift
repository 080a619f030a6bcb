import PomodoroRuntime
import XCTest

@testable import PomodoroWeb

/// The address the pairing screen's QR code carries: one a phone reaches, never loopback.
final class PageAddressTests: XCTestCase {
  let lo = PageAddress.IPv4("127.0.0.1", netmask: "255.0.0.0")!
  let docker = PageAddress.IPv4("172.17.0.1", netmask: "255.255.0.0")!
  let wifi = PageAddress.IPv4("192.168.1.23", netmask: "255.255.255.0")!
  let wired = PageAddress.IPv4("10.0.0.5", netmask: "255.255.255.0")!
  let publicOne = PageAddress.IPv4("198.51.100.9", netmask: "255.255.255.0")!

  func testTheAddressOnTheAskingClientsNetworkComesFirst() {
    let all = [lo, docker, wired, wifi]
    XCTAssertEqual(
      PageAddress.url(interfaces: all, client: "192.168.1.40", bind: nil, port: 8080), "http://192.168.1.23:8080/")
    XCTAssertEqual(PageAddress.url(interfaces: all, client: "10.0.0.77", bind: nil, port: 80), "http://10.0.0.5:80/")
    XCTAssertEqual(
      PageAddress.url(interfaces: all, client: "::ffff:192.168.1.40", bind: nil, port: 8080),
      "http://192.168.1.23:8080/", "an IPv4 client as an IPv6 socket shows it")
    // A client on no network of ours (loopback, IPv6, routed): the first private address.
    XCTAssertEqual(
      PageAddress.url(interfaces: all, client: "127.0.0.1", bind: nil, port: 8080), "http://172.17.0.1:8080/")
    XCTAssertEqual(
      PageAddress.url(interfaces: [lo, publicOne, wifi], client: "fe80::1", bind: nil, port: 8080),
      "http://192.168.1.23:8080/")
    XCTAssertEqual(
      PageAddress.url(interfaces: [lo, publicOne], client: "203.0.113.1", bind: nil, port: 8080),
      "http://198.51.100.9:8080/")
  }

  func testLoopbackAloneOrABindOnLoopbackOrIPv6GivesNone() {
    XCTAssertNil(PageAddress.url(interfaces: [lo], client: "127.0.0.1", bind: nil, port: 8080))
    XCTAssertNil(PageAddress.url(interfaces: [], client: "192.168.1.40", bind: nil, port: 8080))
    XCTAssertNil(PageAddress.url(interfaces: [lo, wifi], client: "192.168.1.40", bind: "127.0.0.1", port: 8080))
    XCTAssertNil(PageAddress.url(interfaces: [lo, wifi], client: "192.168.1.40", bind: "fd00::1", port: 8080))
    XCTAssertEqual(
      PageAddress.url(interfaces: [lo, wifi, wired], client: "192.168.1.40", bind: "10.0.0.5", port: 8080),
      "http://10.0.0.5:8080/", "served on one address: that one")
    XCTAssertEqual(
      PageAddress.url(interfaces: [lo, wifi], client: "192.168.1.40", bind: "0.0.0.0", port: 8080),
      "http://192.168.1.23:8080/")
  }

  /// `pomodoro probe`'s list: the mDNS name, then every address but loopback; web_bind alone.
  func testProbeListsTheNameAndEveryAddressAPhoneOpens() {
    XCTAssertEqual(
      PageAddress.all(hostName: "Desk", interfaces: [lo, wifi, wired], bind: nil, port: 8080),
      ["http://desk.local:8080/", "http://192.168.1.23:8080/", "http://10.0.0.5:8080/"])
    XCTAssertEqual(
      PageAddress.all(hostName: "desk", interfaces: [lo, wifi], bind: "127.0.0.1", port: 8080),
      ["http://127.0.0.1:8080/"])
    XCTAssertEqual(
      PageAddress.all(hostName: "desk", interfaces: [lo], bind: "fd00::1", port: 80), ["http://[fd00::1]:80/"])
    XCTAssertEqual(PageAddress.all(hostName: "", interfaces: [lo], bind: nil, port: 8080), [])
  }

  func testAddressTextIsReadStrictly() {
    for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "a.b.c.d", "1.2.3.4 ", "01234.1.1.1"] {
      XCTAssertNil(PageAddress.parse(bad), bad)
    }
    XCTAssertEqual(PageAddress.parse("192.168.1.23").map(PageAddress.text), "192.168.1.23")
  }

  /// The longest IPv4 address a QR code carries fits the panel's largest code; an address too
  /// long for any code the panel shows, or for any QR code at all, is a reason, never a trap.
  func testTheQRCodeFitsTheLongestIPv4AddressAndRefusesWhatDoesNot() throws {
    try XCTSkipUnless(PairingQR.available, "libqrencode is not compiled in (sudo apt install libqrencode-dev)")
    let longest = PairingQR.link(url: "http://255.255.255.255:65535/", code: "123456")
    XCTAssertEqual(longest, "http://255.255.255.255:65535/#pair=123456")
    let modules = try PairingQR.encode(longest).get()
    XCTAssertLessThanOrEqual(modules.size, 29)
    XCTAssertEqual(PairingQR.link(url: "http://10.0.0.5:80", code: "123456"), "http://10.0.0.5:80/#pair=123456")
    guard case .failure(let reason) = PairingQR.encode("http://" + String(repeating: "a", count: 60) + "/#pair=123456")
    else { return XCTFail("a code bigger than the panel shows") }
    XCTAssertTrue(reason.text.contains("more than 29 modules"), reason.text)
    guard case .failure(let huge) = PairingQR.encode(String(repeating: "x", count: 10_000)) else {
      return XCTFail("10,000 bytes fit no QR code")
    }
    XCTAssertTrue(huge.text.contains("libqrencode cannot encode 10000 bytes"), huge.text)
  }
}
