import Testing

@testable import Color

/// The seed's route, HSL -> HSB -> RGB, written independently of `HSL.rgb` so the two
/// conversions check each other (HSL equals the seed's route through HSB).
func viaHSB(_ h: Double, _ s: Double, _ l: Double) -> (Double, Double, Double) {
    let v = l + s * min(l, 1 - l)
    let sv = v == 0 ? 0 : 2 * (1 - l / v)
    // HSB -> RGB, the textbook sector formula.
    let h6 = (h == 1 ? 0 : h) * 6
    let i = Int(h6.rounded(.down)) % 6
    let f = h6 - h6.rounded(.down)
    let p = v * (1 - sv), q = v * (1 - sv * f), t = v * (1 - sv * (1 - f))
    switch i {
    case 0: return (v, t, p)
    case 1: return (q, v, p)
    case 2: return (p, v, t)
    case 3: return (p, q, v)
    case 4: return (t, p, v)
    default: return (v, p, q)
    }
}

@Test func workedValueFromScene() {
    // docs/CARD.md, "The colors": HSL(0.3, 0.6, 0.7) = HSB(0.3, 0.409, 0.88) = RGB(0.592, 0.88, 0.52).
    let c = HSL(hue: 0.3, saturation: 0.6, lightness: 0.7).rgb
    #expect(abs(c.r - 0.592) < 0.0005)
    #expect(abs(c.g - 0.88) < 0.0005)
    #expect(abs(c.b - 0.52) < 0.0005)
    let v = 0.7 + 0.6 * min(0.7, 0.3)
    #expect(abs(v - 0.88) < 1e-12)
    #expect(abs(2 * (1 - 0.7 / v) - 0.409) < 0.0005)
}

/// (h, s, l) -> expected RGB in [0, 1], textbook values.
let hslCases: [(Double, Double, Double, Double, Double, Double)] = [
    (0.0, 1.0, 0.5, 1.0, 0.0, 0.0),
    (0.3333333333333333, 1.0, 0.5, 0.0, 1.0, 0.0),
    (0.6666666666666666, 1.0, 0.5, 0.0, 0.0, 1.0),
    (0.16666666666666666, 1.0, 0.5, 1.0, 1.0, 0.0),
    (0.5, 0.5, 0.5, 0.25, 0.75, 0.75),
    (0.75, 0.6, 0.7, 0.7, 0.52, 0.88),
    (0.42, 0.0, 0.7, 0.7, 0.7, 0.7),
    (1.0, 1.0, 0.5, 1.0, 0.0, 0.0),
    (0.8, 0.6, 0.7, 0.808, 0.52, 0.88),
]

@Test(arguments: hslCases)
func hslTable(_ h: Double, _ s: Double, _ l: Double, _ r: Double, _ g: Double, _ b: Double) {
    let c = HSL(hue: h, saturation: s, lightness: l).rgb
    #expect(abs(c.r - r) < 0.001 && abs(c.g - g) < 0.001 && abs(c.b - b) < 0.001, "HSL(\(h), \(s), \(l)) = \(c)")
}

@Test func eightBitRoundingIsRoundHalfUpOfTimes255() {
    // 0.592 * 255 = 150.96 -> 151; 0.88 * 255 = 224.4 -> 224; 0.52 * 255 = 132.6 -> 133.
    #expect(HSL(hue: 0.3, saturation: 0.6, lightness: 0.7).rgb8 == RGB8(r: 151, g: 224, b: 133))
}

@Test func tableEqualsDirectConversionForEveryKey() {
    var table = ColorTable()
    for h in 0...100 {
        for s in 0...100 {
            let (r, g, b) = viaHSB(Double(h) / 100, Double(s) / 100, 0.7)
            let expected =
                UInt32((r * 255).rounded()) << 16 | UInt32((g * 255).rounded()) << 8 | UInt32((b * 255).rounded())
            let got = table[ColorKey(hue: h, saturation: s)]
            #expect(got == expected, "key h=\(h) s=\(s): \(String(got, radix: 16)) != \(String(expected, radix: 16))")
        }
    }
    #expect(table.filled == 101 * 101)
    #expect(table.misses == 101 * 101 && table.hits == 0)
}

@Test func tableCountsHitsAfterTheFirstConversion() {
    var table = ColorTable()
    let key = ColorKey(hue: 30, saturation: 60)
    _ = table[key]
    _ = table[key]
    _ = table[key]
    #expect(table.misses == 1)
    #expect(table.hits == 2)
}
