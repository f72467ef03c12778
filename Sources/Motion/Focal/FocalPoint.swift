/// A point on the card, in points (x right, y down; docs/CARD.md).
package struct FocalPoint: Hashable, Sendable {
    package var x: Double
    package var y: Double
    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The card's default origin O (docs/CARD.md): bottom-centre, `(W/2, H)`, points.
    /// The one place it is computed: `Card.origin = auto`, a trace header without one.
    package static func cardOrigin(width: Double, height: Double) -> FocalPoint {
        FocalPoint(x: width / 2, y: height)
    }

    /// The card's default width W, points (docs/CARD.md): `Card.width`'s default, and a
    /// trace header without a card.
    package static let cardWidth = 350.0

    /// The card's default height H for a width W (docs/CARD.md: 2/3 of it), points.
    package static func cardHeight(width: Double) -> Double { width * 2 / 3 }
}
