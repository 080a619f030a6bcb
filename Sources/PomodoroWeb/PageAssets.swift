import PomodoroGraphics

/// One file of the page: its type, its bytes and their ETag.
public struct PageAsset: Sendable {
  public let contentType: String
  public let body: [UInt8]
  /// A strong ETag of the bytes (quoted).
  public let etag: String
}

/// The page for phones (`Sources/PomodoroWeb/Page/`), in the binary: the files are embedded by
/// SwiftPM (`.embedInCode` in Package.swift: byte arrays compiled in, read from no file at run
/// time; docs/internals.md says why), the home-screen icons drawn from the panel's tomato at the
/// first request. Served with a Content-Security-Policy that lets the page load nothing but its
/// own files and talk to nobody but this server, and revalidated by ETag (304).
public enum PageAssets {
  public static let contentSecurityPolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    + "frame-ancestors 'none'"

  /// Every path served, with its file.
  public static let files: [String: PageAsset] = {
    let page: [(String, String, [UInt8])] = [
      ("/", "text/html; charset=utf-8", PackageResources.index_html),
      ("/app.css", "text/css; charset=utf-8", PackageResources.app_css),
      ("/app.js", "text/javascript; charset=utf-8", PackageResources.app_js),
      ("/manifest.webmanifest", "application/manifest+json", PackageResources.manifest_webmanifest),
      ("/icon.svg", "image/svg+xml", PackageResources.icon_svg),
      ("/icon-192.png", "image/png", AppIcon.png(size: 192)),
      ("/icon-512.png", "image/png", AppIcon.png(size: 512)),
      ("/apple-touch-icon.png", "image/png", AppIcon.png(size: 180)),
    ]
    return Dictionary(
      uniqueKeysWithValues: page.map { ($0.0, PageAsset(contentType: $0.1, body: $0.2, etag: etag($0.2))) })
  }()

  /// The bytes a first visit loads: the HTML, its CSS and script and the manifest.
  public static var pageBytes: Int {
    ["/", "/app.css", "/app.js", "/manifest.webmanifest"].reduce(0) { $0 + (files[$1]?.body.count ?? 0) }
  }

  /// The answer to a GET or HEAD of one of the page's paths (304 when the client's copy is
  /// current), or nil for any other path.
  public static func response(for request: HTTPRequest) -> HTTPResponse? {
    guard request.method == "GET" || request.method == "HEAD", let file = files[request.path] else { return nil }
    let headers = [
      ("Content-Security-Policy", contentSecurityPolicy), ("Cache-Control", "no-cache"), ("ETag", file.etag),
    ]
    // A list of tags, weak ones (W/"...") compared by their value.
    let have = (request.ifNoneMatch ?? "").split(separator: ",").map { tag in
      let bare = tag.filter { $0 != " " }
      return bare.hasPrefix("W/") ? String(bare.dropFirst(2)) : bare
    }
    if have.contains(file.etag) {
      return HTTPResponse(status: 304, contentType: file.contentType, headers: headers)
    }
    return HTTPResponse(status: 200, contentType: file.contentType, body: file.body, headers: headers)
  }

  /// FNV-1a (64 bits) of `bytes`, quoted: enough to tell versions of a file apart.
  static func etag(_ bytes: [UInt8]) -> String {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
    let hex = String(h, radix: 16)
    return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
  }
}
