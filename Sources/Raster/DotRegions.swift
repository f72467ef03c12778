/// Where each dot of the card is, in card pixels: its runs (a row, a first column, a
/// length) and the pixels it shares with other dots or a label. A frame that did not
/// draw the card whole changed only the pixels of the dots it repainted, so a sink that
/// copies the card elsewhere can copy just those.
package struct DotRegions: Sendable {
    /// Runs of dot i: `runStart[i] ..< runStart[i + 1]`.
    package let runStart: [Int]
    package let runY: [Int32]
    package let runX: [Int32]
    package let runCount: [Int32]
    /// Shared pixels touching dot i: indices into `sharedX` and `sharedY`.
    package let sharedByDot: [[Int32]]
    package let sharedX: [Int32]
    package let sharedY: [Int32]

    package init(runStart: [Int], runY: [Int32], runX: [Int32], runCount: [Int32], sharedByDot: [[Int32]],
                 sharedX: [Int32], sharedY: [Int32]) {
        precondition(runY.count == runX.count && runX.count == runCount.count && runStart.last == runY.count)
        precondition(sharedX.count == sharedY.count && sharedByDot.count == runStart.count - 1)
        self.runStart = runStart
        self.runY = runY
        self.runX = runX
        self.runCount = runCount
        self.sharedByDot = sharedByDot
        self.sharedX = sharedX
        self.sharedY = sharedY
    }

    package var dotCount: Int { runStart.count - 1 }
}
