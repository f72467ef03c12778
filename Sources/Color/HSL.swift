/// Hue, saturation and lightness, each in [0, 1] (hue 1 = 360 degrees).
package struct HSL: Hashable, Sendable {
    package var hue: Double
    package var saturation: Double
    package var lightness: Double

    /// The standard HSL to RGB conversion, channels in [0, 1].
    ///
    /// This equals the seed's route through HSB
    /// (V = L + S min(L, 1 - L), S_v = 2 (1 - L / V)); the tests check both routes agree.
    package var rgb: (r: Double, g: Double, b: Double) {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let h6 = (hue - hue.rounded(.down)) * 6  // hue wraps: 1.0 is red again
        let x = chroma * (1 - abs(h6.truncatingRemainder(dividingBy: 2) - 1))
        let m = lightness - chroma / 2
        let (r, g, b): (Double, Double, Double)
        switch h6 {
        case ..<1: (r, g, b) = (chroma, x, 0)
        case ..<2: (r, g, b) = (x, chroma, 0)
        case ..<3: (r, g, b) = (0, chroma, x)
        case ..<4: (r, g, b) = (0, x, chroma)
        case ..<5: (r, g, b) = (x, 0, chroma)
        default: (r, g, b) = (chroma, 0, x)
        }
        return (r + m, g + m, b + m)
    }

    /// 8-bit sRGB, `round(v * 255)`.
    package var rgb8: RGB8 {
        let c = rgb
        return RGB8(unit: c.r, c.g, c.b)
    }
}
