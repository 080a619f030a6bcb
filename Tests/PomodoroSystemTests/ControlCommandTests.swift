import PomodoroControl
import PomodoroCore
import PomodoroSystem
import XCTest

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
      (
        .pair(code: "123456", url: "http://192.168.1.23:8080/"),
        #"{"cmd":"pair","code":"123456","url":"http://192.168.1.23:8080/"}"#
      ),
      (.history(days: 7), #"{"cmd":"history","days":7}"#), (.extend(minutes(5)), #"{"cmd":"extend","by":"5m"}"#),
      (.set(mode: .soft, duration: minutes(6)), #"{"cmd":"set","mode":"soft","duration":"6m"}"#),
    ]
    for (command, line) in lines {
      XCTAssertEqual(command.requestLine, line)
      XCTAssertEqual(ControlCommand.parse(json: line), .success(command), line)
    }
  }

  /// The page's address a pairing carries: http://, printable ASCII without spaces, at most 256
  /// bytes; anything else is refused with the reason, never cut into another address.
  func testAPairingsAddressIsRefusedWhenItIsNoPageAddress() {
    for url in [
      "https://192.168.1.23:8080/", "http://", "http://a b/", "http://caf\u{E9}.local/", "ftp://x/",
      "http://" + String(repeating: "a", count: 250),
    ] {
      let line = FlatJSON.encode([("cmd", .string("pair")), ("code", .string("123456")), ("url", .string(url))])
      guard case .failure(let refusal) = ControlCommand.parse(json: line) else {
        return XCTFail("\(url) was taken")
      }
      XCTAssertTrue(refusal.message.hasPrefix("pair: the page's address is http://"), refusal.message)
    }
    XCTAssertEqual(
      ControlCommand.parse(json: #"{"cmd":"pair","code":"123456","url":7}"#),
      .failure(.init("\"url\" must be a string like \"http://192.168.1.23:8080/\"")))
    let longest = "http://" + String(repeating: "a", count: 249)
    XCTAssertEqual(
      ControlCommand.parse(words: ["pair", "123456", longest]), .success(.pair(code: "123456", url: longest)))
  }
}
