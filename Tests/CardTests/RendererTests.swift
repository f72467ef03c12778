import Color
import Foundation
import LinuxSystem
import Output
import PNG
import Raster
import Runtime
import Testing

@testable import Card

/// The default card at scale 2, built with the real fonts (fontconfig + FreeType).
func defaultRenderer(scale: Double = 2) throws -> CardRenderer {
    var settings = CardSettings()
    settings.scale = scale
    return try CardFactory.renderer(settings)
}

func render(_ renderer: CardRenderer, _ focals: [(Double, Double)]) -> PixelBuffer {
    let buffer = PixelBuffer(width: renderer.pixelWidth, height: renderer.pixelHeight)
    var target = CardTarget(pixmap: buffer.pixmap)
    for (x, y) in focals { renderer.render(focalX: x, focalY: y, into: &target) }
    return buffer
}

@Test func pixelSizeIsRoundedPointsTimesScale() throws {
    let r = try defaultRenderer()
    #expect(r.pixelWidth == 700 && r.pixelHeight == 467)
    #expect(r.dotCount == 175)
}

@Test func incrementalEqualsFromScratch() throws {
    let renderer = try defaultRenderer()
    let moves: [[(Double, Double)]] = [
        [(175, 233.333), (60, 60)],
        [(60, 60), (61, 60)],
        [(0, 0), (350, 233), (175, 100)],
        [(900, -400), (175, 233.333)],
    ]
    for path in moves {
        let incremental = render(renderer, path)
        let scratch = render(try defaultRenderer(), [path.last!])
        #expect(incremental.words == scratch.words, "path \(path)")
    }
}

@Test func unchangedFrameWritesNothing() throws {
    let renderer = try defaultRenderer()
    let buffer = PixelBuffer(width: renderer.pixelWidth, height: renderer.pixelHeight)
    var target = CardTarget(pixmap: buffer.pixmap)
    let first = renderer.render(focalX: 100, focalY: 100, into: &target)
    #expect(first.drewStatic && first.dotsRepainted == 175)
    let again = renderer.render(focalX: 100, focalY: 100, into: &target)
    #expect(again.wroteNothing && again.dotsRepainted == 0)
    // A tiny move changes only some dots.
    let nudge = renderer.render(focalX: 100.5, focalY: 100, into: &target)
    #expect(nudge.dotsRepainted > 0 && nudge.dotsRepainted < 175)
    #expect(!nudge.drewStatic)
}

@Test func drawsIntoBorrowedMemoryWithStrideAndOffset() throws {
    let renderer = try defaultRenderer(scale: 1)
    let plain = render(renderer, [(80, 90)])
    // A "framebuffer" wider than the card, padded rows, card placed at (13, 7).
    let fbWidth = 400, fbHeight = 260, stride = 400 * 4 + 64
    let fb = PixelBuffer(width: fbWidth, height: fbHeight, stride: stride)
    fb.pixmap.fill(0xDEAD_BEEF)
    var target = CardTarget(pixmap: fb.pixmap, originX: 13, originY: 7)
    try defaultRenderer(scale: 1).render(focalX: 80, focalY: 90, into: &target)
    let w = renderer.pixelWidth, h = renderer.pixelHeight
    let expected = plain.words
    for y in 0..<fbHeight {
        for x in 0..<fbWidth {
            let inside = x >= 13 && x < 13 + w && y >= 7 && y < 7 + h
            let got = fb.pixmap[x, y]
            if inside {
                #expect(got == expected[(y - 7) * w + (x - 13)])
            } else if got != 0xDEAD_BEEF {
                Issue.record("pixel (\(x), \(y)) outside the card was written")
                return
            }
        }
    }
}

@Test func clipsToATargetSmallerThanTheCard() throws {
    let renderer = try defaultRenderer(scale: 1)
    let plain = render(renderer, [(175, 233.333)])
    let small = PixelBuffer(width: 100, height: 80)
    var target = CardTarget(pixmap: small.pixmap, originX: -200, originY: -120)
    try defaultRenderer(scale: 1).render(focalX: 175, focalY: 233.333, into: &target)
    for y in 0..<80 {
        for x in 0..<100 {
            #expect(small.pixmap[x, y] == plain.words[(y + 120) * renderer.pixelWidth + x + 200])
        }
    }
}

/// Dot pixels fully inside a dot and away from its arrow carry the gradient's colors:
/// at the dot's center the start color exactly (t = 0 there).
@Test(arguments: [(175.0, 233.333), (60.0, 60.0), (300.0, 20.0)])
func dotCentersShowTheStartColorOfTheScene(_ fx: Double, _ fy: Double) throws {
    let renderer = try defaultRenderer()
    let buffer = render(renderer, [(fx, fy)])
    var checked = 0
    for dot in renderer.layout.dots where dot.row == 3 {
        // Sample a pixel on the side away from the gradient (t clamps to 0 there),
        // a third of the radius from the center: inside the circle, off the arrow's stem.
        let r = dot.size * 2 / 2
        let c = cos(dot.rotation), s = sin(dot.rotation)
        // Local (-0.6 r, 0) turned by the rotation: left of the arrow, t < 0.
        let px = dot.centerX * 2 + (-0.6 * r) * c, py = dot.centerY * 2 + (-0.6 * r) * s
        let x = Int(px), y = Int(py)
        guard x >= 0, y >= 0, x < renderer.pixelWidth, y < renderer.pixelHeight - 2 else { continue }
        let d = ((dot.centerX - fx) * (dot.centerX - fx) + (dot.centerY - fy) * (dot.centerY - fy)).squareRoot()
        let expected = DotColors(distance: d).start.hsl.rgb8
        let got = RGB8(xrgb: buffer.pixmap[x, y])
        let err = max(
            abs(Int(got.r) - Int(expected.r)), abs(Int(got.g) - Int(expected.g)), abs(Int(got.b) - Int(expected.b)))
        #expect(err <= 2, "dot row 3 k \(dot.k) at (\(x), \(y)): \(got) vs \(expected)")
        checked += 1
    }
    #expect(checked > 10)
}

/// Prefetching ahead (the daemon's setting) paints exactly what painting without it does:
/// whole, incremental (a focal path that repaints some dots), and on a clipped, strided
/// target whose card hangs over the left and bottom edges.
@Test func prefetchingAheadPaintsTheSameBits() throws {
    let settings = CardSettings()
    let plain = try CardFactory.renderer(settings), ahead = try CardFactory.renderer(settings)
    ahead.prefetchesAhead = true
    #expect(!plain.prefetchesAhead)
    for path in [[(175.0, 233.333)], [(60.0, 60.0), (61.0, 60.0), (75.0, 64.0)], [(0.0, 0.0), (900.0, -400.0)]] {
        #expect(render(plain, path).words == render(ahead, path).words)
    }
    let a = PixelBuffer(width: 500, height: 300, stride: 500 * 4 + 36),
        b = PixelBuffer(width: 500, height: 300, stride: 500 * 4 + 36)
    var ta = CardTarget(pixmap: a.pixmap, originX: -100, originY: 50),
        tb = CardTarget(pixmap: b.pixmap, originX: -100, originY: 50)
    for (x, y) in [(100.0, 80.0), (104.0, 80.0), (300.0, 10.0)] {
        let pa = plain.render(focalX: x, focalY: y, into: &ta), pb = ahead.render(focalX: x, focalY: y, into: &tb)
        #expect(pa.dotsRepainted == pb.dotsRepainted && pa.pixelsWritten == pb.pixelsWritten)
        #expect(a.words == b.words)
    }
}

/// The AVX2 compilation of the inner loop paints exactly what the baseline paints
/// (runs only where the CPU has AVX2; the baseline is what every CPU runs).
@Test(.enabled(if: CPU.hasAVX2, "this CPU has no AVX2, so the AVX2 kernel cannot run here"))
func avx2KernelPaintsTheSameBits() throws {
    let settings = CardSettings()
    let baseline = try CardFactory.renderer(settings, kernel: .baseline)
    let avx2 = try CardFactory.renderer(settings, kernel: .avx2)
    #expect(baseline.kernel == .baseline && avx2.kernel == .avx2)
    for path in [[(175.0, 233.333)], [(60.0, 60.0), (61.0, 60.0)], [(0.0, 0.0), (900.0, -400.0)]] {
        #expect(render(baseline, path).words == render(avx2, path).words)
    }
    // Clipped and strided targets too.
    let a = PixelBuffer(width: 500, height: 300, stride: 500 * 4 + 36),
        b = PixelBuffer(width: 500, height: 300, stride: 500 * 4 + 36)
    var ta = CardTarget(pixmap: a.pixmap, originX: -100, originY: 50),
        tb = CardTarget(pixmap: b.pixmap, originX: -100, originY: 50)
    baseline.render(focalX: 100, focalY: 80, into: &ta)
    avx2.render(focalX: 100, focalY: 80, into: &tb)
    #expect(a.words == b.words)
}
