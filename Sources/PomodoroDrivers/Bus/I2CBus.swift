/// An I2C bus as the display driver sees it: SMBus "I2C block writes".
///
/// One write is a transaction to a 7-bit `address`: the `command` byte (for the OLED
/// controllers, the control byte 0x00 for commands or 0x40 for display data) followed by
/// at most `I2CBusLimits.maxBlock` (32) data bytes.
public protocol I2CBus: AnyObject {
  func writeBlock(address: UInt8, command: UInt8, data: ArraySlice<UInt8>) throws
}

public enum I2CBusLimits {
  /// The longest SMBus block: 32 data bytes after the command byte.
  public static let maxBlock = 32

  /// Bytes a block write costs on the wire: the address byte, the command byte and the data.
  /// (Start and stop conditions are not bytes and are not counted.)
  @inlinable public static func wireBytes(dataCount: Int) -> Int { 2 + dataCount }
}
