/// Where the card goes on one output (pure): the buffer covers the whole layer surface
/// in device pixels (its size in surface units times the output's scale), and the card
/// keeps its size in points, centred. When the output's scale is the frame's, that is
/// the frame's own pixels, copied 1:1; otherwise the card is scaled, and when it does
/// not fit the output it is scaled down to fit, aspect kept: never cut.
package struct BackgroundPlacement: Equatable, Sendable {
    /// The buffer, device pixels.
    package var bufferWidth: Int
    package var bufferHeight: Int
    /// The card's rectangle in the buffer, device pixels.
    package var cardX: Int
    package var cardY: Int
    package var cardWidth: Int
    package var cardHeight: Int
    /// The frame, pixels.
    package var frameWidth: Int
    package var frameHeight: Int

    /// The frame's pixels go to the buffer unscaled.
    package var isOneToOne: Bool { cardWidth == frameWidth && cardHeight == frameHeight }

    /// The corner radius in buffer pixels: 12 pt at the card's scale on this output.
    package var cornerRadius: Double {
        CardShape.cornerRadiusPoints * CardShape.scale(ofFrameWidth: frameWidth) * Double(cardWidth)
            / Double(frameWidth)
    }

    /// - Parameters:
    ///   - surfaceWidth, surfaceHeight: the layer surface's size from its configure, in
    ///     surface units (the output's logical size);
    ///   - outputScale: the output's integer scale (wl_output.scale), also the buffer's;
    ///   - frameWidth, frameHeight: the frame in pixels; its scale is `CardShape.scale`.
    /// Nil when there is nothing to place (a zero size).
    package init?(surfaceWidth: Int, surfaceHeight: Int, outputScale: Int, frameWidth: Int, frameHeight: Int) {
        guard surfaceWidth > 0, surfaceHeight > 0, outputScale > 0, frameWidth > 0, frameHeight > 0 else { return nil }
        bufferWidth = surfaceWidth * outputScale
        bufferHeight = surfaceHeight * outputScale
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        let frameScale = CardShape.scale(ofFrameWidth: frameWidth)
        var width = Double(frameWidth), height = Double(frameHeight)
        if Double(outputScale) != frameScale {
            width *= Double(outputScale) / frameScale
            height *= Double(outputScale) / frameScale
        }
        let fit = min(1, Double(bufferWidth) / width, Double(bufferHeight) / height)
        cardWidth = min(bufferWidth, max(1, Int((width * fit).rounded())))
        cardHeight = min(bufferHeight, max(1, Int((height * fit).rounded())))
        cardX = (bufferWidth - cardWidth) / 2
        cardY = (bufferHeight - cardHeight) / 2
    }
}
