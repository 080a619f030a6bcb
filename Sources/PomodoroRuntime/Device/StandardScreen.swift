import PomodoroCore
import PomodoroGraphics

extension Screen {
  /// The device's screen for a panel `height` rows high.
  /// Interim: a bit pattern of the shown seconds and the phase, until the renderer lands.
  public static func standard(height: Int) -> Screen {
    Screen(
      render: { state, now in
        var fb = Framebuffer(width: 128, height: height)
        let s = state.shownSeconds(at: now)
        for bit in 0..<32 where (s >> Int64(bit)) & 1 == 1 { fb.setPixel(bit * 2, 0) }
        fb.setPixel(100 + Phase.allCases.firstIndex(of: state.phase)!, 8)
        fb.setPixel(110 + Mode.allCases.firstIndex(of: state.mode)!, 8)
        return fb
      },
      nextFrame: { _, _ in nil })
  }
}
