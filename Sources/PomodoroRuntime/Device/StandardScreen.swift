import PomodoroCore
import PomodoroGraphics

extension Screen {
  /// The device's screen for a panel `height` rows high: the one renderer from engine state to
  /// pixels, and the instants its animations (spin, flash, transition) need a new frame.
  public static func standard(height: Int) -> Screen {
    Screen(
      render: { state, now in renderScreen(state: state, now: now, height: height) },
      nextFrame: { state, now in nextFrameTime(state: state, now: now) })
  }
}
