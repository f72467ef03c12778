/// 8-bit coverage (0 = none, 255 = full) of `width` x `height` pixels whose top-left
/// pixel is at (`left`, `top`) in the target's pixel coordinates.
package struct AlphaMask: Sendable, Equatable {
    package var left: Int
    package var top: Int
    package var width: Int
    package var height: Int
    package var coverage: [UInt8]

    package init(left: Int, top: Int, width: Int, height: Int, coverage: [UInt8]) {
        precondition(coverage.count == width * height, "AlphaMask: coverage size mismatch")
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.coverage = coverage
    }

    package static let empty = AlphaMask(left: 0, top: 0, width: 0, height: 0, coverage: [])

    /// Coverage at target pixel (x, y), in [0, 1]; 0 outside the mask.
    @inlinable
    package func at(_ x: Int, _ y: Int) -> Double {
        let mx = x - left, my = y - top
        guard mx >= 0, my >= 0, mx < width, my < height else { return 0 }
        return Double(coverage[my * width + mx]) / 255
    }

    /// Combines two masks as "either": 1 - (1 - a)(1 - b).
    package func union(_ other: AlphaMask) -> AlphaMask {
        if other.width == 0 || other.height == 0 { return self }
        if width == 0 || height == 0 { return other }
        let l = min(left, other.left), t = min(top, other.top)
        let r = max(left + width, other.left + other.width), b = max(top + height, other.top + other.height)
        var cov = [UInt8](repeating: 0, count: (r - l) * (b - t))
        for y in t..<b {
            for x in l..<r {
                let a = at(x, y), o = other.at(x, y)
                cov[(y - t) * (r - l) + (x - l)] = UInt8((1 - (1 - a) * (1 - o)) * 255 + 0.5)
            }
        }
        return AlphaMask(left: l, top: t, width: r - l, height: b - t, coverage: cov)
    }
}
