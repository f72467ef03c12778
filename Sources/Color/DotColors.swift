/// The two gradient colors of one dot for one focal point (docs/CARD.md, "The colors").
package struct DotColors: Hashable, Sendable {
    package var start: ColorKey
    package var end: ColorKey
}

extension DotColors {
    /// The scene's formulas for a dot whose center is `distance` points from the focal
    /// point. Saturation is per dot (the seed's shared variable was a bug), and both
    /// colors use the rounded hue (the seed used the unrounded end hue).
    package init(distance d: Double) {
        let startHue = clip01(mapRange(d - 30, 0, 380, 0.2, 0.8))
        let endHue = clip01(mapRange(d, 0, 380, 0.2, 0.8))
        let saturation = d < 400 ? 0.6 : clip01(mapRange(d, 400, 700, 0.6, 0.0))
        let s = hundredths(saturation)
        self.init(
            start: ColorKey(hue: hundredths(startHue), saturation: s),
            end: ColorKey(hue: hundredths(endHue), saturation: s))
    }

    /// A 32-bit identity of the pair, used to see whether a dot must be repainted.
    @inlinable
    package var packed: UInt32 { UInt32(start.index) << 16 | UInt32(end.index) }
}
