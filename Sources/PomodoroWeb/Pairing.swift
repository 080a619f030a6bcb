import CPomodoroWeb
import PomodoroCore
import PomodoroSystem

/// Who may act: the codes that pair a browser, and the locks after wrong ones. Pure: every
/// judgment takes the instant it is made at.
///
/// Wrong codes are counted per address (an IPv6 address by its /64, which one machine may fill
/// with addresses): six within a minute lock that address out for a minute, the right code too.
/// Six within a minute from all addresses together (the ceiling) lock the desk's code for a
/// minute: it is not compared, but the code `pomodoro web pair` printed still is, so no client
/// locks the owner out. Guessing the desk's code: at most 6 a minute from one address and 6 a
/// minute overall (as a single lock for all was); `web pair`'s code, which exists only for 2
/// minutes after the owner asked for it: at most 6 a minute per address.
public struct PairingGate: Sendable {
  /// How long a code is good for.
  public static let codeLifetime = minutes(2)
  /// This many wrong codes within `window` from one address lock it out for `window`; as many from
  /// all addresses together lock the desk's code for `window`.
  public static let attempts = 6
  public static let window = minutes(1)
  /// The addresses whose wrong codes are remembered at most (the oldest forgotten past it).
  public static let addressesKept = 1024

  /// The code shown on the desk now, and until when.
  public private(set) var code: (digits: String, until: Instant)?
  /// The last code issued: the next one differs.
  var lastDigits: String?
  /// Wrong codes within `window`, by address.
  var wrong: [String: [Instant]] = [:]
  /// Wrong codes within `window` from every address.
  var wrongAll: [Instant] = []
  /// Addresses locked out, until when.
  var locks: [String: Instant] = [:]
  /// The desk's code is not compared until then (the ceiling).
  public private(set) var deskCodeLockedUntil: Instant?

  public init() {}

  /// What a code typed on a page came to.
  public enum Verdict: Equatable, Sendable {
    case paired
    case wrong
    /// Too many wrong codes from this address: refused until then (the code is not even compared).
    case locked(until: Instant)
    /// Too many wrong codes from everywhere: the desk's code is not compared until then (this one
    /// was not `pomodoro web pair`'s).
    case deskCodeLocked(until: Instant)
  }

  /// A new code, shown until `now + codeLifetime` (any earlier code is gone); never the last one
  /// again, so that the desk can tell a new pairing from the one a press put away.
  public mutating func issue(at now: Instant, digits: String = PairingGate.randomDigits()) -> String {
    var digits = digits
    while digits == lastDigits { digits = Self.randomDigits() }
    code = (digits, now + Self.codeLifetime)
    lastDigits = digits
    return digits
  }

  /// The code on the desk now, if it is still good: asking again shows no other one, so that
  /// nobody on the LAN can keep the owner's code changing.
  public func live(at now: Instant) -> String? {
    guard let code, now < code.until else { return nil }
    return code.digits
  }

  /// The code is used or withdrawn.
  public mutating func clear() { code = nil }

  /// Until when `client` is locked out (nil: it is not).
  public func lockedUntil(for client: String, at now: Instant) -> Instant? {
    guard let until = locks[Self.key(client)], now < until else { return nil }
    return until
  }

  /// Until when the desk's code is locked for everyone (nil: it is not).
  public func deskCodeLocked(at now: Instant) -> Instant? {
    guard let until = deskCodeLockedUntil, now < until else { return nil }
    return until
  }

  /// Judges `typed` from `client` against the desk's code and `alsoGood` (whether it is a code
  /// `pomodoro web pair` printed, still good).
  public mutating func check(
    _ typed: String, from client: String, at now: Instant, alsoGood: (String) -> Bool = { _ in false }
  ) -> Verdict {
    let who = Self.key(client)
    if let until = lockedUntil(for: client, at: now) { return .locked(until: until) }
    forget(before: now)
    let deskLocked = deskCodeLocked(at: now)
    if deskLocked == nil, let code, now < code.until, Self.same(typed, code.digits) {
      self.code = nil
      wrong[who] = nil
      return .paired
    }
    if alsoGood(typed) {
      wrong[who] = nil
      return .paired
    }
    wrong[who, default: []].append(now)
    wrongAll.append(now)
    if wrong.count > Self.addressesKept, let oldest = wrong.min(by: { $0.value.last! < $1.value.last! })?.key {
      wrong[oldest] = nil
    }
    if wrongAll.count >= Self.attempts {
      wrongAll = []
      deskCodeLockedUntil = now + Self.window
    }
    if wrong[who, default: []].count >= Self.attempts {
      wrong[who] = nil
      locks[who] = now + Self.window
      return .locked(until: now + Self.window)
    }
    if let until = deskLocked { return .deskCodeLocked(until: until) }
    return .wrong
  }

  /// Drops what is older than `window`: wrong codes, ended locks.
  mutating func forget(before now: Instant) {
    wrongAll = wrongAll.filter { now - $0 < Self.window }
    wrong = wrong.compactMapValues { list in
      let kept = list.filter { now - $0 < Self.window }
      return kept.isEmpty ? nil : kept
    }
    locks = locks.filter { now < $0.value }
  }

  /// Whom wrong codes are counted against: an IPv4 address (also written IPv4-mapped), or an
  /// IPv6 address's /64.
  static func key(_ client: String) -> String {
    var v6 = in6_addr()
    guard client.contains(":"), inet_pton(AF_INET6, client, &v6) == 1 else { return client }
    let bytes = withUnsafeBytes(of: &v6) { Array($0) }
    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
      return bytes[12...].map { String($0) }.joined(separator: ".")
    }
    return bytes[0..<8].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "::/64"
  }

  /// Compares in a time that does not depend on where the two differ.
  static func same(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for i in x.indices { difference |= x[i] ^ y[i] }
    return difference == 0
  }

  /// Six digits from the system's random source.
  public static func randomDigits() -> String {
    let n = Int.random(in: 0..<1_000_000)
    let text = String(n)
    return String(repeating: "0", count: 6 - text.count) + text
  }
}

/// The browsers paired with this desk, kept hashed in `<state>/pairings` (one line each: the
/// hash of its cookie's token and when it was paired), and the code `pomodoro web pair` left in
/// `<state>/pair-code`. A token's hash is `$h1$` and HMAC-SHA-256 under a random key of this
/// install's (`<state>/pairing-key`): the token is 256 random bits, so a keyed hash compared in
/// constant time with every pairing is enough, and a request's cookie costs two SHA-256 of a
/// block, right or wrong. Pairings kept by 0.2 as SHA-256-crypt (`$5$`, 1,000 rounds) still
/// pair: the first time one is used it is kept again as `$h1$`; until every one is, a cookie
/// that matches no `$h1$` pairing costs a SHA-256-crypt as before. The file is read again when it changes (`pomodoro web forget` empties it
/// while the server runs).
public final class Pairings {
  public static let fileName = "pairings"
  public static let codeFileName = "pair-code"
  /// The most pairings kept: a new one past it replaces the oldest.
  public static let limit = 64
  public static let cookieName = "pomodoro_pairing"
  public static let keyFileName = "pairing-key"
  public static let cookieLifetime = 365 * 24 * 3600
  static let header =
    "# Browsers paired with this desk by `pomodoro web` (hashed); `pomodoro web forget` removes them.\n"

  public let directory: String
  let fs: FileSystem
  var entries: [(hash: String, at: String)] = []
  var stamp: [Int64]?
  /// How a 0.2 pairing's token is hashed to be found (`hash`; a test counts the calls).
  let crypt: (String) -> String?

  public convenience init(directory: String, fs: FileSystem = PosixFileSystem.shared) {
    self.init(directory: directory, fs: fs, crypt: Pairings.hash)
  }

  package init(directory: String, fs: FileSystem = PosixFileSystem.shared, crypt: @escaping (String) -> String?) {
    self.directory = directory
    self.fs = fs
    self.crypt = crypt
  }

  var path: String { directory + "/" + Self.fileName }

  /// The SHA-256-crypt hash kept for a code (and by 0.2 for a token).
  public static func hash(_ secret: String) -> String? {
    var out = [CChar](repeating: 0, count: 128)
    return pomo_web_hash(secret, &out, out.count) == 0 ? text(ofCString: out) : nil
  }

  /// The keyed hash's key: read from `<state>/pairing-key`, made (32 random bytes) when missing.
  var key: [UInt8]?

  func loadKey() throws -> [UInt8] {
    if let key { return key }
    let path = directory + "/" + Self.keyFileName
    if let text = try? fs.readText(path), let bytes = Self.bytes(hex: String(TextLines.trimmed(text))),
      bytes.count == 32
    {
      key = bytes
      return bytes
    }
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
    try Files.writeAtomically(path, Array((SHA256.hex(bytes) + "\n").utf8), permissions: 0o600, in: fs)
    key = bytes
    return bytes
  }

  static func bytes(hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    for i in stride(from: 0, to: digits.count, by: 2) {
      guard let b = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
      out.append(b)
    }
    return out
  }

  /// The hash kept for a token: `$h1$` and its HMAC-SHA-256 under the install's key, in hex.
  func keyedHash(_ token: String, key: [UInt8]) -> String {
    "$h1$" + SHA256.hex(SHA256.hmac(key: key, Array(token.utf8)))
  }

  /// A new pairing: its token (for the cookie), its hash saved before it is handed out.
  public func pair(at wall: WallTime) throws -> String {
    reloadIfChanged()
    var bytes = [UInt8](repeating: 0, count: 32)
    for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
    let token = SHA256.hex(bytes)
    entries.append((keyedHash(token, key: try loadKey()), wall.iso8601))
    if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
    try save()
    return token
  }

  /// Whether a request's Cookie header carries a paired token: its keyed hash compared with every
  /// pairing's in constant time; a 0.2 pairing (SHA-256-crypt) that matches is kept again keyed.
  public func paired(cookieHeader: String?) -> Bool {
    guard let token = Self.token(in: cookieHeader), token.utf8.count == 64 else { return false }
    reloadIfChanged()
    guard let key = try? loadKey() else { return false }
    let hash = keyedHash(token, key: key)
    var found = false
    for entry in entries where entry.hash.hasPrefix("$h1$") { found = PairingGate.same(entry.hash, hash) || found }
    if found { return true }
    guard entries.contains(where: { $0.hash.hasPrefix("$5$") }), let old = crypt(token),
      let index = entries.firstIndex(where: { PairingGate.same($0.hash, old) })
    else { return false }
    entries[index].hash = hash
    try? save()
    return true
  }

  public var count: Int {
    reloadIfChanged()
    return entries.count
  }

  /// The cookie that pairs a browser: not for scripts, never sent by another site's page.
  public static func setCookie(_ token: String) -> String {
    "\(cookieName)=\(token); Path=/; Max-Age=\(cookieLifetime); HttpOnly; SameSite=Strict"
  }

  static func token(in header: String?) -> String? {
    guard let header else { return nil }
    for part in header.split(separator: ";") {
      let pair = part.split(separator: "=", maxSplits: 1)
      if pair.count == 2, TextLines.trimmed(String(pair[0])) == cookieName {
        return String(TextLines.trimmed(String(pair[1])))
      }
    }
    return nil
  }

  /// Every pairing revoked: the file emptied (its header kept).
  public static func forget(directory: String, fs: FileSystem = PosixFileSystem.shared) throws -> Int {
    let store = Pairings(directory: directory, fs: fs)
    let before = store.count
    store.entries = []
    try store.save()
    try giveToDirectoryOwner(store.path, directory: directory, fs: fs)
    return before
  }

  /// A file `pomodoro web pair` or `forget` wrote as root into the service's state directory goes
  /// to the directory's owner (the service's user, pomodoro-web): the server reads it as that
  /// user, and a root-owned 0600 file is unreadable to it. Nothing to do when not root, or when
  /// the directory is root's (systemd's StateDirectory= then gives the directory and what is in it
  /// to the service's user at its next start). The file is opened without following a link and
  /// must be the one just written (root's, a regular file with one link): a link or file the
  /// service's user planted in the meantime is not given away.
  static func giveToDirectoryOwner(_ path: String, directory: String, fs: FileSystem) throws {
    guard geteuid() == 0, fs is PosixFileSystem else { return }
    var owner = stat()
    guard stat(directory, &owner) == 0 else { throw SystemError("cannot read \(directory)'s owner") }
    guard owner.st_uid != 0 else { return }
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError("cannot open \(path)") }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == 0, st.st_nlink == 1 else {
      throw SystemError("\(path) is not the file just written; it stays root's", errno: EPERM)
    }
    guard fchown(fd, owner.st_uid, owner.st_gid) == 0 else {
      throw SystemError("cannot give \(path) to \(directory)'s owner")
    }
  }

  func save() throws {
    let text = Self.header + entries.map { "\($0.hash) \($0.at)\n" }.joined()
    try Files.writeAtomically(path, Array(text.utf8), permissions: 0o600, in: fs)
    stamp = Self.stamp(path)
  }

  func reloadIfChanged() {
    let now = Self.stamp(path)
    guard now != stamp else { return }
    stamp = now
    entries = []
    guard let text = try? fs.readText(path) else { return }
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let fields = line.split(separator: " ")
      if fields.count == 2, fields[0].hasPrefix("$5$") || fields[0].hasPrefix("$h1$") {
        entries.append((String(fields[0]), String(fields[1])))
      }
    }
    if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
  }

  /// The file's inode, size and change time: read again when any differs.
  static func stamp(_ path: String) -> [Int64]? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return [Int64(st.st_ino), Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec)]
  }

  // MARK: the code `pomodoro web pair` prints

  /// Leaves a code good for `PairingGate.codeLifetime` from `now` (this boot's monotonic clock)
  /// for the running server to accept, and returns it.
  public static func leaveCode(directory: String, now: Instant, fs: FileSystem = PosixFileSystem.shared) throws
    -> String
  {
    let digits = PairingGate.randomDigits()
    guard let hash = hash(digits) else { throw SystemError("cannot hash a code (libcrypt)", errno: 0) }
    let until = now + PairingGate.codeLifetime
    let text = "\(hash) \(until.nanoseconds) \(bootID())\n"
    let path = directory + "/" + codeFileName
    try Files.writeAtomically(path, Array(text.utf8), permissions: 0o600, in: fs)
    try giveToDirectoryOwner(path, directory: directory, fs: fs)
    return digits
  }

  /// The code `pomodoro web pair` left: its hash and until when it is good (nil when there is
  /// none, it is from another boot, or it is damaged).
  public func leftCode() -> (hash: String, until: Instant)? {
    guard let text = try? fs.readText(directory + "/" + Self.codeFileName) else { return nil }
    let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard fields.count == 3, fields[0].hasPrefix("$5$"), let ns = Int64(fields[1]), String(fields[2]) == Self.bootID()
    else { return nil }
    return (String(fields[0]), Instant(nanoseconds: ns))
  }

  /// The code was used: it pairs no second browser.
  public func removeLeftCode() { try? fs.remove(directory + "/" + Self.codeFileName) }

  static func bootID() -> String {
    (try? Files.readText("/proc/sys/kernel/random/boot_id")).map { String(TextLines.trimmed($0)) } ?? "unknown"
  }
}
