/// Font metrics of a run of text at a pixel size, in pixels, y down.
package struct TextMetrics: Sendable, Equatable {
    /// Pen advance from the first glyph's origin to after the last glyph.
    package var advance: Double
    /// Distance from the baseline up to the font's ascender line (positive).
    package var ascent: Double
    /// Distance from the baseline down to the font's descender line (positive).
    package var descent: Double
    /// The ink's bounding box relative to the pen origin on the baseline, y down.
    package var inkMinX: Double
    package var inkMinY: Double
    package var inkMaxX: Double
    package var inkMaxY: Double

    package init(
        advance: Double, ascent: Double, descent: Double,
        inkMinX: Double, inkMinY: Double, inkMaxX: Double, inkMaxY: Double
    ) {
        self.advance = advance
        self.ascent = ascent
        self.descent = descent
        self.inkMinX = inkMinX
        self.inkMinY = inkMinY
        self.inkMaxX = inkMaxX
        self.inkMaxY = inkMaxY
    }

    package var inkWidth: Double { inkMaxX - inkMinX }
    package var inkHeight: Double { inkMaxY - inkMinY }
}

/// What the card needs from a font engine. Text is laid out left to right from a pen
/// origin on the baseline; `rotationRadians` turns the whole run about that origin,
/// clockwise on screen (x right, y down), as the card turns its dots.
package protocol TextRasterizer {
    func metrics(of text: String, pixelSize: Double) throws -> TextMetrics
    func mask(
        of text: String, pixelSize: Double, penX: Double, baselineY: Double,
        rotationRadians: Double
    ) throws -> AlphaMask
}
