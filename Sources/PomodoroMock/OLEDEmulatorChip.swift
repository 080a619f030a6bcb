import PomodoroDrivers

/// The registers and display RAM of an emulated SSD1306 or SH1106, and the command decoder.
struct OLEDChipState {
  let controller: OLEDController
  var ram: [[UInt8]]
  var displayOn = false
  /// SSD1306 charge pump (0x8D 0x14) or SH1106 DC-DC (0xAD 0x8B). SH1106 boards power up with
  /// it on; SSD1306 needs it switched on.
  var supplyOn: Bool
  var contrast: UInt8 = 0x7F
  var inverted = false
  var entireOn = false
  var segmentRemap = false
  var comRemap = false
  var multiplex = 63
  var displayOffset = 0
  var startLine = 0
  var alternativeCOM = true
  /// 0 horizontal, 1 vertical, 2 page (the reset default). SH1106: always page.
  var addressingMode = 2
  var columnStart = 0
  var columnEnd: Int
  var pageStart = 0
  var pageEnd = 7
  var column = 0
  var page = 0
  /// A command waiting for its arguments, and the arguments so far.
  var pending: (command: UInt8, needed: Int, args: [UInt8])?

  init(controller: OLEDController) {
    self.controller = controller
    self.ram = [[UInt8]](repeating: [UInt8](repeating: 0, count: controller.ramColumns), count: 8)
    self.columnEnd = controller.ramColumns - 1
    self.supplyOn = controller == .sh1106
  }

  mutating func writeData(_ byte: UInt8) {
    ram[page][column] = byte
    switch (controller, addressingMode) {
    case (.ssd1306, 0):
      if column >= columnEnd {
        column = columnStart
        page = page >= pageEnd ? pageStart : page + 1
      } else {
        column += 1
      }
    case (.ssd1306, 1):
      if page >= pageEnd {
        page = pageStart
        column = column >= columnEnd ? columnStart : column + 1
      } else {
        page += 1
      }
    case (.ssd1306, _):
      column = column >= 127 ? columnStart : column + 1
    case (.sh1106, _):
      column = (column + 1) % controller.ramColumns
    }
  }

  /// The number of argument bytes that follow `command` on this controller.
  func argumentCount(_ command: UInt8) -> Int {
    switch (controller, command) {
    case (_, 0x81), (_, 0xA8), (_, 0xD3), (_, 0xD5), (_, 0xD9), (_, 0xDA), (_, 0xDB): return 1
    case (.ssd1306, 0x20), (.ssd1306, 0x8D), (.ssd1306, 0xAD): return 1
    case (.ssd1306, 0x21), (.ssd1306, 0x22), (.ssd1306, 0xA3): return 2
    case (.ssd1306, 0x26), (.ssd1306, 0x27): return 6
    case (.ssd1306, 0x29), (.ssd1306, 0x2A): return 5
    case (.sh1106, 0xAD): return 1
    default: return 0
    }
  }

  mutating func command(_ byte: UInt8) {
    if var p = pending {
      p.args.append(byte)
      if p.args.count == p.needed {
        pending = nil
        execute(p.command, p.args)
      } else {
        pending = p
      }
      return
    }
    let n = argumentCount(byte)
    if n > 0 {
      pending = (byte, n, [])
    } else {
      execute(byte, [])
    }
  }

  private mutating func execute(_ c: UInt8, _ a: [UInt8]) {
    let pageMode = controller == .sh1106 || addressingMode == 2
    switch c {
    case 0x00...0x0F where pageMode: column = (column & 0xF0) | Int(c & 0x0F)
    case 0x10...0x1F where pageMode:
      column = (Int(c & 0x0F) << 4) | (column & 0x0F)
      if controller == .sh1106 { column %= controller.ramColumns }
    case 0x20 where controller == .ssd1306: addressingMode = Int(a[0] & 0x03) == 3 ? 2 : Int(a[0] & 0x03)
    case 0x21 where controller == .ssd1306:
      columnStart = Int(a[0] & 0x7F)
      columnEnd = Int(a[1] & 0x7F)
      column = columnStart
    case 0x22 where controller == .ssd1306:
      pageStart = Int(a[0] & 0x07)
      pageEnd = Int(a[1] & 0x07)
      page = pageStart
    case 0x40...0x7F: startLine = Int(c & 0x3F)
    case 0x81: contrast = a[0]
    case 0x8D where controller == .ssd1306: supplyOn = a[0] & 0x04 != 0
    case 0xAD where controller == .sh1106: supplyOn = a[0] & 0x01 != 0
    case 0xA0, 0xA1: segmentRemap = c == 0xA1
    case 0xA4, 0xA5: entireOn = c == 0xA5
    case 0xA6, 0xA7: inverted = c == 0xA7
    case 0xA8: multiplex = max(15, Int(a[0] & 0x3F))
    case 0xAE, 0xAF: displayOn = c == 0xAF
    case 0xB0...0xB7 where pageMode: page = Int(c & 0x07)
    case 0xC0...0xCF: comRemap = c & 0x08 != 0
    case 0xD3: displayOffset = Int(a[0] & 0x3F)
    case 0xDA: alternativeCOM = a[0] & 0x10 != 0
    default: break  // timing, voltages, scrolling, nop: no effect on the picture here
    }
  }
}
