import PomodoroGraphics

/// Drives an SSD1306 or SH1106 panel over an `I2CBus`: initialisation, on/off, contrast,
/// invert, 180-degree rotation, and flushes that send only what changed since the last one.
///
/// The driver remembers what the controller's RAM holds. The first flush after `initialize()`,
/// after `invalidate()` or after a bus error sends the whole frame; a flush after a bus error
/// also re-sends the init sequence first, since a controller that dropped off the bus has
/// usually been power-cycled (display off, settings lost).
public final class OLEDDriver {
  public let bus: any I2CBus
  public let address: UInt8
  public let controller: OLEDController
  /// Panel rows: 64 or 32.
  public let height: Int
  /// Whether the panel is mounted upside down (the picture is turned by 180 degrees).
  public let rotated: Bool
  public private(set) var contrast: UInt8
  public private(set) var isOn = true
  public private(set) var isInverted = false
  /// Wire bytes (`I2CBusLimits.wireBytes`) of every write so far.
  public private(set) var totalWireBytes = 0
  /// Wire bytes of the last flush (init sequence included when one was re-sent).
  public private(set) var lastFlushWireBytes = 0
  /// What the controller's RAM holds, as framebuffer bytes; nil when unknown.
  private var shadow: [UInt8]?
  private var needsInit = true

  /// A driver for the panel at `address` (usually 0x3C) on `bus`. Nothing is sent until `initialize()`.
  public init(
    bus: any I2CBus, address: UInt8 = 0x3C, controller: OLEDController = .ssd1306, height: Int = 64,
    rotated: Bool = false, contrast: UInt8 = 0xCF
  ) {
    precondition(height == 64 || height == 32, "OLED panels are 64 or 32 rows high, got \(height)")
    self.bus = bus
    self.address = address
    self.controller = controller
    self.height = height
    self.rotated = rotated
    self.contrast = contrast
  }

  /// Sends the init sequence (display on at the end) and forgets what RAM holds.
  /// Throws the bus's `I2CError` (`.nack`: nothing answers at `address`: check wiring and address).
  public func initialize() throws {
    shadow = nil
    needsInit = true
    try sendCommands(
      controller.initCommands(
        height: height, rotated: rotated, contrast: contrast, inverted: isInverted, displayOn: isOn))
    needsInit = false
  }

  /// Makes the next flush send the whole frame.
  public func invalidate() { shadow = nil }

  /// Sends the parts of `fb` that differ from what the panel shows and returns the wire bytes spent.
  @discardableResult
  public func flush(_ fb: Framebuffer) throws -> Int {
    precondition(fb.width == 128 && fb.height == height, "a \(height)-row panel needs a 128x\(height) framebuffer")
    let before = totalWireBytes
    defer { lastFlushWireBytes = totalWireBytes - before }
    if needsInit { try initialize() }
    let regions = OLEDFlushPlan.regions(old: shadow, new: fb.bytes, width: fb.width, controller: controller)
    do {
      for region in regions { try send(region, of: fb) }
    } catch {
      shadow = nil
      throw error
    }
    shadow = fb.bytes
    return totalWireBytes - before
  }

  /// Sets the panel's brightness (0...255): the segment drive current, so a lower value also
  /// wears the panel less (dimming). Kept across a re-initialisation.
  public func setContrast(_ value: UInt8) throws {
    contrast = value
    try sendCommands([.contrast(value)])
  }

  /// Turns the panel on (wake) or off (sleep: the controller's sleep mode, RAM and settings
  /// kept, so waking needs no repaint). Kept across a re-initialisation.
  public func setDisplayOn(_ on: Bool) throws {
    isOn = on
    try sendCommands([.display(on: on)])
  }

  /// Shows lit pixels dark and dark ones lit (the controller does it; RAM is unchanged).
  public func setInverted(_ inverted: Bool) throws {
    isInverted = inverted
    try sendCommands([.inverted(inverted)])
  }

  private func send(_ region: OLEDRegion, of fb: Framebuffer) throws {
    switch controller {
    case .ssd1306:
      try sendCommands([.columnWindow(region.columns), .pageWindow(region.pages)])
      var data: [UInt8] = []
      data.reserveCapacity(region.byteCount)
      for page in region.pages {
        data += fb.bytes[(page * fb.width + region.columns.lowerBound)...(page * fb.width + region.columns.upperBound)]
      }
      try sendData(data[...])
    case .sh1106:
      for page in region.pages {
        let column = region.columns.lowerBound + controller.columnOffset
        try sendCommands([.page(page), .column(column)])
        let row = page * fb.width
        try sendData(fb.bytes[(row + region.columns.lowerBound)...(row + region.columns.upperBound)])
      }
    }
  }

  private func sendCommands(_ commands: [OLEDCommand]) throws {
    try write(control: OLEDControl.commands, commands.bytes[...])
  }

  private func sendData(_ bytes: ArraySlice<UInt8>) throws {
    try write(control: OLEDControl.data, bytes)
  }

  private func write(control: UInt8, _ bytes: ArraySlice<UInt8>) throws {
    var start = bytes.startIndex
    repeat {
      let end = min(start + I2CBusLimits.maxBlock, bytes.endIndex)
      do {
        try bus.writeBlock(address: address, command: control, data: bytes[start..<end])
      } catch {
        shadow = nil
        needsInit = true
        throw error
      }
      totalWireBytes += I2CBusLimits.wireBytes(dataCount: end - start)
      start = end
    } while start < bytes.endIndex
  }
}
