// Output: frame sinks and pixel-format conversion (framebuffer, shm, raw, png, null).
//
// Purpose: take the renderer's XRGB8888 pixels to where people and programs see them.
// Formats are converted here, at the sink, never in the card renderer.
// Must not import: Runtime, Commands.
import Raster
import PNG

/// Converts premultiplied XRGB8888 card pixels and the card's coverage (alpha) into
/// straight RGBA for PNG: pixels outside the rounded corners are transparent, as
/// scene.md asks of the PNG writer.
package enum CardImage {
    package static func rgba(_ pixmap: Pixmap, coverage: [UInt8]) -> RGBAImage {
        precondition(coverage.count == pixmap.width * pixmap.height, "coverage must match the pixmap")
        var out = [UInt8](repeating: 0, count: pixmap.width * pixmap.height * 4)
        for y in 0..<pixmap.height {
            let row = pixmap.row(y)
            for x in 0..<pixmap.width {
                let i = y * pixmap.width + x
                let a = UInt32(coverage[i])
                guard a > 0 else { continue }
                let word = row[x]
                // Unpremultiply: channel / alpha, rounded.
                func straight(_ c: UInt32) -> UInt8 { UInt8(min(255, (c * 255 + a / 2) / a)) }
                out[i * 4] = straight(word >> 16 & 0xFF)
                out[i * 4 + 1] = straight(word >> 8 & 0xFF)
                out[i * 4 + 2] = straight(word & 0xFF)
                out[i * 4 + 3] = UInt8(a)
            }
        }
        return RGBAImage(width: pixmap.width, height: pixmap.height, pixels: out)
    }
}
