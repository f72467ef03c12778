/// A set of pixels given as spans of columns per row: `[x0, x1)` for each row, sorted and
/// disjoint. The card's dot pixels, the only ones a frame changes after the card was
/// drawn whole, so a sink that copies the card can compare those and skip the rest.
package struct RowSpans: Sendable, Equatable {
    package let height: Int
    /// Spans of row y: `start[y] ..< start[y + 1]` in `x0` and `x1`.
    private let start: [Int]
    private let x0: [Int32]
    private let x1: [Int32]

    /// The spans covering `pixels` (x, y, count: `count` pixels from x in row y) in a
    /// `height`-row image. Spans closer than `joinGap` pixels become one, gap included:
    /// comparing a few more pixels costs less than starting another comparison.
    package init<S: Sequence>(height: Int, pixels: S, joinGap: Int = 8) where S.Element == (x: Int, y: Int, count: Int) {
        self.height = height
        var rows = Array(repeating: [(Int, Int)](), count: height)
        for p in pixels where p.y >= 0 && p.y < height && p.count > 0 {
            rows[p.y].append((p.x, p.x + p.count))
        }
        var start = [0]
        var x0: [Int32] = []
        var x1: [Int32] = []
        for var row in rows {
            row.sort { $0.0 < $1.0 }
            var current: (Int, Int)?
            for s in row {
                if let c = current, s.0 <= c.1 + joinGap {
                    current = (c.0, max(c.1, s.1))
                } else {
                    if let c = current {
                        x0.append(Int32(c.0))
                        x1.append(Int32(c.1))
                    }
                    current = s
                }
            }
            if let c = current {
                x0.append(Int32(c.0))
                x1.append(Int32(c.1))
            }
            start.append(x0.count)
        }
        self.start = start
        self.x0 = x0
        self.x1 = x1
    }

    /// Calls `body(x0, x1)` for each span of row `y`, in order (none outside the image).
    @inline(__always)
    package func forEachSpan(inRow y: Int, _ body: (Int, Int) -> Void) {
        guard y >= 0 && y < height else { return }
        for i in start[y]..<start[y + 1] { body(Int(x0[i]), Int(x1[i])) }
    }

    /// Pixels covered.
    package var pixelCount: Int { zip(x0, x1).reduce(0) { $0 + Int($1.1 - $1.0) } }
}
