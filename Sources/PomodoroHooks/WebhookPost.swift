import CPomodoroHooks
import PomodoroConfig
import PomodoroCore
import PomodoroSystem

/// One POST of `webhook_url` through libcurl (its shim), on the hooks' one loop: the sockets
/// libcurl asks for are the loop's descriptors, its timer the loop's deadline. Bounded by
/// `hook_timeout` (libcurl's CURLOPT_TIMEOUT_MS).
final class WebhookPost {
  /// Whether libcurl was compiled in (its header was installed).
  static var compiled: Bool { pomo_curl_compiled() == 1 }
  /// Why webhooks cannot be posted (libcurl not compiled in or not installed); nil: they can.
  static var unavailable: String? { pomo_curl_load().map { String(cString: $0) } }

  /// How it ended: an HTTP answer (its status), or why none came.
  enum Outcome: Equatable {
    case answered(Int)
    case failed(String)
  }

  private var post: OpaquePointer?
  private var timerAt: Instant?
  private(set) var outcome: Outcome?

  /// Starts a POST of `body` with `headers` (`Name: value`); fails at once with why when it
  /// cannot start.
  init(url: String, headers: [String], body: String, timeout: Nanoseconds, at now: Instant) {
    var error = [CChar](repeating: 0, count: 512)
    let timeoutMs = Int(timeout / 1_000_000)
    let cHeaders = headers.map { strdup($0) }
    defer { for h in cHeaders { free(h) } }
    let bytes = Array(body.utf8)
    post = cHeaders.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
      bytes.withUnsafeBufferPointer { raw in
        raw.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, bytes.count)) { text in
          pomo_post_start(url, list.baseAddress, Int32(list.count), text, bytes.count, timeoutMs, &error, error.count)
        }
      }
    }
    if post == nil { outcome = .failed(text(ofCString: error)) }
    refreshTimer(at: now)
  }

  deinit { pomo_post_free(post) }

  private var sockets: [(fd: Int32, events: Int32)] {
    guard let post else { return [] }
    var fds = [Int32](repeating: -1, count: 8)
    var events = [Int32](repeating: 0, count: 8)
    let n = Int(pomo_post_sockets(post, &fds, &events, 8))
    return (0..<n).map { (fds[$0], events[$0]) }
  }

  var readDescriptors: [Int32] { sockets.filter { $0.events & 1 != 0 }.map(\.fd) }
  var writeDescriptors: [Int32] { sockets.filter { $0.events & 2 != 0 }.map(\.fd) }
  var nextDeadline: Instant? { outcome == nil ? timerAt : nil }

  /// Acts on what the wake found for its sockets, and on libcurl's timer when it is due; true
  /// once it has ended (`outcome`).
  func handle(_ wake: Wake, at now: Instant) -> Bool {
    guard let post, outcome == nil else { return true }
    var done = false
    for (fd, _) in sockets {
      let events = (wake.readable.contains(fd) ? 1 : 0) | (wake.writable.contains(fd) ? 2 : 0)
      if events != 0, pomo_post_act(post, fd, Int32(events)) == 1 { done = true }
    }
    if !done, let at = timerAt, now >= at { done = pomo_post_act(post, -1, 0) == 1 }
    refreshTimer(at: now)
    if done {
      var status = 0
      var error = [CChar](repeating: 0, count: 512)
      let code = pomo_post_result(post, &status, &error, error.count)
      outcome = code == 0 ? .answered(status) : .failed(text(ofCString: error))
    }
    return outcome != nil
  }

  private func refreshTimer(at now: Instant) {
    guard let post else { return }
    let ms = pomo_post_timeout(post)
    timerAt = ms < 0 ? nil : now + Nanoseconds(ms) * 1_000_000
  }
}

/// `webhook_headers`: a file of `Name: value` lines sent with each webhook (a bearer token, say),
/// blank lines and `#` comments skipped. Read once at start; a bad line is refused with its file,
/// its line and what a line looks like.
public enum WebhookHeaders {
  /// The most lines and bytes a headers file may have.
  public static let mostLines = 32
  public static let mostBytes = 8192

  public static func parse(_ text: String, file: String) -> Result<[String], ConfigError> {
    guard text.utf8.count <= mostBytes else {
      return .failure(
        .init(
          file: file, line: 0, message: "the headers file is over \(mostBytes) bytes; keep a few header lines in it"))
    }
    var headers: [String] = []
    for (index, raw) in TextLines.split(text).enumerated() {
      let line = String(TextLines.trimmed(raw))
      if line.isEmpty || line.hasPrefix("#") { continue }
      let parts = line.split(separator: ":", maxSplits: 1)
      let name = parts.first.map { String($0).trimmingSpaces } ?? ""
      let token = name.unicodeScalars.allSatisfy {
        $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_".unicodeScalars.contains($0))
      }
      guard parts.count == 2, !name.isEmpty, token,
        !line.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
      else {
        return .failure(
          .init(
            file: file, line: index + 1,
            message: "this is not a header line: write `Name: value`, like `Authorization: Bearer xoxp-...`"))
      }
      headers.append("\(name): \(String(parts[1]).trimmingSpaces)")
      guard headers.count <= mostLines else {
        return .failure(
          .init(file: file, line: index + 1, message: "the headers file may have \(mostLines) header lines at most"))
      }
    }
    return .success(headers)
  }
}

extension String {
  var trimmingSpaces: String { String(TextLines.trimmed(self)) }
}
