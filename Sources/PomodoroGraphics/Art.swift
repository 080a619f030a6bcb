/// Reads pixel art written in the source: blocks that each start with a `-- name` line,
/// followed by the rows of the image (`#` lit, `.` dark). Fonts and icons are stored this way
/// so that a reader sees the design.
enum Art {
  /// The named bitmaps of `art`, in order.
  static func parse(_ art: String) -> [(name: String, bitmap: Bitmap)] {
    var out: [(String, Bitmap)] = []
    var name: String?
    var rows: [String] = []
    func finish() {
      if let name { out.append((name, Bitmap(rows: rows))) }
      rows = []
    }
    for line in art.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("-- ") {
        finish()
        name = String(line.dropFirst(3))
      } else if !line.isEmpty {
        rows.append(String(line))
      }
    }
    finish()
    return out
  }
}
