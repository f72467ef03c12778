import Fonts
import Raster

/// Joins the FreeType wrapper (layer 1a) to the card's `TextRasterizer` (layer 1b);
/// neither of those modules may import the other.
package final class FontRasterizer: TextRasterizer {
    package let face: FontFace

    package init(pattern: String) throws {
        face = try FontFace(pattern: pattern)
    }

    package func metrics(of text: String, pixelSize: Double) throws -> TextMetrics {
        let m = try face.metrics(of: text, pixelSize: pixelSize)
        return TextMetrics(
            advance: m.advance, ascent: m.ascent, descent: m.descent,
            inkMinX: m.inkMinX, inkMinY: m.inkMinY, inkMaxX: m.inkMaxX, inkMaxY: m.inkMaxY)
    }

    package func mask(
        of text: String, pixelSize: Double, penX: Double, baselineY: Double,
        rotationRadians: Double
    ) throws -> AlphaMask {
        let g = try face.rasterize(
            text, pixelSize: pixelSize, penX: penX, baselineY: baselineY,
            rotationRadians: rotationRadians)
        return AlphaMask(left: g.left, top: g.top, width: g.width, height: g.height, coverage: g.coverage)
    }
}
