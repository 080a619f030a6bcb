import Foundation
import PomodoroCore
import PomodoroSystem
import PomodoroWeb
import XCTest

/// `sudo pomodoro web pair` and `forget` write the service's state directory as root; the server
/// reads what they wrote as its own user (pomodoro-web), so each file goes to the directory's owner.
final class PairingFilesTests: XCTestCase {
  var directory = ""

  override func setUpWithError() throws {
    guard Pairings.hash("x") != nil else {
      throw XCTSkip("built without libcrypt's header: sudo apt install libcrypt-dev")
    }
    guard geteuid() == 0 else { throw XCTSkip("gives files away as root only: run as root to test it") }
    directory = NSTemporaryDirectory() + "web-owner-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDown() {
    try? FileManager.default.removeItem(atPath: directory)
  }

  func owner(_ path: String) -> (uid: uid_t, gid: gid_t, mode: mode_t)? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return (st.st_uid, st.st_gid, st.st_mode & 0o7777)
  }

  /// The service's user: any uid and gid but root's (nobody's here).
  let service: (uid: uid_t, gid: gid_t) = (65534, 65534)

  func testWhatRootWritesGoesToTheDirectorysOwner() throws {
    XCTAssertEqual(chown(directory, service.uid, service.gid), 0)
    _ = try Pairings.leaveCode(directory: directory, now: SystemClock().now)
    let code = try XCTUnwrap(owner(directory + "/" + Pairings.codeFileName))
    XCTAssertEqual([code.uid, code.gid], [service.uid, service.gid], "pair-code is the service user's")
    XCTAssertEqual(code.mode, 0o600)
    XCTAssertNotNil(Pairings(directory: directory).leftCode(), "the code the server reads")

    XCTAssertEqual(try Pairings.forget(directory: directory), 0)
    let pairings = try XCTUnwrap(owner(directory + "/" + Pairings.fileName))
    XCTAssertEqual([pairings.uid, pairings.gid], [service.uid, service.gid], "pairings is the service user's")
    XCTAssertEqual(pairings.mode, 0o600)
  }

  func testARootDirectoryKeepsRootsFiles() throws {
    _ = try Pairings.leaveCode(directory: directory, now: SystemClock().now)
    XCTAssertEqual(owner(directory + "/" + Pairings.codeFileName)?.uid, 0)
  }
}
