import PomodoroGraphics

/// Plain PBM (P1) text for golden images: readable and diffable in git.
enum PBM {
  static func encode(_ fb: Framebuffer, comment: String) -> String {
    var out = "P1\n# \(comment)\n\(fb.width) \(fb.height)\n"
    for y in 0..<fb.height {
      var line = ""
      for x in 0..<fb.width {
        line.append(fb.pixel(x, y) ? "1" : "0")
        if line.count == 64 || x == fb.width - 1 {
          out += line + "\n"
          line = ""
        }
      }
    }
    return out
  }

  /// The picture in `text`, or nil when it is not a P1 PBM.
  static func decode(_ text: String) -> Framebuffer? {
    var tokens: [Substring] = []
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      tokens += line.split(separator: " ")
    }
    guard tokens.count >= 3, tokens[0] == "P1", let w = Int(tokens[1]), let h = Int(tokens[2]) else { return nil }
    let bits = tokens[3...].joined()
    guard bits.count == w * h else { return nil }
    var fb = Framebuffer(width: w, height: h)
    for (i, c) in bits.enumerated() where c == "1" { fb.setPixel(i % w, i / w) }
    return fb
  }
}
