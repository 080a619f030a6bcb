/// The OLED controller chips the device drives.
public enum OLEDController: String, CaseIterable, Sendable {
  /// SSD1306: 128-column RAM, horizontal/vertical/page addressing, charge pump 0x8D.
  case ssd1306
  /// SH1106: 132-column RAM whose 128 visible columns start at column 2, page addressing only,
  /// DC-DC converter 0xAD.
  case sh1106

  /// Columns of display RAM.
  public var ramColumns: Int { self == .sh1106 ? 132 : 128 }

  /// RAM column shown in the panel's leftmost visible column.
  public var columnOffset: Int { self == .sh1106 ? 2 : 0 }
}

/// Command bytes shared by SSD1306 and SH1106 (and a few of SSD1306's own), named as in the datasheets.
public enum OLEDCommand {
  public static let displayOff: UInt8 = 0xAE
  public static let displayOn: UInt8 = 0xAF
  public static let setContrast: UInt8 = 0x81
  public static let resumeFromRAM: UInt8 = 0xA4
  public static let entireDisplayOn: UInt8 = 0xA5
  public static let normalDisplay: UInt8 = 0xA6
  public static let invertedDisplay: UInt8 = 0xA7
  public static let segmentRemapOff: UInt8 = 0xA0
  public static let segmentRemapOn: UInt8 = 0xA1
  public static let comScanNormal: UInt8 = 0xC0
  public static let comScanRemapped: UInt8 = 0xC8
  public static let setMultiplex: UInt8 = 0xA8
  public static let setDisplayOffset: UInt8 = 0xD3
  public static let setStartLine: UInt8 = 0x40
  public static let setClockDivide: UInt8 = 0xD5
  public static let setPrecharge: UInt8 = 0xD9
  public static let setCOMPins: UInt8 = 0xDA
  public static let setVCOMDeselect: UInt8 = 0xDB
  public static let pageStart: UInt8 = 0xB0
  public static let lowColumn: UInt8 = 0x00
  public static let highColumn: UInt8 = 0x10
  public static let nop: UInt8 = 0xE3
  // SSD1306 only.
  public static let chargePump: UInt8 = 0x8D
  public static let addressingMode: UInt8 = 0x20
  public static let columnWindow: UInt8 = 0x21
  public static let pageWindow: UInt8 = 0x22
  public static let deactivateScroll: UInt8 = 0x2E
  // SH1106 only.
  public static let dcdcControl: UInt8 = 0xAD
  public static let pumpVoltage8V: UInt8 = 0x32
}

/// The two control bytes that open an I2C write to the controllers.
public enum OLEDControl {
  /// A stream of commands follows.
  public static let commands: UInt8 = 0x00
  /// A stream of display data follows.
  public static let data: UInt8 = 0x40
}

extension OLEDController {
  /// The initialisation sequence for a panel of `height` rows (64 or 32), ending with the
  /// display on or off as asked. `rotated` selects the 180-degree orientation (no segment
  /// remap, normal COM scan) for a panel mounted upside down.
  public func initSequence(height: Int, rotated: Bool, contrast: UInt8, inverted: Bool, displayOn: Bool) -> [UInt8] {
    typealias C = OLEDCommand
    var seq: [UInt8] = [C.displayOff, C.setClockDivide, 0x80, C.setMultiplex, UInt8(height - 1)]
    seq += [C.setDisplayOffset, 0x00, C.setStartLine | 0]
    switch self {
    case .ssd1306: seq += [C.chargePump, 0x14, C.addressingMode, 0x00, C.deactivateScroll]
    case .sh1106: seq += [C.dcdcControl, 0x8B, C.pumpVoltage8V]
    }
    seq += [rotated ? C.segmentRemapOff : C.segmentRemapOn, rotated ? C.comScanNormal : C.comScanRemapped]
    // 64-row panels are wired for the alternative COM pin configuration, 32-row ones sequentially.
    seq += [C.setCOMPins, height == 64 ? 0x12 : 0x02, C.setContrast, contrast]
    switch self {
    case .ssd1306: seq += [C.setPrecharge, 0xF1, C.setVCOMDeselect, 0x40]
    case .sh1106: seq += [C.setPrecharge, 0x22, C.setVCOMDeselect, 0x35]
    }
    seq += [C.resumeFromRAM, inverted ? C.invertedDisplay : C.normalDisplay]
    if displayOn { seq.append(C.displayOn) }
    return seq
  }
}
