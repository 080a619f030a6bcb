/// A rectangle of display RAM to rewrite: pages `pages` and columns `columns` (framebuffer
/// columns, before any controller offset), both inclusive.
public struct OLEDRegion: Equatable, Sendable {
  public var pages: ClosedRange<Int>
  public var columns: ClosedRange<Int>

  public init(pages: ClosedRange<Int>, columns: ClosedRange<Int>) {
    self.pages = pages
    self.columns = columns
  }

  /// Display bytes the region carries.
  public var byteCount: Int { pages.count * columns.count }
}

/// Chooses which regions a flush sends: only what changed, grouped so that the bytes on the wire
/// (commands, block headers and data) are close to the least.
public enum OLEDFlushPlan {
  /// Wire bytes of the command block that opens a region.
  static func setupCost(_ controller: OLEDController) -> Int {
    // SSD1306: 0x21 a b 0x22 p q; SH1106: page, low column, high column.
    I2CBusLimits.wireBytes(dataCount: controller == .ssd1306 ? 6 : 3)
  }

  /// Wire bytes to send `n` display bytes in blocks of at most 32.
  static func dataCost(_ n: Int) -> Int {
    n + 2 * ((n + I2CBusLimits.maxBlock - 1) / I2CBusLimits.maxBlock)
  }

  /// Wire bytes a region costs.
  static func cost(_ r: OLEDRegion, _ controller: OLEDController) -> Int {
    setupCost(controller) + dataCost(r.byteCount)
  }

  /// The regions to send to turn `old` (nil: unknown RAM) into `new` (page-layout bytes of a
  /// `width`-column picture). SH1106 regions are single pages (page addressing only).
  public static func regions(old: [UInt8]?, new: [UInt8], width: Int, controller: OLEDController) -> [OLEDRegion] {
    let pages = new.count / width
    guard let old, old.count == new.count else {
      if controller == .ssd1306 { return [OLEDRegion(pages: 0...(pages - 1), columns: 0...(width - 1))] }
      return (0..<pages).map { OLEDRegion(pages: $0...$0, columns: 0...(width - 1)) }
    }
    // Changed runs of columns per page; runs closer than a region's setup cost are merged,
    // since resending a few unchanged bytes is cheaper than opening a new region.
    let gap = setupCost(controller)
    var open: [OLEDRegion] = []  // regions that may still grow downwards
    var done: [OLEDRegion] = []
    for page in 0..<pages {
      let base = page * width
      var runs: [ClosedRange<Int>] = []
      var x = 0
      while x < width {
        if old[base + x] == new[base + x] {
          x += 1
          continue
        }
        let start = x
        var end = x
        while x < width {
          if old[base + x] != new[base + x] {
            end = x
          } else if x - end > gap {
            break
          }
          x += 1
        }
        runs.append(start...end)
      }
      guard controller == .ssd1306 else {
        done += runs.map { OLEDRegion(pages: page...page, columns: $0) }
        continue
      }
      // Grow a region of the page above when one rectangle costs less than two.
      var stillOpen: [OLEDRegion] = []
      var remaining = open
      for run in runs {
        let single = OLEDRegion(pages: page...page, columns: run)
        var best: (index: Int, saving: Int, merged: OLEDRegion)?
        for (i, r) in remaining.enumerated() {
          let merged = OLEDRegion(
            pages: r.pages.lowerBound...page,
            columns: min(r.columns.lowerBound, run.lowerBound)...max(r.columns.upperBound, run.upperBound))
          let saving = cost(r, controller) + cost(single, controller) - cost(merged, controller)
          if saving >= 0, saving > (best?.saving ?? -1) { best = (i, saving, merged) }
        }
        if let best {
          remaining.remove(at: best.index)
          stillOpen.append(best.merged)
        } else {
          stillOpen.append(single)
        }
      }
      done += remaining
      open = stillOpen
    }
    return done + open
  }
}
