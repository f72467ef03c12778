/// What a reader of the segment knows of the card's shape (docs/CARD.md, "The card
/// itself"): its corners are rounded to 12 pt, and the default card is 350 pt wide. The
/// segment carries pixels only, so a reader takes the frame's scale (pixels per point)
/// to be its width over the default card's: 2 for the default 700 px card. A card of
/// another `Card.width` gets corners of a slightly other radius; nothing else depends on it.
package enum CardShape {
    package static let defaultWidthPoints = 350.0
    package static let cornerRadiusPoints = 12.0

    /// Pixels per point of a frame `widthPixels` wide.
    package static func scale(ofFrameWidth widthPixels: Int) -> Double {
        Double(widthPixels) / defaultWidthPoints
    }
}
