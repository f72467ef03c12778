// Card: the scene of docs/CARD.md, from geometry to pixels.
//
// Purpose: `CardLayout` computes the static dot layout in points (rows, sizes, radii,
// angles, rotations, the bounding-box cull) for any card size and origin;
// `CardRenderer` turns it, at a pixel scale, into precomputed per-pixel weights and then
// paints frames for a focal point, repainting only the dots whose colors changed.
// Invariants: geometry is in points, x right, y down, origin at the card's top-left;
// pixels are XRGB8888 premultiplied over black (see Raster). Nothing here reads a clock,
// a file or the environment: fonts arrive through `TextRasterizer`.
// Must not import: Foundation, Fonts, PNG or any I/O module (Glibc only for libm math).

/// The card's geometry in points.
package struct CardGeometry: Sendable, Equatable {
    package var width: Double
    package var height: Double
    /// The origin focal point O: where the arcs are centered and where an untilted
    /// device puts the focal point.
    package var originX: Double
    package var originY: Double

    /// Fails for sizes or origins that are not finite, and for sizes that are not positive.
    /// Every value is the caller's: the defaults (`Card.height`, `Card.origin = auto`) are
    /// resolved once, by the configuration (`CardSettings`, on `FocalPoint.cardOrigin`).
    package init?(width: Double, height: Double, originX: Double, originY: Double) {
        guard width.isFinite, height.isFinite, width > 0, height > 0, originX.isFinite, originY.isFinite else {
            return nil
        }
        self.width = width
        self.height = height
        self.originX = originX
        self.originY = originY
    }

    /// Corner radius, points.
    package static let cornerRadius = 12.0
}
