/// A straight (not premultiplied) 8-bit sRGB color.
package struct RGB8: Hashable, Sendable, CustomStringConvertible {
    package var r: UInt8
    package var g: UInt8
    package var b: UInt8
}

extension RGB8 {
    /// From channel values in [0, 1]: `round(v * 255)`, no gamma change (docs/CARD.md).
    package init(unit r: Double, _ g: Double, _ b: Double) {
        func channel(_ v: Double) -> UInt8 { UInt8(clip01(v) * 255 + 0.5) }
        self.init(r: channel(r), g: channel(g), b: channel(b))
    }

    /// The color as an XRGB8888 word: 0x00RRGGBB (bytes B, G, R, X in little-endian memory).
    @inlinable
    package var xrgb: UInt32 { UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }

    package init(xrgb: UInt32) {
        self.init(
            r: UInt8(truncatingIfNeeded: xrgb >> 16), g: UInt8(truncatingIfNeeded: xrgb >> 8),
            b: UInt8(truncatingIfNeeded: xrgb))
    }

    /// From "#RRGGBB" (six hexadecimal digits after "#", either case); nil for anything else.
    package init?(hex text: String) {
        let digits = text.utf8.dropFirst()
        guard text.utf8.first == UInt8(ascii: "#"), digits.count == 6,
            digits.allSatisfy({
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20)
            }),
            let word = UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
        else { return nil }
        self.init(xrgb: word)
    }

    /// "#rrggbb".
    package var hex: String {
        let digits = String(xrgb, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }

    package var description: String { "rgb(\(r), \(g), \(b))" }
}
