import PomodoroGraphics
import PomodoroRuntime
import PomodoroSystem

/// `pomodoro snapshot DIR`: a PNG of every screen, as the panel shows it.
enum SnapshotCommand {
  static func run(_ words: ArraySlice<String>) throws -> Int32 {
    let args = try Arguments(words, valued: ["--config"], switches: [])
    guard args.positional.count == 1 else { throw UsageError("snapshot takes one folder: pomodoro snapshot DIR") }
    let config = try PomodoroCLI.loadConfig(args.values["--config"], defaultPath: nil, log: nil)
    let directory = args.positional[0]
    try Files.makeDirectories(directory, followingLinks: true)
    let look = PanelLook(contrast: config.contrast)
    var written = 0
    for height in [64, 32] {
      for (name, image) in screenGallery(height: height) {
        let file = "\(directory)/\(height == 64 ? "" : "128x32-")\(name).png"
        try Files.writeAtomically(file, PNGEncoder.encode(image, look: look))
        written += 1
      }
    }
    print("wrote \(written) screens to \(directory)")
    return ExitCode.ok
  }
}
