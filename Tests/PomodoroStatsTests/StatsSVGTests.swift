import Foundation
import XCTest

@testable import PomodoroStats

/// The web page's stats picture: the same grid and numbers as `pomodoro stats`, as SVG.
final class StatsSVGTests: XCTestCase {
  /// The crafted history of StatsRenderingTests: a square a day in its week's column, Monday on
  /// top, shaded as the text's heatmap (25 min, 50, 100, 150+), the summary and the streak.
  func testTheSVGOfASmallHistory() throws {
    let expected = """
      <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 224" width="300" height="224" font-family="system-ui, sans-serif" font-size="11" fill="#8a8179" role="img">
      <title>Focus minutes a day, 2026-11-26 to 2026-12-09; Streak 3 days, longest 3</title>
      <text x="30" y="30">Nov</text>
      <text x="64" y="30">Dec</text>
      <text x="0" y="47">Mon</text>
      <text x="0" y="81">Wed</text>
      <text x="0" y="115">Fri</text>
      <rect x="30" y="87" width="14" height="14" rx="3" fill="#f6b7a8"><title>2026-11-26: 25 min</title></rect>
      <rect x="30" y="104" width="14" height="14" rx="3" fill="#ef8a72"><title>2026-11-27: 50 min</title></rect>
      <rect x="30" y="121" width="14" height="14" rx="3" fill="#8a817933"><title>2026-11-28: 0 min</title></rect>
      <rect x="30" y="138" width="14" height="14" rx="3" fill="#8a817933"><title>2026-11-29: 0 min</title></rect>
      <rect x="47" y="36" width="14" height="14" rx="3" fill="#e5483b"><title>2026-11-30: 100 min</title></rect>
      <rect x="47" y="53" width="14" height="14" rx="3" fill="#a8321f"><title>2026-12-01: 150 min</title></rect>
      <rect x="47" y="70" width="14" height="14" rx="3" fill="#f6b7a8"><title>2026-12-02: 25 min</title></rect>
      <rect x="47" y="87" width="14" height="14" rx="3" fill="#8a817933"><title>2026-12-03: 0 min</title></rect>
      <rect x="47" y="104" width="14" height="14" rx="3" fill="#8a817933"><title>2026-12-04: 0 min</title></rect>
      <rect x="47" y="121" width="14" height="14" rx="3" fill="#8a817933"><title>2026-12-05: 0 min</title></rect>
      <rect x="47" y="138" width="14" height="14" rx="3" fill="#8a817933"><title>2026-12-06: 0 min</title></rect>
      <rect x="64" y="36" width="14" height="14" rx="3" fill="#ef8a72"><title>2026-12-07: 50 min</title></rect>
      <rect x="64" y="53" width="14" height="14" rx="3" fill="#f6b7a8"><title>2026-12-08: 25 min</title></rect>
      <rect x="64" y="70" width="14" height="14" rx="3" fill="#f6b7a8"><title>2026-12-09: 25 min</title></rect>
      <rect x="0" y="164" width="14" height="14" rx="3" fill="#8a817933"/>
      <text x="18" y="175">none</text>
      <rect x="52" y="164" width="14" height="14" rx="3" fill="#f6b7a8"/>
      <text x="70" y="175">1+</text>
      <rect x="90" y="164" width="14" height="14" rx="3" fill="#ef8a72"/>
      <text x="108" y="175">50+</text>
      <rect x="135" y="164" width="14" height="14" rx="3" fill="#e5483b"/>
      <text x="153" y="175">100+</text>
      <rect x="187" y="164" width="14" height="14" rx="3" fill="#a8321f"/>
      <text x="205" y="175">150+ min</text>
      <text x="0" y="200" font-size="13">Today 1 focus, 25 min; this week 4, 100 min</text>
      <text x="0" y="218" font-size="13">Streak 3 days, longest 3</text>
      </svg>

      """
    let svg = StatsSVG.render(StatsRenderingTests.crafted())
    if let path = ProcessInfo.processInfo.environment["STATS_SVG_OUT"] {
      try svg.write(toFile: path, atomically: true, encoding: .utf8)
    }
    XCTAssertEqual(svg, expected)
  }

  /// Nothing a page's Content-Security-Policy would refuse or a viewer would run: no script, no
  /// style element, no link to anywhere; text escaped.
  func testTheSVGIsInert() {
    let svg = StatsSVG.render(StatsRenderingTests.crafted())
    for banned in ["<script", "<style", "href", "<foreignObject", "url("] {
      XCTAssertFalse(svg.contains(banned), banned)
    }
    XCTAssertEqual(StatsSVG.escape("a < b & c > d"), "a &lt; b &amp; c &gt; d")
  }
}
