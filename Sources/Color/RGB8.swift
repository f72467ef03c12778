/// A straight (not premultiplied) 8-bit sRGB color.
package struct RGB8: Hashable, Sendable, CustomStringConvertible {
    package var r: UInt8
    package var g: UInt8
    package var b: UInt8

    package init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// From channel values in [0, 1]: `round(v * 255)`, no gamma change (scene.md).
    package init(unit r: Double, _ g: Double, _ b: Double) {
        func channel(_ v: Double) -> UInt8 { UInt8(clip01(v) * 255 + 0.5) }
        self.init(r: channel(r), g: channel(g), b: channel(b))
    }

    /// The color as an XRGB8888 word: 0x00RRGGBB (bytes B, G, R, X in little-endian memory).
    @inlinable
    package var xrgb: UInt32 { UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }

    package init(xrgb: UInt32) {
        self.init(r: UInt8(truncatingIfNeeded: xrgb >> 16), g: UInt8(truncatingIfNeeded: xrgb >> 8),
                  b: UInt8(truncatingIfNeeded: xrgb))
    }

    package var description: String { "rgb(\(r), \(g), \(b))" }
}
