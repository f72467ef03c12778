import LinuxSystem

/// A framebuffer's pixel format: bits per pixel and where each channel sits in the pixel
/// value (fbdev's `fb_bitfield`s). The renderer always produces XRGB8888 words
/// (0x00RRGGBB); `convert` turns a run of them into this format.
///
/// - Channels narrower than 8 bits keep the high bits (truncation, as fbdev consoles do:
///   RGB565 red = r >> 3). Wider channels (10-bit) scale with rounding.
/// - A transparency channel, when the driver reports one, is set fully opaque.
/// - Pixel values are stored little-endian, `bitsPerPixel / 8` bytes each: fbdev pixel
///   values are in the CPU's byte order, and shimmerd runs on little-endian machines.
package struct PixelFormat: Sendable, Equatable, CustomStringConvertible {
    package var bitsPerPixel: Int
    package var red: FramebufferChannel
    package var green: FramebufferChannel
    package var blue: FramebufferChannel
    package var transparent: FramebufferChannel

    package init(
        bitsPerPixel: Int, red: FramebufferChannel, green: FramebufferChannel, blue: FramebufferChannel,
        transparent: FramebufferChannel = FramebufferChannel(offset: 0, length: 0)
    ) {
        self.bitsPerPixel = bitsPerPixel
        self.red = red
        self.green = green
        self.blue = blue
        self.transparent = transparent
    }

    private static func ch(_ o: Int, _ l: Int) -> FramebufferChannel { FramebufferChannel(offset: o, length: l) }

    /// 0x00RRGGBB in a 32-bit word: bytes B, G, R, X in memory (DRM XRGB8888).
    package static let xrgb8888 = PixelFormat(bitsPerPixel: 32, red: ch(16, 8), green: ch(8, 8), blue: ch(0, 8))
    /// 0x00BBGGRR: bytes R, G, B, X in memory (DRM XBGR8888).
    package static let xbgr8888 = PixelFormat(bitsPerPixel: 32, red: ch(0, 8), green: ch(8, 8), blue: ch(16, 8))
    /// Bytes B, G, R in memory (DRM RGB888).
    package static let rgb888 = PixelFormat(bitsPerPixel: 24, red: ch(16, 8), green: ch(8, 8), blue: ch(0, 8))
    /// Bytes R, G, B in memory (DRM BGR888).
    package static let bgr888 = PixelFormat(bitsPerPixel: 24, red: ch(0, 8), green: ch(8, 8), blue: ch(16, 8))
    /// RRRRRGGG GGGBBBBB.
    package static let rgb565 = PixelFormat(bitsPerPixel: 16, red: ch(11, 5), green: ch(5, 6), blue: ch(0, 5))
    /// BBBBBGGG GGGRRRRR.
    package static let bgr565 = PixelFormat(bitsPerPixel: 16, red: ch(0, 5), green: ch(5, 6), blue: ch(11, 5))

    /// The usual layout for a depth when only bits_per_pixel is known (sysfs has no
    /// channel offsets): XRGB8888, RGB888 (B, G, R bytes) or RGB565.
    package static func conventional(bitsPerPixel: Int) -> PixelFormat? {
        switch bitsPerPixel {
        case 32: .xrgb8888
        case 24: .rgb888
        case 16: .rgb565
        default: nil
        }
    }

    /// Checks what this sink can write: 16, 24 or 32 bpp, channels inside the pixel,
    /// 1...16 bits each. Returns why not, or nil.
    package var unsupportedReason: String? {
        guard [16, 24, 32].contains(bitsPerPixel) else {
            return "\(bitsPerPixel) bits per pixel (16, 24 or 32 supported)"
        }
        for (name, c) in [("red", red), ("green", green), ("blue", blue)] {
            guard c.length >= 1, c.length <= 16, c.offset >= 0, c.offset + c.length <= bitsPerPixel else {
                return "\(name) channel at bit \(c.offset), \(c.length) bits, does not fit a \(bitsPerPixel)-bit pixel"
            }
        }
        if transparent.length > 0 && transparent.offset + transparent.length > bitsPerPixel {
            return "transparency channel outside the pixel"
        }
        return nil
    }

    package var bytesPerPixel: Int { bitsPerPixel / 8 }

    /// True when pixels can be copied as they are (XRGB8888 with no alpha to set).
    package var isXRGB8888: Bool {
        bitsPerPixel == 32 && red == Self.xrgb8888.red && green == Self.xrgb8888.green && blue == Self.xrgb8888.blue
            && transparent.length == 0
    }

    package var description: String {
        func c(_ x: FramebufferChannel) -> String { "\(x.length)@\(x.offset)" }
        return "\(bitsPerPixel) bpp, red \(c(red)), green \(c(green)), blue \(c(blue))"
            + (transparent.length > 0 ? ", alpha \(c(transparent))" : "")
    }

    /// The pixel value of one XRGB8888 word.
    package func value(of xrgb: UInt32) -> UInt32 {
        func place(_ v: UInt32, _ c: FramebufferChannel) -> UInt32 {
            let bits: UInt32 =
                c.length >= 8
                ? (v * ((1 << UInt32(c.length)) - 1) + 127) / 255
                : v >> UInt32(8 - c.length)
            return bits << UInt32(c.offset)
        }
        return place(xrgb >> 16 & 0xFF, red) | place(xrgb >> 8 & 0xFF, green) | place(xrgb & 0xFF, blue) | alphaMask
    }

    var alphaMask: UInt32 {
        transparent.length == 0
            ? 0 : UInt32(truncatingIfNeeded: ((1 << UInt64(transparent.length)) - 1) << UInt64(transparent.offset))
    }
}

/// Converts runs of XRGB8888 words into a `PixelFormat`, with a 256-entry table per
/// channel so a pixel costs three loads and two ORs whatever the layout.
package struct PixelConverter: Sendable {
    package let format: PixelFormat
    private let redTable: [UInt32]
    private let greenTable: [UInt32]
    private let blueTable: [UInt32]
    private let alpha: UInt32

    package init(_ format: PixelFormat) {
        self.format = format
        redTable = (0..<256).map { format.value(of: UInt32($0) << 16) & ~format.alphaMask }
        greenTable = (0..<256).map { format.value(of: UInt32($0) << 8) & ~format.alphaMask }
        blueTable = (0..<256).map { format.value(of: UInt32($0)) & ~format.alphaMask }
        alpha = format.alphaMask
    }

    /// Writes `count` pixels from `source` to `destination` (`bytesPerPixel` each, no
    /// alignment needed).
    package func convert(_ source: UnsafePointer<UInt32>, count: Int, to destination: UnsafeMutableRawPointer) {
        if format.isXRGB8888 {
            destination.copyMemory(from: source, byteCount: count * 4)
            return
        }
        redTable.withUnsafeBufferPointer { r in
            greenTable.withUnsafeBufferPointer { g in
                blueTable.withUnsafeBufferPointer { b in
                    let d = destination.assumingMemoryBound(to: UInt8.self)
                    switch format.bytesPerPixel {
                    case 4:
                        for i in 0..<count {
                            let w = source[i]
                            let v = r[Int(w >> 16 & 0xFF)] | g[Int(w >> 8 & 0xFF)] | b[Int(w & 0xFF)] | alpha
                            (destination + i * 4).storeBytes(of: v.littleEndian, as: UInt32.self)
                        }
                    case 3:
                        for i in 0..<count {
                            let w = source[i]
                            let v = r[Int(w >> 16 & 0xFF)] | g[Int(w >> 8 & 0xFF)] | b[Int(w & 0xFF)] | alpha
                            d[i * 3] = UInt8(truncatingIfNeeded: v)
                            d[i * 3 + 1] = UInt8(truncatingIfNeeded: v >> 8)
                            d[i * 3 + 2] = UInt8(truncatingIfNeeded: v >> 16)
                        }
                    default:
                        for i in 0..<count {
                            let w = source[i]
                            let v = r[Int(w >> 16 & 0xFF)] | g[Int(w >> 8 & 0xFF)] | b[Int(w & 0xFF)] | alpha
                            (destination + i * 2).storeBytes(
                                of: UInt16(truncatingIfNeeded: v).littleEndian, as: UInt16.self)
                        }
                    }
                }
            }
        }
    }
}
