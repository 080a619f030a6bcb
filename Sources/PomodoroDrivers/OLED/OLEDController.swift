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

/// One controller command with its arguments, named as in the SSD1306 and SH1106 datasheets;
/// `bytes` is what goes on the wire after the command control byte (0x00).
public enum OLEDCommand: Equatable, Sendable {
  /// AF on, AE off (sleep: RAM and settings are kept).
  case display(on: Bool)
  /// D5 n: display clock: divide ratio (low nibble + 1) and oscillator frequency (high nibble).
  case clockDivide(UInt8)
  /// A8 n: multiplex ratio, the number of COM lines driven, sent as rows - 1.
  case multiplex(rows: Int)
  /// D3 n: vertical shift of the COM lines.
  case displayOffset(UInt8)
  /// 40 | n: the RAM row shown on the first display line (0...63).
  case startLine(UInt8)
  /// SSD1306 8D 14 / 8D 10: the internal charge pump that makes the panel's drive voltage.
  case chargePump(on: Bool)
  /// SSD1306 20 n: how the RAM pointer moves after each data byte.
  case addressingMode(AddressingMode)
  /// SSD1306 2E: stop any scroll (a scroll would move the picture under the diff).
  case deactivateScroll
  /// SH1106 AD 8B / AD 8A: the internal DC-DC converter that makes the drive voltage.
  case dcdc(on: Bool)
  /// SH1106 30 | n: the DC-DC pump's output, 0...3 for 6.4, 7.4, 8.0 and 9.0 V.
  case pumpVoltage(UInt8)
  /// A1 / A0: segment remap: RAM column 0 on the last (A1) or the first (A0) segment.
  case segmentRemap(Bool)
  /// C8 / C0: COM scan from the last COM line to the first (C8) or the other way (C0).
  case comScanRemapped(Bool)
  /// DA n: COM pins wiring: alternative (interleaved, 0x12) for 64 rows or sequential (0x02).
  case comPins(alternative: Bool)
  /// 81 n: contrast (the segment drive current), 0...255.
  case contrast(UInt8)
  /// D9 n: pre-charge period: phase 1 (low nibble) and phase 2 (high nibble) in clocks.
  case precharge(UInt8)
  /// DB n: VCOMH deselect level.
  case vcomDeselect(UInt8)
  /// A5 all pixels lit whatever RAM holds, A4 show RAM.
  case entireDisplayOn(Bool)
  /// A7 lit pixels dark and dark ones lit, A6 normal.
  case inverted(Bool)
  /// SSD1306 21 a b: the column window for horizontal and vertical addressing.
  case columnWindow(ClosedRange<Int>)
  /// SSD1306 22 a b: the page window for horizontal and vertical addressing.
  case pageWindow(ClosedRange<Int>)
  /// B0 | p: page addressing: the page the next data bytes go to.
  case page(Int)
  /// 00 | low, 10 | high: page addressing: the RAM column the next data byte goes to.
  case column(Int)
  /// E3: no operation (a harmless write to see whether a controller answers).
  case nop

  /// SSD1306's ways of moving the RAM pointer (argument of 0x20).
  public enum AddressingMode: UInt8, Sendable {
    case horizontal = 0x00
    case vertical = 0x01
    case page = 0x02
  }

  /// The command's bytes, arguments included.
  public var bytes: [UInt8] {
    switch self {
    case .display(let on): return [on ? 0xAF : 0xAE]
    case .clockDivide(let n): return [0xD5, n]
    case .multiplex(let rows): return [0xA8, UInt8(rows - 1)]
    case .displayOffset(let n): return [0xD3, n]
    case .startLine(let n): return [0x40 | (n & 0x3F)]
    case .chargePump(let on): return [0x8D, on ? 0x14 : 0x10]
    case .addressingMode(let mode): return [0x20, mode.rawValue]
    case .deactivateScroll: return [0x2E]
    case .dcdc(let on): return [0xAD, on ? 0x8B : 0x8A]
    case .pumpVoltage(let n): return [0x30 | (n & 0x03)]
    case .segmentRemap(let on): return [on ? 0xA1 : 0xA0]
    case .comScanRemapped(let on): return [on ? 0xC8 : 0xC0]
    case .comPins(let alternative): return [0xDA, alternative ? 0x12 : 0x02]
    case .contrast(let n): return [0x81, n]
    case .precharge(let n): return [0xD9, n]
    case .vcomDeselect(let n): return [0xDB, n]
    case .entireDisplayOn(let on): return [on ? 0xA5 : 0xA4]
    case .inverted(let on): return [on ? 0xA7 : 0xA6]
    case .columnWindow(let r): return [0x21, UInt8(r.lowerBound), UInt8(r.upperBound)]
    case .pageWindow(let r): return [0x22, UInt8(r.lowerBound), UInt8(r.upperBound)]
    case .page(let p): return [0xB0 | UInt8(p & 0x07)]
    case .column(let c): return [0x00 | UInt8(c & 0x0F), 0x10 | UInt8((c >> 4) & 0x0F)]
    case .nop: return [0xE3]
    }
  }
}

extension Array where Element == OLEDCommand {
  /// The commands' bytes, one after the other.
  public var bytes: [UInt8] { flatMap(\.bytes) }
}

/// The two control bytes that open an I2C write to the controllers.
public enum OLEDControl {
  /// A stream of commands follows.
  public static let commands: UInt8 = 0x00
  /// A stream of display data follows.
  public static let data: UInt8 = 0x40
}

extension OLEDController {
  /// The initialisation sequence for a panel of `height` rows (64 or 32): one command a line
  /// with its bytes and what it does (bytes for 128x64 / 128x32, upright, contrast 0xCF).
  /// `rotated` selects the 180-degree orientation (no segment remap, normal COM scan) for a
  /// panel mounted upside down. It ends with the display on or off as asked. This table is the
  /// one place the sequence is written.
  public func initCommands(height: Int, rotated: Bool, contrast: UInt8, inverted: Bool, displayOn: Bool)
    -> [OLEDCommand]
  {
    var table: [OLEDCommand]
    switch self {
    case .ssd1306:
      table = [
        .display(on: false),  // AE: off while setting up
        .clockDivide(0x80),  // D5 80: divide ratio 1, oscillator at its reset setting
        .multiplex(rows: height),  // A8 3F / 1F: drive 64 / 32 COM lines
        .displayOffset(0),  // D3 00: no vertical shift
        .startLine(0),  // 40: RAM row 0 on the first line
        .chargePump(on: true),  // 8D 14: internal charge pump on (modules have no external VCC)
        .addressingMode(.horizontal),  // 20 00: horizontal addressing, a window fills row by row
        .deactivateScroll,  // 2E: no scrolling
        .segmentRemap(!rotated),  // A1: column 127 on SEG0, so column 0 shows left (A0 upside down)
        .comScanRemapped(!rotated),  // C8: scan COM[N-1] to COM0, so row 0 shows on top (C0 upside down)
        .comPins(alternative: height == 64),  // DA 12 / 02: alternative COM pins for 64 rows, sequential for 32
        .contrast(contrast),  // 81 CF: contrast
        .precharge(0xF1),  // D9 F1: pre-charge phase 1 one clock, phase 2 fifteen (internal pump)
        .vcomDeselect(0x40),  // DB 40: VCOMH deselect level above 0.83 x VCC, as u8g2 and luma.oled set
        .entireDisplayOn(false),  // A4: show RAM
        .inverted(inverted),  // A6: normal (A7 inverted)
      ]
    case .sh1106:
      table = [
        .display(on: false),  // AE: off while setting up
        .clockDivide(0x80),  // D5 80: divide ratio 1, oscillator +15%
        .multiplex(rows: height),  // A8 3F / 1F: drive 64 / 32 COM lines
        .displayOffset(0),  // D3 00: no vertical shift
        .startLine(0),  // 40: RAM row 0 on the first line
        .dcdc(on: true),  // AD 8B: internal DC-DC converter on
        .pumpVoltage(2),  // 32: DC-DC output 8.0 V
        .segmentRemap(!rotated),  // A1: column 131 on SEG0, so column 2 shows left (A0 upside down)
        .comScanRemapped(!rotated),  // C8: scan COM[N-1] to COM0, so row 0 shows on top (C0 upside down)
        .comPins(alternative: height == 64),  // DA 12 / 02: alternative COM pins for 64 rows, sequential for 32
        .contrast(contrast),  // 81 CF: contrast
        .precharge(0x22),  // D9 22: pre-charge and discharge two clocks each (the reset value)
        .vcomDeselect(0x35),  // DB 35: VCOM deselect level 0.77 x VCC (the reset value)
        .entireDisplayOn(false),  // A4: show RAM
        .inverted(inverted),  // A6: normal (A7 inverted)
      ]
    }
    if displayOn { table.append(.display(on: true)) }  // AF: on
    return table
  }

  /// `initCommands` as bytes.
  public func initSequence(height: Int, rotated: Bool, contrast: UInt8, inverted: Bool, displayOn: Bool) -> [UInt8] {
    initCommands(height: height, rotated: rotated, contrast: contrast, inverted: inverted, displayOn: displayOn).bytes
  }
}
