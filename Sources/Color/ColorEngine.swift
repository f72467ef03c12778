/// Per-frame colors of every dot: distances to the focal point, the scene's formulas,
/// and the dense table. Owns no pixels; the card renderer asks it for keys, then for
/// the words of the dots it actually repaints.
package struct ColorEngine: Sendable {
    package private(set) var table = ColorTable()
    /// Frame stamp per table slot, to count distinct colors without hashing.
    private var seen: [UInt32]
    private var stamp: UInt32 = 0
    private var distinct = 0
    private var hitsAtFrameStart = 0
    private var missesAtFrameStart = 0

    package init() {
        seen = Array(repeating: 0, count: ColorKey.steps * ColorKey.steps)
    }

    /// Starts a frame: fills `colors[i]` with the colors of the dot centered at
    /// (`centersX[i]`, `centersY[i]`) for the focal point (`focalX`, `focalY`), all in points.
    package mutating func computeFrame(
        centersX: [Double], centersY: [Double], focalX: Double, focalY: Double,
        into colors: inout [DotColors]
    ) {
        precondition(centersX.count == centersY.count && colors.count == centersX.count)
        hitsAtFrameStart = table.hits
        missesAtFrameStart = table.misses
        stamp &+= 1
        if stamp == 0 {  // wrapped after 2^32 frames: forget every old stamp
            for i in seen.indices { seen[i] = 0 }
            stamp = 1
        }
        distinct = 0
        for i in centersX.indices {
            let dx = centersX[i] - focalX
            let dy = centersY[i] - focalY
            let pair = DotColors(distance: (dx * dx + dy * dy).squareRoot())
            colors[i] = pair
            markSeen(pair.start.index)
            markSeen(pair.end.index)
        }
    }

    private mutating func markSeen(_ index: Int) {
        if seen[index] != stamp {
            seen[index] = stamp
            distinct += 1
        }
    }

    /// The XRGB8888 word of `key`, through the table.
    @inlinable
    package mutating func word(_ key: ColorKey) -> UInt32 { table[key] }

    /// What the current frame (since `computeFrame`) asked of the engine.
    package func frameStats(dots: Int) -> FrameColorStats {
        FrameColorStats(
            dots: dots, distinctColors: distinct,
            tableHits: table.hits - hitsAtFrameStart,
            tableMisses: table.misses - missesAtFrameStart)
    }

    package mutating func prefill() { table.prefill() }
}

/// What one frame asked of the color engine.
package struct FrameColorStats: Sendable, Equatable, Codable {
    package var dots: Int
    /// Distinct colors among the frame's 2 x dots gradient stops.
    package var distinctColors: Int
    /// Table lookups answered from a filled slot, and lookups that had to convert.
    /// Only repainted dots look colors up, so an unchanged frame has neither.
    package var tableHits: Int
    package var tableMisses: Int

    package static let zero = FrameColorStats(dots: 0, distinctColors: 0, tableHits: 0, tableMisses: 0)
}
