// Compiled in debug builds only (`swift test`), as every file of this module that uses XCTest,
// which a release build (the bench may be one) has not to link; the rest compile in every build.
// What it reaches of the package's modules is public or `package`, never @testable.
#if DEBUG
  import Foundation

  import PomodoroSystem

  /// Runs `body` with the process's stdout and stderr sent to files, and returns its result with
  /// what it wrote to each (for command-line tests that check words, not only exit codes).
  package func captureOutput(_ body: () -> Int32) -> (code: Int32, out: String, err: String) {
    let dir = NSTemporaryDirectory()
    let outPath = dir + "pomodoro-out-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let errPath = outPath + ".err"
    fflush(nil)
    let savedOut = dup(1)
    let savedErr = dup(2)
    let outFD = open(outPath, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
    let errFD = open(errPath, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
    dup2(outFD, 1)
    dup2(errFD, 2)
    let code = body()
    fflush(nil)
    dup2(savedOut, 1)
    dup2(savedErr, 2)
    close(savedOut)
    close(savedErr)
    close(outFD)
    close(errFD)
    let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    unlink(outPath)
    unlink(errPath)
    return (code, out, err)
  }
#endif
