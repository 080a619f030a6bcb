import PomodoroCore
import PomodoroGraphics
import XCTest

@testable import PomodoroWeb

/// The page's files as the server sends them (through WebDesk and libmicrohttpd, on the wire):
/// each path with its type, the security headers, the ETag and its 304, the page's size.
extension WebDeskTests {
  /// The response's header `name` (lowercased name), or nil.
  func header(_ response: String, _ name: String) -> String? {
    guard let head = response.components(separatedBy: "\r\n\r\n").first else { return nil }
    for line in head.split(separator: "\r\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2, parts[0].lowercased() == name.lowercased() {
        return parts[1].trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }

  func testThePageIsServedWithItsSecurityHeaders() throws {
    let r = try request("GET / HTTP/1.1\r\nHost: desk.local:8080\r\nConnection: close")
    XCTAssertEqual(status(r), 200, r)
    XCTAssertEqual(header(r, "content-type"), "text/html; charset=utf-8")
    XCTAssertEqual(
      header(r, "content-security-policy"),
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'")
    XCTAssertEqual(header(r, "x-content-type-options"), "nosniff")
    XCTAssertEqual(header(r, "referrer-policy"), "no-referrer")
    XCTAssertEqual(header(r, "cache-control"), "no-cache", "revalidated, not no-store")
    XCTAssertEqual(r.lowercased().components(separatedBy: "\r\ncache-control:").count, 2, "one Cache-Control")
    XCTAssertEqual(header(r, "etag"), PageAssets.files["/"]?.etag)
    XCTAssertTrue(r.contains("<script src=\"/app.js\" defer></script>"), r)
  }

  func testEveryFileHasItsTypeAndTheIconsTheirSizes() throws {
    let types = [
      "/app.js": "text/javascript; charset=utf-8", "/app.css": "text/css; charset=utf-8",
      "/manifest.webmanifest": "application/manifest+json", "/icon.svg": "image/svg+xml",
      "/icon-192.png": "image/png", "/icon-512.png": "image/png", "/apple-touch-icon.png": "image/png",
    ]
    for (path, type) in types {
      let r = try request("GET \(path) HTTP/1.1\r\nHost: desk\r\nConnection: close")
      XCTAssertEqual(status(r), 200, path)
      XCTAssertEqual(header(r, "content-type"), type, path)
      XCTAssertEqual(header(r, "content-length"), "\(PageAssets.files[path]!.body.count)", path)
    }
    for (path, size) in ["/icon-192.png": 192, "/icon-512.png": 512, "/apple-touch-icon.png": 180] {
      let png = PageAssets.files[path]!.body
      XCTAssertEqual(Array(png[0..<8]), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], path)
      let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
      let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
      XCTAssertEqual([width, height], [size, size], path)
    }
    XCTAssertEqual(status(try request("GET /nothing.js HTTP/1.1\r\nHost: desk\r\nConnection: close")), 404)
  }

  /// A copy the browser holds is revalidated: its ETag gets 304 and no body; another gets the file.
  func testAnETagThatMatchesIsAnsweredWith304() throws {
    let etag = try XCTUnwrap(PageAssets.files["/app.js"]?.etag)
    let same = try request("GET /app.js HTTP/1.1\r\nHost: desk\r\nIf-None-Match: \(etag)\r\nConnection: close")
    XCTAssertEqual(status(same), 304, same)
    XCTAssertEqual(same.components(separatedBy: "\r\n\r\n").last, "", "no body")
    XCTAssertEqual(header(same, "etag"), etag)
    let weak = try request("GET /app.js HTTP/1.1\r\nHost: desk\r\nIf-None-Match: \"x\", W/\(etag)\r\nConnection: close")
    XCTAssertEqual(status(weak), 304, weak)
    let other = try request("GET /app.js HTTP/1.1\r\nHost: desk\r\nIf-None-Match: \"0\"\r\nConnection: close")
    XCTAssertEqual(status(other), 200)
    XCTAssertTrue(other.contains("'use strict';"))
  }

  /// At most 40 KB, and nothing from another host: no URL with a scheme or `//` in a src or
  /// href, no @import, no url() but the page's own.
  func testThePageIsSmallAndSelfContained() throws {
    XCTAssertLessThanOrEqual(PageAssets.pageBytes, 40 * 1024)
    for path in ["/", "/app.css", "/app.js", "/manifest.webmanifest", "/icon.svg"] {
      let text = String(decoding: PageAssets.files[path]!.body, as: UTF8.self)
      let stripped = text.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
      XCTAssertFalse(stripped.contains("http://") || stripped.contains("https://"), path)
      XCTAssertFalse(stripped.contains("\"//") || stripped.contains("'//") || stripped.contains("@import"), path)
    }
  }
}

final class AppIconTests: XCTestCase {
  /// The tomato in the middle 70% (a maskable icon's safe zone), the corners the background.
  func testTheIconIsTheTomatoInTheSafeZone() {
    let png = AppIcon.png(size: 192)
    XCTAssertEqual(png[24], 2, "2 bits a pixel")
    XCTAssertEqual(png[25], 3, "a palette")
    XCTAssertGreaterThan(png.count, 192 * 192 / 4)
    // 16 x 16 art at 8x: 128 pixels, 32 from each edge.
    XCTAssertLessThanOrEqual(128, 192 * 7 / 10)
  }
}
