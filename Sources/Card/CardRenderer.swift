import CardKernels
import CardKernelsAVX2
import Color
import Glibc  // libm only
import Raster

/// Paints the card into `CardTarget`s.
///
/// Why it is built this way (the target: a frame in which every dot changes in well under
/// 0.1 ms at 700 x 467, docs/PERFORMANCE.md):
/// - Everything that does not depend on the focal point is computed once here: the
///   static layer (black rounded card, labels) as finished label rows, and for every dot
///   pixel the two weights `wa = k (1 - t)` and `wb = k t`, where `k` folds the circle's
///   anti-aliased coverage, the arrow (black, over the dot), the card's rounded corners
///   and `t` is the pixel's position along the dot's rotated axial gradient. A dot pixel
///   is then `start * wa + end * wb`: two multiplies per channel pair, no per-pixel
///   geometry, no division, no branches.
/// - Dot pixels are stored as horizontal runs, so the inner loop walks memory linearly
///   and the sink's stride only matters once per run.
/// - A frame repaints only the dots whose (start, end) color keys changed; a frame where
///   none changed writes nothing.
/// - The rare pixels whose value depends on more than one dot, or that a label covers,
///   cannot use the two-weight form; they are kept in a small list composited in full
///   (painter's order: card, dots with their arrows, labels, clipped by the card) when
///   any of their dots changes. The default card has none at scale >= 1.
package final class CardRenderer {
    package let layout: CardLayout
    package let style: CardStyle
    /// Pixels per point.
    package let scale: Double
    /// round(points * scale).
    package let pixelWidth: Int
    package let pixelHeight: Int
    /// Coverage of each card pixel by the rounded card (255 inside), row-major. The PNG
    /// writer uses it as alpha; XRGB targets show black outside the corners. Computed on
    /// each use (a few milliseconds) rather than kept: only PNG output needs it, and the
    /// daemon would hold 320 KiB at scale 2 for nothing.
    package var cardCoverage: [UInt8] { CardRenderer.coverage(width: pixelWidth, height: pixelHeight, scale: scale) }

    static func coverage(width pw: Int, height ph: Int, scale: Double) -> [UInt8] {
        let radius = CardGeometry.cornerRadius * scale
        var card = [UInt8](repeating: 0, count: pw * ph)
        for y in 0..<ph {
            for x in 0..<pw {
                let c = roundedRectCoverage(
                    px: Double(x) + 0.5, py: Double(y) + 0.5,
                    width: Double(pw), height: Double(ph), radius: radius)
                card[y * pw + x] = UInt8(c * 255 + 0.5)
            }
        }
        return card
    }

    /// The static layer, premultiplied XRGB8888: black but for the rows the labels cross,
    /// which are kept here (rows labelBandTop ..< labelBandTop + count / pixelWidth).
    private let labelBand: [UInt32]
    private let labelBandTop: Int
    private let runs: [Run]
    /// Per run pixel, `wa | wb << 16` with wa + wb <= 256 (see `blendDotRuns`).
    private let weights: [UInt32]
    /// Runs of dot i: runStart[i] ..< runStart[i + 1].
    private let runStart: [Int]
    private let sharedPixels: [SharedPixel]
    private let contributions: [Contribution]
    /// Shared pixels touching dot i.
    private let sharedByDot: [[Int32]]
    private let centersX: [Double]
    private let centersY: [Double]
    private var engine = ColorEngine()
    private var colors: [DotColors]
    private var previousColors: [DotColors]
    private var hasColors = false
    /// Shared pixels to recomposite in the current frame (reused, no allocation per frame).
    private var sharedDirty: [Bool]
    /// The dots a frame repaints, in order (reused, no allocation per frame).
    private var repaintOrder: [Int32]
    /// Whether `paint` asks for each repainted dot's weights and target lines
    /// (`prefetchDotRuns`) `prefetchDistance` dots before blending it. For frames that
    /// follow a sleep, as the daemon's do: the caches have lost those lines meanwhile, and
    /// the prefetch takes a quarter off the frame. A renderer drawing frame after frame
    /// (a replay as fast as possible, `shimmerd bench`'s warm cases) finds its lines in
    /// the caches, where the prefetch instructions only add to the frame (docs/PERFORMANCE.md).
    package var prefetchesAhead = false
    /// Repainted dots between a dot's prefetch and its blend (about 1.2 us of blending at
    /// scale 2 after a sleep; 1 to 4 measured alike).
    static let prefetchDistance = 2

    typealias Run = DotRun

    struct SharedPixel {
        var x: Int32
        var y: Int32
        var label: Float
        var card: Float
        var contributionStart: Int32
        var contributionEnd: Int32
    }

    struct Contribution {
        var dot: Int32
        var circle: Float
        var arrow: Float
        var t: Float
    }

    /// Which compilation of the inner loop paints the dots (CardKernels).
    package enum Kernel: String, Sendable, CaseIterable {
        /// The architecture's baseline (SSE2 on x86-64, NEON on arm64).
        case baseline
        /// x86-64 with AVX2: only where the CPU has it.
        case avx2
    }

    package let kernel: Kernel
    private let blend: DotKernel

    package var dotCount: Int { layout.dots.count }
    /// Dot pixels that a frame in which every dot changes writes.
    package var dotPixelCount: Int { weights.count + sharedPixels.count }

    package enum Failure: Error, CustomStringConvertible {
        case badScale(Double)
        case tooLarge(width: Int, height: Int)

        package var description: String {
            switch self {
            case .badScale(let s): "Card.scale must be a finite number above 0, got \(s)"
            case .tooLarge(let w, let h): "the card would be \(w) x \(h) pixels; at most 16384 x 16384"
            }
        }
    }

    /// Lays out and precomputes everything. `text` rasterizes the labels and arrows once.
    package init(
        layout: CardLayout, scale: Double, style: CardStyle = CardStyle(),
        text: any TextRasterizer, kernel: Kernel = .baseline
    ) throws {
        guard scale.isFinite, scale > 0 else { throw Failure.badScale(scale) }
        let pw = Int((layout.geometry.width * scale).rounded())
        let ph = Int((layout.geometry.height * scale).rounded())
        guard pw >= 1, ph >= 1, pw <= 16384, ph <= 16384 else { throw Failure.tooLarge(width: pw, height: ph) }
        self.layout = layout
        self.style = style
        self.kernel = kernel
        switch kernel {
        case .baseline: blend = { blendDotRunsBaseline($0, $1, $2, $3, $4, $5, $6) }
        case .avx2: blend = { blendDotRunsAVX2($0, $1, $2, $3, $4, $5, $6) }
        }
        self.scale = scale
        pixelWidth = pw
        pixelHeight = ph
        centersX = layout.centersX
        centersY = layout.centersY
        colors = Array(repeating: DotColors(distance: 0), count: layout.dots.count)
        previousColors = colors
        repaintOrder = Array(repeating: 0, count: layout.dots.count)

        // Card coverage: the rounded rectangle spans the whole pixel card.
        let card = CardRenderer.coverage(width: pw, height: ph, scale: scale)

        let labels = try CardRenderer.labelMask(layout.geometry, style, scale, text)
        // Only the label rows of the static layer hold anything but black (premultiplied
        // over black, the card is 0 everywhere else): keep just those rows.
        let top = min(max(labels.top, 0), ph), bottom = max(top, min(labels.top + labels.height, ph))
        var band = [UInt32](repeating: 0, count: (bottom - top) * pw)
        for y in top..<bottom {
            for x in max(labels.left, 0)..<min(labels.left + labels.width, pw) {
                let v = UInt32((labels.at(x, y) * Double(card[y * pw + x]) / 255 * 255).rounded())
                band[(y - top) * pw + x] = v << 16 | v << 8 | v
            }
        }
        labelBand = band
        labelBandTop = top

        let pixels = try DotPixels(
            layout: layout, style: style, scale: scale, width: pw, height: ph,
            card: card, labels: labels, text: text)
        runs = pixels.runs
        weights = pixels.weights
        runStart = pixels.runStart
        sharedPixels = pixels.shared
        contributions = pixels.contributions
        sharedByDot = pixels.sharedByDot
        sharedDirty = Array(repeating: false, count: pixels.shared.count)
    }

    /// The two labels as one mask in card pixels.
    private static func labelMask(
        _ g: CardGeometry, _ style: CardStyle, _ scale: Double,
        _ text: any TextRasterizer
    ) throws -> AlphaMask {
        let size = style.labelSize * scale
        var mask = AlphaMask.empty
        for (label, leftAligned) in [(style.leftLabel, true), (style.rightLabel, false)] where !label.isEmpty {
            let m = try text.metrics(of: label, pixelSize: size)
            let baseline = style.labelBand / 2 * scale + (m.ascent - m.descent) / 2
            let penX = leftAligned ? style.labelInset * scale : (g.width - style.labelInset) * scale - m.advance
            mask = mask.union(
                try text.mask(
                    of: label, pixelSize: size, penX: penX, baselineY: baseline,
                    rotationRadians: 0))
        }
        return mask
    }

    // MARK: Painting

    /// Paints the frame for focal point (`focalX`, `focalY`) points into `target`,
    /// writing only what differs from what `target` last received.
    @discardableResult
    package func render(focalX: Double, focalY: Double, into target: inout CardTarget) -> FrameReport {
        update(focalX: focalX, focalY: focalY)
        return paint(into: &target)
    }

    /// Computes the colors for a new focal point without painting; returns how many dots
    /// differ from the previous `update`. A loop publishes a frame only when this is
    /// not zero (a sink rotating through several buffers cannot tell from one buffer).
    @discardableResult
    package func update(focalX: Double, focalY: Double) -> Int {
        swap(&colors, &previousColors)
        engine.computeFrame(centersX: centersX, centersY: centersY, focalX: focalX, focalY: focalY, into: &colors)
        var changed = 0
        colors.withUnsafeBufferPointer { now in
            previousColors.withUnsafeBufferPointer { before in
                for i in now.indices where now[i].packed != before[i].packed { changed += 1 }
            }
        }
        if !hasColors {
            hasColors = true
            changed = colors.count
        }
        return changed
    }

    /// Paints the colors of the last `update` into `target`, writing only what differs
    /// from what `target` last received.
    @discardableResult
    package func paint(into target: inout CardTarget) -> FrameReport {
        var report = FrameReport()
        let clip = Clip(target: target, width: pixelWidth, height: pixelHeight)
        if !target.staticDrawn || target.drawn.count != colors.count {
            report.pixelsWritten += drawStatic(target.pixmap, clip)
            report.drewStatic = true
            target.drawn = Array(repeating: CardTarget.notDrawn, count: colors.count)
            target.staticDrawn = true
        }
        let kclip = KernelClip(x0: clip.x0, y0: clip.y0, x1: clip.x1, y1: clip.y1, whole: clip.whole)
        let base = target.pixmap.base + clip.dy * target.pixmap.stride + clip.dx * 4
        let (dots, pixels, anyShared) = CardRenderer.paintDots(
            colors, &target.drawn, &engine, &sharedDirty, &repaintOrder, runs: runs, runStart: runStart,
            weights: weights,
            sharedByDot: sharedByDot, blend: blend, prefetch: prefetchesAhead, base: base, stride: target.pixmap.stride,
            clip: kclip)
        report.dotsRepainted += dots
        report.pixelsWritten += pixels
        if anyShared {
            report.pixelsWritten += paintShared(target.pixmap, clip)
        }
        report.colors = engine.frameStats(dots: colors.count)
        return report
    }

    /// The dots whose colors differ from what the target holds, blended in: returns the
    /// dots and pixels painted and whether shared pixels were marked for recompositing.
    /// Static, with every piece of state passed once, so the loop over 175 dots makes no
    /// per-dot exclusivity checks, uniqueness checks or retains of the renderer's arrays.
    private static func paintDots(
        _ colors: [DotColors], _ drawn: inout [UInt32], _ engine: inout ColorEngine,
        _ sharedDirty: inout [Bool], _ order: inout [Int32],
        runs: [Run], runStart: [Int], weights: [UInt32],
        sharedByDot: [[Int32]], blend: DotKernel, prefetch: Bool, base: UnsafeMutableRawPointer,
        stride: Int, clip: KernelClip
    ) -> (dots: Int, pixels: Int, anyShared: Bool) {
        var pixels = 0, anyShared = false
        // The dots to repaint, first, so that the lines of each can be asked for
        // (`prefetchDotRuns`) while the dots before it are blended.
        var count = 0
        order.withUnsafeMutableBufferPointer { order in
            drawn.withUnsafeBufferPointer { drawn in
                for i in colors.indices where drawn[i] != colors[i].packed {
                    order[count] = Int32(i)
                    count += 1
                }
            }
        }
        let ahead = prefetch ? prefetchDistance : 0
        weights.withUnsafeBufferPointer { w in
            runs.withUnsafeBufferPointer { r in
                drawn.withUnsafeMutableBufferPointer { drawn in
                    sharedDirty.withUnsafeMutableBufferPointer { dirty in
                        order.withUnsafeBufferPointer { order in
                            func prefetchDot(_ k: Int) {
                                let j = Int(order[k])
                                prefetchDotRuns(
                                    UnsafeBufferPointer(rebasing: r[runStart[j]..<runStart[j + 1]]),
                                    w.baseAddress!, base, stride, clip)
                            }
                            for k in 0..<min(ahead, count) { prefetchDot(k) }
                            for k in 0..<count {
                                if ahead > 0 && k + ahead < count { prefetchDot(k + ahead) }
                                let i = Int(order[k])
                                let pair = colors[i]
                                drawn[i] = pair.packed
                                let start = engine.word(pair.start)
                                let end = engine.word(pair.end)
                                let dotRuns = UnsafeBufferPointer(rebasing: r[runStart[i]..<runStart[i + 1]])
                                pixels += blend(dotRuns, w.baseAddress!, start, end, base, stride, clip)
                                for p in sharedByDot[i] {
                                    dirty[Int(p)] = true
                                    anyShared = true
                                }
                            }
                        }
                    }
                }
            }
        }
        return (count, pixels, anyShared)
    }

    /// The visible part of the card in a target, in card pixels.
    struct Clip {
        var x0: Int, y0: Int, x1: Int, y1: Int
        var dx: Int, dy: Int
        var width: Int, height: Int
        /// The whole card is visible: runs need no clipping.
        var whole: Bool { x0 == 0 && y0 == 0 && x1 == width && y1 == height }

        init(target: CardTarget, width: Int, height: Int) {
            self.width = width
            self.height = height
            dx = target.originX
            dy = target.originY
            x0 = max(0, -dx)
            y0 = max(0, -dy)
            x1 = min(width, target.pixmap.width - dx)
            y1 = min(height, target.pixmap.height - dy)
        }
    }

    private func drawStatic(_ pixmap: Pixmap, _ clip: Clip) -> Int {
        guard clip.x1 > clip.x0 else { return 0 }
        var written = 0
        let bandRows = labelBand.count / max(pixelWidth, 1)
        labelBand.withUnsafeBufferPointer { band in
            for y in clip.y0..<max(clip.y0, clip.y1) {
                let dst = pixmap.row(y + clip.dy) + clip.x0 + clip.dx
                if y >= labelBandTop && y < labelBandTop + bandRows {
                    dst.update(
                        from: band.baseAddress! + (y - labelBandTop) * pixelWidth + clip.x0, count: clip.x1 - clip.x0)
                } else {
                    dst.update(repeating: 0, count: clip.x1 - clip.x0)
                }
                written += clip.x1 - clip.x0
            }
        }
        return written
    }

    /// Full compositing for the pixels that more than one dot, or a label, touches.
    private func paintShared(_ pixmap: Pixmap, _ clip: Clip) -> Int {
        var written = 0
        for p in sharedPixels.indices where sharedDirty[p] {
            sharedDirty[p] = false
            let sp = sharedPixels[p]
            let x = Int(sp.x), y = Int(sp.y)
            guard x >= clip.x0, x < clip.x1, y >= clip.y0, y < clip.y1 else { continue }
            var r = 0.0, g = 0.0, b = 0.0
            for c in contributions[Int(sp.contributionStart)..<Int(sp.contributionEnd)] {
                let pair = colors[Int(c.dot)]
                let s = RGB8(xrgb: engine.word(pair.start)), e = RGB8(xrgb: engine.word(pair.end))
                let t = Double(c.t), cov = Double(c.circle), keep = 1 - Double(c.arrow)
                func mix(_ a: UInt8, _ z: UInt8) -> Double { Double(a) * (1 - t) + Double(z) * t }
                r = (r * (1 - cov) + mix(s.r, e.r) * cov) * keep
                g = (g * (1 - cov) + mix(s.g, e.g) * cov) * keep
                b = (b * (1 - cov) + mix(s.b, e.b) * cov) * keep
            }
            let l = Double(sp.label), k = Double(sp.card)
            func channel(_ v: Double) -> UInt32 { UInt32(min(max((v * (1 - l) + 255 * l) * k, 0), 255).rounded()) }
            pixmap[x + clip.dx, y + clip.dy] = channel(r) << 16 | channel(g) << 8 | channel(b)
            written += 1
        }
        return written
    }
}
