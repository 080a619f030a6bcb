import PomodoroCore
import PomodoroGraphics
import PomodoroTestFixtures
import PomodoroWeb
import XCTest

/// The page's files as the desk answers them (through WebDesk, in memory): each path with its
/// type, its headers, the ETag and its 304, the page's size. The headers the shim adds to every
/// answer are `HTTPServerTests`'.
extension WebDeskTests {
  /// The answer's header `name` (any case), or nil.
  func header(_ exchange: MemoryHTTP.Exchange, _ name: String) -> String? {
    exchange.response?.headers.first { $0.0.lowercased() == name.lowercased() }?.1
  }

  func testThePageIsServedWithItsSecurityHeaders() throws {
    let r = get("/", host: "desk.local:8080")
    XCTAssertEqual(r.status, 200, r.body)
    XCTAssertEqual(r.response?.contentType, "text/html; charset=utf-8")
    XCTAssertEqual(
      header(r, "content-security-policy"),
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'")
    XCTAssertEqual(header(r, "cache-control"), "no-cache", "revalidated, not no-store")
    XCTAssertEqual(r.response?.headers.filter { $0.0.lowercased() == "cache-control" }.count, 1, "one Cache-Control")
    XCTAssertEqual(header(r, "etag"), PageAssets.files["/"]?.etag)
    XCTAssertTrue(r.body.contains("<script src=\"/app.js\" defer></script>"), r.body)
    XCTAssertEqual(get("/", host: "evil.example").status, 421, "the page too is its own hosts' only")
  }

  func testEveryFileHasItsTypeAndTheIconsTheirSizes() throws {
    let types = [
      "/app.js": "text/javascript; charset=utf-8", "/app.css": "text/css; charset=utf-8",
      "/manifest.webmanifest": "application/manifest+json", "/icon.svg": "image/svg+xml",
      "/icon-192.png": "image/png", "/icon-512.png": "image/png", "/apple-touch-icon.png": "image/png",
    ]
    for (path, type) in types {
      let r = get(path)
      XCTAssertEqual(r.status, 200, path)
      XCTAssertEqual(r.response?.contentType, type, path)
      XCTAssertEqual(r.response?.body, PageAssets.files[path]!.body, path)
    }
    for (path, size) in ["/icon-192.png": 192, "/icon-512.png": 512, "/apple-touch-icon.png": 180] {
      let png = PageAssets.files[path]!.body
      XCTAssertEqual(Array(png[0..<8]), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], path)
      let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
      let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
      XCTAssertEqual([width, height], [size, size], path)
    }
    XCTAssertEqual(get("/nothing.js").status, 404)
  }

  /// A copy the browser holds is revalidated: its ETag gets 304 and no body; another gets the file.
  func testAnETagThatMatchesIsAnsweredWith304() throws {
    let etag = try XCTUnwrap(PageAssets.files["/app.js"]?.etag)
    func revalidate(_ ifNoneMatch: String) -> MemoryHTTP.Exchange {
      var request = MemoryHTTP.request("GET", "/app.js")
      request.ifNoneMatch = ifNoneMatch
      let exchange = http.arrive(request)
      settle(until: { exchange.response != nil })
      return exchange
    }
    let same = revalidate(etag)
    XCTAssertEqual(same.status, 304, same.body)
    XCTAssertEqual(same.body, "", "no body")
    XCTAssertEqual(header(same, "etag"), etag)
    XCTAssertEqual(revalidate("\"x\", W/\(etag)").status, 304)
    let other = revalidate("\"0\"")
    XCTAssertEqual(other.status, 200)
    XCTAssertTrue(other.body.contains("'use strict';"))
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
