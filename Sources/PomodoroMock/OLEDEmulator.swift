import PomodoroDrivers
import PomodoroGraphics

/// An SSD1306 or SH1106 on an emulated I2C bus: it decodes the byte stream as the chip does
/// into its display RAM and settings, and tells what a person would see on the panel.
///
/// It answers only at `address`; writes to any other address, and every write while
/// `unplugged` is true, throw `I2CError.nack`. Plugging it back in (setting `unplugged` to
/// false) models a power-cycled controller: RAM and settings reset, display off.
public final class OLEDEmulator: I2CBus {
  public let controller: OLEDController
  public let address: UInt8
  /// Rows of the panel wired to the controller (64 or 32).
  public let panelHeight: Int
  /// Name used in errors, like a real bus's device path.
  public let busName: String

  /// While true, every write throws `I2CError.nack`; clearing it power-cycles the controller.
  public var unplugged = false {
    didSet { if oldValue && !unplugged { chip = OLEDChipState(controller: controller) } }
  }

  /// Every block write acknowledged so far.
  public private(set) var transactions = 0
  /// Wire bytes of those writes (`I2CBusLimits.wireBytes`).
  public private(set) var wireBytes = 0
  /// Display data bytes written to RAM.
  public private(set) var dataBytes = 0
  /// Command bytes decoded (arguments included).
  public private(set) var commandBytes = 0

  private var chip: OLEDChipState

  public init(
    controller: OLEDController = .ssd1306, panelHeight: Int = 64, address: UInt8 = 0x3C,
    busName: String = "emulated-i2c"
  ) {
    self.controller = controller
    self.panelHeight = panelHeight
    self.address = address
    self.busName = busName
    self.chip = OLEDChipState(controller: controller)
  }

  public func writeBlock(address: UInt8, command: UInt8, data: ArraySlice<UInt8>) throws {
    guard data.count <= I2CBusLimits.maxBlock else { throw I2CError.blockTooLong(data.count) }
    guard address == self.address, !unplugged else { throw I2CError.nack(bus: busName, address: address) }
    transactions += 1
    wireBytes += I2CBusLimits.wireBytes(dataCount: data.count)
    // The first byte after the address is a control byte. Co = 1 (0x80): one byte follows, then
    // another control byte; Co = 0: every remaining byte is of the kind D/C# (0x40) says.
    var control = command
    var i = data.startIndex
    while i < data.endIndex {
      let isData = control & 0x40 != 0
      if control & 0x80 != 0 {
        consume(data[i], isData: isData)
        i += 1
        guard i < data.endIndex else { break }
        control = data[i]
        i += 1
      } else {
        for byte in data[i...] { consume(byte, isData: isData) }
        break
      }
    }
  }

  /// Resets the counters (not the chip).
  public func resetCounters() {
    transactions = 0
    wireBytes = 0
    dataBytes = 0
    commandBytes = 0
  }

  private func consume(_ byte: UInt8, isData: Bool) {
    if isData {
      dataBytes += 1
      chip.writeData(byte)
    } else {
      commandBytes += 1
      chip.command(byte)
    }
  }

  // MARK: What a person sees

  /// Whether the panel emits light: display on and its supply (charge pump / DC-DC) enabled.
  public var isLit: Bool { chip.displayOn && chip.supplyOn }
  /// Whether the display is switched on (0xAF) rather than asleep (0xAE).
  public var isDisplayOn: Bool { chip.displayOn }
  /// The contrast register (0...255).
  public var contrast: UInt8 { chip.contrast }
  /// Whether the controller inverts the picture (0xA7).
  public var isInverted: Bool { chip.inverted }
  /// The raw display RAM: `ram[page][column]`, 8 pages of `controller.ramColumns`.
  public var ram: [[UInt8]] { chip.ram }

  /// The panel as a person sees it: dark when not lit, with invert, entire-display-on, segment
  /// and COM remap, start line, offset, multiplex and COM pin wiring applied. `mountedUpsideDown`
  /// turns the view by 180 degrees, as for a panel mounted that way (the driver's `rotated`).
  public func visibleImage(mountedUpsideDown: Bool = false) -> Framebuffer {
    var out = Framebuffer(width: 128, height: panelHeight)
    guard isLit else { return out }
    let muxRows = chip.multiplex + 1
    let panelWantsAlternative = panelHeight == 64
    for line in 0..<min(muxRows, 64) {
      // Display line `line` shows RAM row (start line + line) on COM (line + offset).
      let ramRow = (line + chip.startLine) & 63
      var com = (line + chip.displayOffset) % muxRows
      // COM pin wiring: 64-row panels expect the alternative (interleaved) configuration,
      // 32-row ones the sequential one; a mismatch scatters the rows.
      if chip.alternativeCOM != panelWantsAlternative {
        let half = panelHeight / 2
        if chip.alternativeCOM {
          com = com % 2 == 0 ? com / 2 : half + com / 2  // even rows top half, odd rows bottom half
        } else {
          com = (com % half) * 2 + com / half  // top half on even rows, bottom half on odd rows
        }
      }
      guard com < panelHeight else { continue }
      // Modules are wired so that the remapped scan (0xC8) shows RAM row 0 at the top.
      let py = chip.comRemap ? com : panelHeight - 1 - com
      for seg in 0..<controller.ramColumns {
        // ... and so that the remapped segments (0xA1) show visible column 0 on the left.
        let column = chip.segmentRemap ? controller.ramColumns - 1 - seg : seg
        let px = controller.ramColumns - 1 - seg - controller.columnOffset
        guard px >= 0, px < 128 else { continue }
        var lit = chip.ram[ramRow >> 3][column] & (1 << UInt8(ramRow & 7)) != 0
        if chip.entireOn { lit = true }
        if chip.inverted { lit.toggle() }
        out.setPixel(px, py, lit)
      }
    }
    return mountedUpsideDown ? out.rotated180() : out
  }
}
