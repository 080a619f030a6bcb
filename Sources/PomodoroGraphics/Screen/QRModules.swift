/// A QR code's modules as the shell computed them (libqrencode behind its shim): `size` x `size`,
/// row by row, true where a module is dark. The renderer only draws them; it never encodes.
public struct QRModules: Equatable, Sendable {
  public let size: Int
  /// `size * size` modules, row by row.
  public let dark: [Bool]

  /// nil unless `dark` holds exactly `size * size` modules and `size` is a QR code's (21 for
  /// version 1, 4 more a version).
  public init?(size: Int, dark: [Bool]) {
    guard size >= 21, (size - 21) % 4 == 0, dark.count == size * size else { return nil }
    self.size = size
    self.dark = dark
  }

  public func isDark(_ x: Int, _ y: Int) -> Bool { dark[y * size + x] }

  /// The largest code the 128 x 64 pairing screen draws: version 3 (29 modules), 2 pixels a
  /// module, 58 of the panel's 64 rows (the 3 lit rows above and below are its quiet zone).
  public static let largestShown = 29
}
