import Testing

@testable import Color

@Test(arguments: [
    // distance -> (startHue, endHue, saturation) in hundredths, by hand from docs/CARD.md:
    // startHue = clip01(0.2 + 0.6 (d - 30) / 380), endHue = clip01(0.2 + 0.6 d / 380),
    // saturation 0.6 below 400, then clip01(0.6 - 0.6 (d - 400) / 300). Hues clip at 0 and 1.
    (0.0, 15, 20, 60),  // 0.2 - 0.047368 = 0.152632 -> 0.15
    (30.0, 20, 25, 60),  // end 0.247368 -> 0.25
    (100.0, 31, 36, 60),  // start 0.310526, end 0.357895
    (190.0, 45, 50, 60),  // start 0.452632, end 0.5
    (380.0, 75, 80, 60),  // start 0.752632
    (399.0, 78, 83, 60),  // start 0.782632, end 0.83 (clip01 clips to 1, not 0.8)
    (400.0, 78, 83, 60),  // start 0.784211, end 0.831579; saturation formula starts at 0.6
    (550.0, 100, 100, 30),  // both hues past 1: clipped
    (699.0, 100, 100, 0),  // saturation 0.002 -> 0.00
    (700.0, 100, 100, 0),
    (5000.0, 100, 100, 0),
])
func colorsForDistance(_ d: Double, _ startHue: Int, _ endHue: Int, _ saturation: Int) {
    let c = DotColors(distance: d)
    #expect(Int(c.start.hue) == startHue, "start hue at d=\(d)")
    #expect(Int(c.end.hue) == endHue, "end hue at d=\(d)")
    #expect(Int(c.start.saturation) == saturation && Int(c.end.saturation) == saturation, "saturation at d=\(d)")
}

@Test func roundingIsHalfAwayFromZero() {
    #expect(hundredths(0.125) == 13)
    #expect(hundredths(0.5) == 50)
    #expect(hundredths(0.994) == 99)
    #expect(hundredths(0) == 0)
}

@Test func saturationIsPerDotNotShared() {
    // The seed declared saturation outside the loop: one far dot desaturated every dot
    // after it. Here a far dot between two near ones leaves them at 0.6.
    var engine = ColorEngine()
    var colors = Array(repeating: DotColors(distance: 0), count: 3)
    engine.computeFrame(centersX: [10, 900, 20], centersY: [0, 0, 0], focalX: 0, focalY: 0, into: &colors)
    #expect(colors[0].start.saturation == 60)
    #expect(colors[1].start.saturation == 0)
    #expect(colors[2].start.saturation == 60)
}

@Test func frameStatsCountDistinctColorsAndHits() {
    var engine = ColorEngine()
    var colors = Array(repeating: DotColors(distance: 0), count: 2)
    // Two dots at the same distance: one distinct pair of colors.
    engine.computeFrame(centersX: [3, 0], centersY: [4, 5], focalX: 0, focalY: 0, into: &colors)
    for c in colors { _ = engine.word(c.start); _ = engine.word(c.end) }
    var stats = engine.frameStats(dots: 2)
    #expect(stats.distinctColors == 2)
    #expect(stats.tableMisses == 2 && stats.tableHits == 2)
    engine.computeFrame(centersX: [3, 0], centersY: [4, 5], focalX: 0, focalY: 0, into: &colors)
    for c in colors { _ = engine.word(c.start); _ = engine.word(c.end) }
    stats = engine.frameStats(dots: 2)
    #expect(stats.tableMisses == 0 && stats.tableHits == 4)
}
