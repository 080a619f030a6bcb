/// The process's exit codes, sysexits' where one fits (docs/use.md documents them).
public enum ExitCode {
  public static let ok: Int32 = 0
  public static let failure: Int32 = 1
  public static let usage: Int32 = 64
  public static let badScript: Int32 = 65
  /// EX_UNAVAILABLE: a hardware error (chip, line, bus), or no device behind the socket (`ctl`).
  public static let unavailable: Int32 = 69
  public static let hardware = unavailable
  /// EX_TEMPFAIL: the device did not answer in time (`ctl`).
  public static let noAnswer: Int32 = 75
  /// EX_PROTOCOL: the device answered nonsense (`ctl`).
  public static let protocolError: Int32 = 76
  /// EX_NOPERM: no right to the device's socket (`ctl`).
  public static let noPermission: Int32 = 77
  public static let config: Int32 = 78
}
