import Color
import Raster

/// Where a renderer paints, and what it already painted there. Each pixel buffer a sink
/// rotates through (shm keeps N) has its own `CardTarget`, because each holds the frame
/// it was last given, not the newest one.
package struct CardTarget {
    package let pixmap: Pixmap
    /// Target pixel where the card's top-left pixel goes; the card is clipped to the pixmap.
    package let originX: Int
    package let originY: Int
    /// Per dot, the `DotColors.packed` last painted here; `notDrawn` forces a repaint.
    var drawn: [UInt32]
    var staticDrawn = false

    static let notDrawn: UInt32 = 0xFFFF_FFFF

    package init(pixmap: Pixmap, originX: Int = 0, originY: Int = 0) {
        self.pixmap = pixmap
        self.originX = originX
        self.originY = originY
        drawn = []
    }

    /// Forgets what was painted: the next frame redraws everything, static parts included.
    package mutating func invalidate() {
        staticDrawn = false
    }
}

/// What painting one frame did.
package struct FrameReport: Sendable, Equatable {
    /// Dots whose colors changed and were repainted.
    package var dotsRepainted = 0
    /// Pixels written (dot pixels, plus the card's static pixels when they were drawn).
    package var pixelsWritten = 0
    /// True when the static layer (background, corners, labels) was drawn this frame.
    package var drewStatic = false
    package var colors = FrameColorStats.zero

    package var wroteNothing: Bool { pixelsWritten == 0 }
}
