/// The card's text and arrow settings (docs/CARD.md, "The card itself" and "The dots").
package struct CardStyle: Sendable, Equatable {
    /// Left label, left-aligned at `labelInset` points.
    package var leftLabel = "Cash"
    /// Right label, right-aligned ending at W - `labelInset` points.
    package var rightLabel = "$40"
    /// Label font size, points.
    package var labelSize = 20.0
    package var labelInset = 15.0
    /// Labels are vertically centred (by the font's ascender and descender, so both
    /// labels share a baseline whatever their ink) in the band y in [0, labelBand].
    package var labelBand = 50.0
    /// The glyph drawn on each dot, black, centred on the dot by its ink box.
    package var arrow = "\u{2191}"
    /// The arrow is sized so the diagonal of its ink box is this fraction of the dot's
    /// diameter: "sized to fit the dot" with a margin, whatever the rotation.
    package var arrowFill = 0.75

    package init() {}
}
