import PomodoroCore
import XCTest

@testable import PomodoroControl
@testable import PomodoroSystem

/// `ControlCommand.requestLine` is the one place a request line is written: `pomodoro ctl`, the
/// bridges' `DeviceLink` and the page's routes send the typed command. The lines are the wire
/// (docs/control.md): each as the device has always read it, and each read back as itself.
final class ControlCommandTests: XCTestCase {
  func testTheRequestLinesAreTheWire() {
    let lines: [(ControlCommand, String)] = [
      (.status, #"{"cmd":"status"}"#), (.watch, #"{"cmd":"watch"}"#), (.config, #"{"cmd":"config"}"#),
      (.configSet(key: "focus", value: "30m"), #"{"cmd":"config_set","key":"focus","value":"30m"}"#),
      (
        .configSet(key: "modes", value: "focus \"short\""),
        #"{"cmd":"config_set","key":"modes","value":"focus \"short\""}"#
      ),
      (.configReset(key: "focus"), #"{"cmd":"config_reset","key":"focus"}"#),
      (.pair(code: "123456"), #"{"cmd":"pair","code":"123456"}"#), (.pair(code: nil), #"{"cmd":"pair"}"#),
      (.history(days: 7), #"{"cmd":"history","days":7}"#), (.extend(minutes(5)), #"{"cmd":"extend","by":"5m"}"#),
      (.set(mode: .soft, duration: minutes(6)), #"{"cmd":"set","mode":"soft","duration":"6m"}"#),
    ]
    for (command, line) in lines {
      XCTAssertEqual(command.requestLine, line)
      XCTAssertEqual(ControlCommand.parse(json: line), .success(command), line)
    }
  }
}
