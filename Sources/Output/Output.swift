import PNG
// Output: frame sinks and pixel-format conversion (framebuffer, shm, raw, png, null).
//
// Purpose: take the renderer's XRGB8888 pixels to where people and programs see them.
// Formats are converted here, at the sink, never in the card renderer.
// Must not import: Runtime, Commands.
import Raster

/// Converts premultiplied XRGB8888 card pixels and the card's coverage (alpha) into
/// straight RGBA for PNG: pixels outside the rounded corners are transparent, as
/// docs/CARD.md asks of the PNG writer.
package enum CardImage {
    package static func rgba(_ pixmap: Pixmap, coverage: [UInt8]) -> RGBAImage {
        precondition(coverage.count == pixmap.width * pixmap.height, "coverage must match the pixmap")
        let width = pixmap.width, count = pixmap.width * pixmap.height
        let out = [UInt8](unsafeUninitializedCapacity: count * 4) { dst, initialized in
            // One 32-bit store a pixel: bytes R, G, B, A are the little-endian word
            // A << 24 | B << 16 | G << 8 | R. Array storage is aligned for the words.
            let words = UnsafeMutableRawPointer(dst.baseAddress!).bindMemory(to: UInt32.self, capacity: count)
            coverage.withUnsafeBufferPointer { alpha in
                for y in 0..<pixmap.height {
                    let row = pixmap.row(y), base = y * width
                    for x in 0..<width {
                        let word = row[x], a = UInt32(alpha[base + x])
                        // Opaque (all but the corners): the premultiplied channels are the straight ones.
                        let rgb = a == 255 ? word : a == 0 ? 0 : unpremultiplied(word, alpha: a)
                        words[base + x] =
                            (a << 24 | (rgb & 0xFF) << 16 | (rgb & 0xFF00) | (rgb >> 16 & 0xFF)).littleEndian
                    }
                }
            }
            initialized = count * 4
        }
        return RGBAImage(width: width, height: pixmap.height, pixels: out)
    }

    /// Channel / alpha, rounded, each channel of an XRGB word.
    private static func unpremultiplied(_ word: UInt32, alpha a: UInt32) -> UInt32 {
        func straight(_ c: UInt32) -> UInt32 { min(255, (c * 255 + a / 2) / a) }
        return straight(word >> 16 & 0xFF) << 16 | straight(word >> 8 & 0xFF) << 8 | straight(word & 0xFF)
    }
}
