#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// errno values the backends tell apart, named once (EREMOTEIO exists on Linux only).
enum Errno {
  static let noEntry = ENOENT
  static let access = EACCES
  static let permission = EPERM
  static let busy = EBUSY
  static let notImplemented = ENOSYS
  static let noDeviceOrAddress = ENXIO
  static let noDevice = ENODEV
  static let notATTY = ENOTTY
  #if os(Linux)
    static let remoteIO: Int32 = EREMOTEIO
  #else
    static let remoteIO: Int32 = 121
  #endif

  /// The C library's words for `code` (a positive errno).
  static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
