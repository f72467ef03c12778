import Raster
import Testing

/// The one-pixel ramp: no coverage half a pixel outside the edge, full half a pixel inside.
@Test(arguments: [(-1.0, 0.0), (-0.5, 0.0), (-0.25, 0.25), (0.0, 0.5), (0.25, 0.75), (0.5, 1.0), (3.0, 1.0)])
func edgeCoverageIsAOnePixelRamp(_ d: Double, _ coverage: Double) {
    #expect(edgeCoverage(signedDistance: d) == coverage)
}

/// Inside, on a straight edge, outside, and at a corner, whose arc cuts off what a square
/// corner would cover.
@Test func roundedRectCoverageFollowsEdgesAndCorners() {
    let cover = { (x: Double, y: Double) in roundedRectCoverage(px: x, py: y, width: 20, height: 10, radius: 4) }
    #expect(cover(10, 5) == 1)
    #expect(cover(10, 0) == 0.5)  // centered on the top edge
    #expect(cover(10, -1) == 0)
    #expect(cover(0.5, 5) == 1)  // first column, away from the corners
    #expect(cover(0.5, 0.5) == 0)  // a square corner's pixel, outside the arc
    #expect(cover(4, 4) == 1)  // the corner circle's center
    let diagonal = 4 - 4 / 2.0.squareRoot()  // on the arc, along the diagonal
    #expect(abs(cover(diagonal, diagonal) - 0.5) < 1e-12)
}

/// A radius larger than half the short side is clipped to it: the ends become semicircles.
@Test func aRadiusIsClippedToHalfTheShortSide() {
    #expect(
        roundedRectCoverage(px: 5, py: 5, width: 20, height: 10, radius: 50)
            == roundedRectCoverage(px: 5, py: 5, width: 20, height: 10, radius: 5))
}

/// A pixmap with padding between rows: fill and the subscript touch the row's pixels and
/// never the padding; `words` drops the padding.
@Test func pixmapRowsAreStrideApartAndPaddingIsLeftAlone() {
    let buffer = PixelBuffer(width: 3, height: 2, stride: 16)
    let p = buffer.pixmap
    p.fill(0x00AB_CDEF)
    p[2, 1] = 0x0012_3456
    #expect(buffer.words == [0xABCDEF, 0xABCDEF, 0xABCDEF, 0xABCDEF, 0xABCDEF, 0x123456])
    let padding = (p.base + 12).load(as: UInt32.self)
    #expect(padding == 0)
    #expect(p.row(1) == (p.base + 16).assumingMemoryBound(to: UInt32.self))
}
