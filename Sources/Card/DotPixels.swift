import CardKernels
import Glibc  // libm only
import Raster

/// The per-pixel precomputation behind `CardRenderer`: which pixels each dot covers,
/// with what weight and at which gradient position. Runs once per geometry and scale.
struct DotPixels {
    var runs: [CardRenderer.Run] = []
    var weights: [UInt32] = []
    var runStart: [Int] = [0]
    var shared: [CardRenderer.SharedPixel] = []
    var contributions: [CardRenderer.Contribution] = []
    var sharedByDot: [[Int32]]

    /// One dot's coverage of one pixel.
    struct Touch {
        var x: Int
        var y: Int
        var circle: Double
        var arrow: Double
        var t: Double
    }

    init(
        layout: CardLayout, style: CardStyle, scale: Double, width pw: Int, height ph: Int,
        card: [UInt8], labels: AlphaMask, text: any TextRasterizer
    ) throws {
        let (touches, touchCount) = try DotPixels.touchesOfEveryDot(
            layout: layout, style: style, scale: scale, width: pw, height: ph,
            text: text)
        // Pass 2: single-dot, label-free pixels become weighted runs; the rest are shared.
        sharedByDot = Array(repeating: [], count: layout.dots.count)
        var sharing = Sharing()
        for (i, list) in touches.enumerated() {
            addPixels(ofDot: i, list, width: pw, touchCount: touchCount, card: card, labels: labels, sharing: &sharing)
        }
        for s in shared.indices {
            shared[s].contributionStart = Int32(contributions.count)
            for (dot, t) in sharing.touches[s] {  // dots in layout order = painter's order
                contributions.append(
                    .init(
                        dot: Int32(dot), circle: Float(t.circle), arrow: Float(t.arrow),
                        t: Float(t.t)))
            }
            shared[s].contributionEnd = Int32(contributions.count)
        }
    }

    /// Pass 1: every dot's touches, and how many dots touch each pixel.
    private static func touchesOfEveryDot(
        layout: CardLayout, style: CardStyle, scale: Double, width pw: Int, height ph: Int,
        text: any TextRasterizer
    ) throws -> (touches: [[Touch]], count: [UInt8]) {
        let arrowMetrics = try text.metrics(of: style.arrow, pixelSize: 100)
        let arrowDiagonalAt100 =
            (arrowMetrics.inkWidth * arrowMetrics.inkWidth
            + arrowMetrics.inkHeight * arrowMetrics.inkHeight).squareRoot()
        var touches = [[Touch]]()
        var touchCount = [UInt8](repeating: 0, count: pw * ph)
        for dot in layout.dots {
            let arrow = try DotPixels.arrowMask(dot, style, scale, arrowDiagonalAt100, text)
            let list = DotPixels.touches(of: dot, scale: scale, width: pw, height: ph, arrow: arrow)
            for t in list { touchCount[t.y * pw + t.x] &+= 1 }
            touches.append(list)
        }
        return (touches, touchCount)
    }

    /// The shared pixels found so far (startup only): each pixel's index in `shared`,
    /// and the touches of every shared pixel.
    private struct Sharing {
        var index = [Int: Int32]()
        var touches = [[(dot: Int, touch: Touch)]]()
    }

    /// Pass 2 for dot `i`: its pixels that only it touches and no label covers go into
    /// weighted runs; the others become (or join) shared pixels.
    private mutating func addPixels(
        ofDot i: Int, _ list: [Touch], width pw: Int, touchCount: [UInt8], card: [UInt8],
        labels: AlphaMask, sharing: inout Sharing
    ) {
        var current: CardRenderer.Run?
        for t in list {
            let pixel = t.y * pw + t.x
            let k = Double(card[pixel]) / 255
            let label = labels.at(t.x, t.y)
            if touchCount[pixel] > 1 || label > 0 {
                let s: Int32
                if let existing = sharing.index[pixel] {
                    s = existing
                } else {
                    s = Int32(shared.count)
                    sharing.index[pixel] = s
                    shared.append(
                        .init(
                            x: Int32(t.x), y: Int32(t.y), label: Float(label), card: Float(k),
                            contributionStart: 0, contributionEnd: 0))
                    sharing.touches.append([])
                }
                sharing.touches[Int(s)].append((i, t))
                sharedByDot[i].append(s)
                if let run = current { runs.append(run); current = nil }
                continue
            }
            let total = k * t.circle * (1 - t.arrow)
            let wsum = Int((total * 256).rounded())
            let wb = Int((total * t.t * 256).rounded())
            let word = UInt32(wsum - wb) | UInt32(wb) << 16
            if var run = current, Int(run.y) == t.y, Int(run.x0) + Int(run.count) == t.x {
                run.count += 1
                current = run
            } else {
                if let run = current { runs.append(run) }
                current = .init(y: Int32(t.y), x0: Int32(t.x), count: 1, weightStart: Int32(weights.count))
            }
            weights.append(word)
        }
        if let run = current { runs.append(run) }
        runStart.append(runs.count)
    }

    /// The arrow glyph for a dot, turned with it and centred on its center by ink box.
    static func arrowMask(
        _ dot: Dot, _ style: CardStyle, _ scale: Double, _ diagonalAt100: Double,
        _ text: any TextRasterizer
    ) throws -> AlphaMask {
        guard diagonalAt100 > 0 else { return .empty }
        let diameter = dot.size * scale
        let pixelSize = 100 * style.arrowFill * diameter / diagonalAt100
        let m = try text.metrics(of: style.arrow, pixelSize: pixelSize)
        // Ink center relative to the pen, turned by the dot's rotation (clockwise on screen).
        let ix = (m.inkMinX + m.inkMaxX) / 2, iy = (m.inkMinY + m.inkMaxY) / 2
        let c = cos(dot.rotation), s = sin(dot.rotation)
        let penX = dot.centerX * scale - (c * ix - s * iy)
        let penY = dot.centerY * scale - (s * ix + c * iy)
        return try text.mask(
            of: style.arrow, pixelSize: pixelSize, penX: penX, baselineY: penY,
            rotationRadians: dot.rotation)
    }

    /// Pixels a dot's circle covers inside the card, row by row, left to right.
    static func touches(of dot: Dot, scale: Double, width pw: Int, height ph: Int, arrow: AlphaMask) -> [Touch] {
        let cx = dot.centerX * scale, cy = dot.centerY * scale
        let diameter = dot.size * scale
        let r = diameter / 2
        let c = cos(dot.rotation), s = sin(dot.rotation)
        var list = [Touch]()
        let y0 = max(0, Int(floor(cy - r - 1))), y1 = min(ph - 1, Int(ceil(cy + r + 1)))
        let x0 = max(0, Int(floor(cx - r - 1))), x1 = min(pw - 1, Int(ceil(cx + r + 1)))
        guard y0 <= y1, x0 <= x1 else { return [] }
        for y in y0...y1 {
            for x in x0...x1 {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let circle = edgeCoverage(signedDistance: r - (dx * dx + dy * dy).squareRoot())
                guard circle > 0 else { continue }
                // Into the dot's own square before rotation: q = R(-rotation) (p - c).
                let qx = c * dx + s * dy, qy = -s * dx + c * dy
                // Axial gradient from the square's center (t = 0) to its bottom-right
                // corner (t = 1): t = q . g / |g|^2 with g = (d/2, d/2).
                let t = min(max((qx + qy) / diameter, 0), 1)
                list.append(Touch(x: x, y: y, circle: circle, arrow: arrow.at(x, y), t: t))
            }
        }
        return list
    }
}
