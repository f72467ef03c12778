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
        let width = pixmap.width
        let out = [UInt8](unsafeUninitializedCapacity: width * pixmap.height * 4) { dst, count in
            coverage.withUnsafeBufferPointer { alpha in
                for y in 0..<pixmap.height {
                    let row = pixmap.row(y)
                    for x in 0..<width {
                        let i = y * width + x
                        let a = UInt32(alpha[i])
                        let word = row[x]
                        var (r, g, b) = (word >> 16 & 0xFF, word >> 8 & 0xFF, word & 0xFF)
                        if a == 0 {
                            (r, g, b) = (0, 0, 0)
                        } else if a < 255 {
                            // Unpremultiply: channel / alpha, rounded.
                            (r, g, b) = (min(255, (r * 255 + a / 2) / a), min(255, (g * 255 + a / 2) / a),
                                         min(255, (b * 255 + a / 2) / a))
                        }
                        dst[i * 4] = UInt8(r)
                        dst[i * 4 + 1] = UInt8(g)
                        dst[i * 4 + 2] = UInt8(b)
                        dst[i * 4 + 3] = UInt8(a)
                    }
                }
            }
            count = width * pixmap.height * 4
        }
        return RGBAImage(width: width, height: pixmap.height, pixels: out)
    }
}
