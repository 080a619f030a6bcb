import PomodoroCore

/// Where an input goes, in time order. A press acts at its settled press-down where a short and
/// a long press mean the same in the phase (`Engine.actsAtPressDown`), else at its release or
/// its long press; the rest of a press that already acted (or woke the panel) says nothing
/// more. An input that wakes a blank panel does nothing else. Pure: it keeps only which buttons'
/// presses are spent.
package struct PressRouter: Equatable {
  /// Buttons whose press already acted at its settled press-down, or woke the panel.
  private var spent: Set<Button> = []

  package init() {}

  /// What one input does.
  package struct Route: Equatable {
    /// A button went down: the click's moment, and a press at the desk (the pairing code
    /// withdraws unless the press woke the panel).
    package var pressedDown = false
    /// What the engine is fed, if anything.
    package var event: Event?

    package init(pressedDown: Bool = false, event: Event? = nil) {
      self.pressedDown = pressedDown
      self.event = event
    }
  }

  /// Routes `action` given whether it wakes a blank panel and the engine's state before it.
  package mutating func route(_ action: InputMapper.Action, waking: Bool, state: EngineState) -> Route {
    switch action {
    case .buttonDown(let button):
      spent.remove(button)
      if waking {
        spent.insert(button)
        return Route(pressedDown: true)
      }
      guard Engine.actsAtPressDown(button, in: state) else { return Route(pressedDown: true) }
      spent.insert(button)
      return Route(pressedDown: true, event: .press(button))
    case .engine(.press(let button)), .engine(.longPress(let button)):
      guard !spent.contains(button), case .engine(let event) = action else { return Route() }
      return Route(event: event)
    case .engine(let event):
      return Route(event: waking ? nil : event)
    case .presence:
      return Route()  // not a press (`PresenceWatch` takes it)
    }
  }
}
