/// The process's exit codes, sysexits' where one fits. `meanings` says what each means, once:
/// every "Exit codes" text (the help, docs/use.md, the man page's EXIT STATUS) comes from it.
public enum ExitCode {
  public static let ok: Int32 = 0
  public static let failure: Int32 = 1
  public static let usage: Int32 = 64
  public static let badScript: Int32 = 65
  /// EX_UNAVAILABLE: a hardware error (chip, line, bus), or no device behind the socket (`ctl`).
  public static let unavailable: Int32 = 69
  public static let hardware = unavailable
  /// EX_TEMPFAIL: no reply in time (`ctl`: the device; `mqtt --remove`: the broker).
  public static let noAnswer: Int32 = 75
  /// EX_PROTOCOL: the device answered nonsense (`ctl`).
  public static let protocolError: Int32 = 76
  /// EX_NOPERM: no right to the device's socket (`ctl`).
  public static let noPermission: Int32 = 77
  public static let config: Int32 = 78

  /// Every code and what it means, in order.
  public static let meanings: [(code: Int32, meaning: String)] = [
    (ok, "ok"), (failure, "failure"), (usage, "usage error"), (badScript, "bad script"),
    (unavailable, "hardware error (chip, line, bus; ctl: no device at the socket)"), (noAnswer, "no reply in time"),
    (protocolError, "bad reply"), (noPermission, "no permission"), (config, "config error"),
  ]

  /// What `code` means.
  public static func meaning(_ code: Int32) -> String {
    meanings.first { $0.code == code }?.meaning ?? "exit \(code)"
  }

  /// "`0` ok, `1` failure, ...": the codes as a sentence, each marked by `mark` (docs: backticks).
  public static func list(_ codes: [(code: Int32, meaning: String)], mark: (String) -> String = { $0 }) -> String {
    codes.map { "\(mark(String($0.code))) \($0.meaning)" }.joined(separator: ", ")
  }
}
