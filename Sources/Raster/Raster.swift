// Raster: pixels, coverage and the few compositing rules the card needs.
//
// Purpose: the vocabulary between the card renderer and the sinks: a `Pixmap` is a view
// of XRGB8888 pixels in memory the renderer may not own (an mmap'd framebuffer, a
// shared-memory buffer, a heap buffer), with any stride; an `AlphaMask` is 8-bit
// coverage placed at a pixel position; `TextRasterizer` is what the card asks of a font
// engine (the Fonts module implements it through FreeType; an adapter in Runtime joins them).
// Invariants: pixels are XRGB8888 words 0x00RRGGBB, premultiplied over black (the card
// is opaque black, so premultiplied and straight agree inside it); the X byte is written 0.
// Must not import: Foundation or any C library but libm (through Glibc). Pure Swift.

/// Coverage of a pixel by an anti-aliased edge at signed distance `d` pixels from the
/// pixel center (positive inside): a one-pixel linear ramp, the usual analytic
/// approximation of box-filtered coverage.
@inlinable
package func edgeCoverage(signedDistance d: Double) -> Double {
    min(max(d + 0.5, 0), 1)
}

/// Coverage of the pixel whose center is (`px`, `py`) by a rounded rectangle
/// [0, width] x [0, height] with corner radius `radius` (all in pixels).
package func roundedRectCoverage(px: Double, py: Double, width: Double, height: Double, radius: Double) -> Double {
    let r = min(radius, width / 2, height / 2)
    // Distance to the nearest straight edge, positive inside.
    let edge = min(px, py, width - px, height - py)
    let cx = min(max(px, r), width - r)
    let cy = min(max(py, r), height - r)
    if cx == px || cy == py {
        return edgeCoverage(signedDistance: edge)
    }
    // In a corner square: distance to the corner arc.
    let dx = px - cx, dy = py - cy
    return min(
        edgeCoverage(signedDistance: r - (dx * dx + dy * dy).squareRoot()),
        edgeCoverage(signedDistance: edge))
}
