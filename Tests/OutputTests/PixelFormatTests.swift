import Glibc
import LinuxSystem
import Testing

@testable import Output

/// Conversions from the renderer's XRGB8888 words, with the expected bytes worked out by
/// hand from the channel layouts (not from the converter's tables).
struct PixelFormatTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var format: PixelFormat
        var xrgb: UInt32
        var bytes: [UInt8]
        var description: String { "\(name) 0x\(String(xrgb, radix: 16))" }
    }

    static let argb8888 = PixelFormat(
        bitsPerPixel: 32, red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8),
        blue: .init(offset: 0, length: 8), transparent: .init(offset: 24, length: 8))

    static let vectors: [Vector] = [
        // R = 0xFF, G = 0x80, B = 0x40.
        Vector(name: "XRGB8888", format: .xrgb8888, xrgb: 0x00FF_8040, bytes: [0x40, 0x80, 0xFF, 0x00]),
        Vector(name: "XBGR8888", format: .xbgr8888, xrgb: 0x00FF_8040, bytes: [0xFF, 0x80, 0x40, 0x00]),
        Vector(name: "ARGB8888", format: argb8888, xrgb: 0x00FF_8040, bytes: [0x40, 0x80, 0xFF, 0xFF]),
        Vector(name: "RGB888", format: .rgb888, xrgb: 0x00FF_8040, bytes: [0x40, 0x80, 0xFF]),
        Vector(name: "BGR888", format: .bgr888, xrgb: 0x00FF_8040, bytes: [0xFF, 0x80, 0x40]),
        // RGB565: 11111 100000 01000 = 0xFC08.
        Vector(name: "RGB565", format: .rgb565, xrgb: 0x00FF_8040, bytes: [0x08, 0xFC]),
        // BGR565: 01000 100000 11111 = 0x441F.
        Vector(name: "BGR565", format: .bgr565, xrgb: 0x00FF_8040, bytes: [0x1F, 0x44]),
        // R = 0x12 -> 2, G = 0x34 -> 13, B = 0x56 -> 10: 00010 001101 01010 = 0x11AA.
        Vector(name: "RGB565", format: .rgb565, xrgb: 0x0012_3456, bytes: [0xAA, 0x11]),
        Vector(name: "BGR565", format: .bgr565, xrgb: 0x0012_3456, bytes: [0xA2, 0x51]),
        Vector(name: "RGB888", format: .rgb888, xrgb: 0x0012_3456, bytes: [0x56, 0x34, 0x12]),
        // The X byte of the source is ignored.
        Vector(name: "XRGB8888", format: .xrgb8888, xrgb: 0x0012_3456, bytes: [0x56, 0x34, 0x12, 0x00]),
        Vector(name: "RGB565 white", format: .rgb565, xrgb: 0x00FF_FFFF, bytes: [0xFF, 0xFF]),
        Vector(name: "RGB565 black", format: .rgb565, xrgb: 0x0000_0000, bytes: [0x00, 0x00]),
    ]

    @Test(arguments: vectors)
    func onePixel(_ v: Vector) {
        let converter = PixelConverter(v.format)
        var out = [UInt8](repeating: 0xEE, count: v.bytes.count + 2)
        var src = [v.xrgb]
        out.withUnsafeMutableBytes { dst in
            src.withUnsafeMutableBufferPointer { converter.convert($0.baseAddress!, count: 1, to: dst.baseAddress!) }
        }
        #expect(Array(out.prefix(v.bytes.count)) == v.bytes)
        #expect(out.suffix(2) == [0xEE, 0xEE], "wrote past the pixel")
    }

    /// A run written at an odd address lands byte for byte where the per-pixel vectors say.
    @Test(arguments: [PixelFormat.rgb565, .bgr565, .rgb888, .bgr888, .xrgb8888, .xbgr8888])
    func runAtUnalignedAddress(_ format: PixelFormat) {
        let colors: [UInt32] = [0x00FF_8040, 0x0012_3456, 0x00FF_FFFF, 0, 0x0001_0203]
        let bpp = format.bytesPerPixel
        var out = [UInt8](repeating: 0xEE, count: colors.count * bpp + 2)
        var src = colors
        out.withUnsafeMutableBytes { dst in
            src.withUnsafeMutableBufferPointer {
                PixelConverter(format).convert($0.baseAddress!, count: colors.count, to: dst.baseAddress! + 1)
            }
        }
        #expect(out.first == 0xEE && out.last == 0xEE)
        for (i, c) in colors.enumerated() {
            let v = format.value(of: c)
            let want = (0..<bpp).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
            #expect(Array(out[1 + i * bpp..<1 + (i + 1) * bpp]) == want, "pixel \(i)")
        }
    }

    @Test func valuesFollowTheChannelLayout() {
        #expect(PixelFormat.rgb565.value(of: 0x00FF_0000) == 0xF800)
        #expect(PixelFormat.rgb565.value(of: 0x0000_FF00) == 0x07E0)
        #expect(PixelFormat.rgb565.value(of: 0x0000_00FF) == 0x001F)
        #expect(PixelFormat.bgr565.value(of: 0x00FF_0000) == 0x001F)
        // 10-bit channels scale with rounding: 0xFF -> 0x3FF.
        let x2r10 = PixelFormat(
            bitsPerPixel: 32, red: .init(offset: 20, length: 10), green: .init(offset: 10, length: 10),
            blue: .init(offset: 0, length: 10))
        #expect(x2r10.value(of: 0x00FF_0080) == (0x3FF << 20) | 0x202)
        #expect(PixelFormat.xrgb8888.isXRGB8888 && !Self.argb8888.isXRGB8888 && !PixelFormat.xbgr8888.isXRGB8888)
    }

    @Test func unsupportedFormatsAreNamed() {
        #expect(
            PixelFormat(
                bitsPerPixel: 8, red: .init(offset: 0, length: 3), green: .init(offset: 3, length: 3),
                blue: .init(offset: 6, length: 2)
            ).unsupportedReason?.contains("8 bits per pixel") == true)
        #expect(
            PixelFormat(
                bitsPerPixel: 16, red: .init(offset: 12, length: 8), green: .init(offset: 5, length: 6),
                blue: .init(offset: 0, length: 5)
            ).unsupportedReason?.contains("red") == true)
        #expect(PixelFormat.rgb565.unsupportedReason == nil && PixelFormat.rgb888.unsupportedReason == nil)
    }

    @Test func conventionalFormatsForSysfs() {
        #expect(PixelFormat.conventional(bitsPerPixel: 32) == .xrgb8888)
        #expect(PixelFormat.conventional(bitsPerPixel: 24) == .rgb888)
        #expect(PixelFormat.conventional(bitsPerPixel: 16) == .rgb565)
        #expect(PixelFormat.conventional(bitsPerPixel: 8) == nil)
    }
}

struct FramebufferGeometryTests {
    @Test func sysfsAttributes() throws {
        let g = try FramebufferGeometry.fromSysfs(virtualSize: "800,600\n", bitsPerPixel: "16\n", stride: "1700\n")
        #expect(g.width == 800 && g.height == 600 && g.stride == 1700 && g.format == .rgb565)
        #expect(g.mappedLength == 1700 * 600)
        #expect(g.offset(x: 3, y: 2) == 2 * 1700 + 6)
    }

    @Test func sysfsModesAndPan() throws {
        let g = try FramebufferGeometry.fromSysfs(
            virtualSize: "1366,1536", bitsPerPixel: "32", stride: "5464",
            modes: "U:1366x768p-0\n", pan: "0,768\n")
        #expect(g.width == 1366 && g.height == 768 && g.panY == 768)
        #expect(g.offset(x: 0, y: 0) == 768 * 5464)
        #expect(g.mappedLength == 5464 * 1536)
    }

    @Test(arguments: [("virtual_size", "800"), ("bits_per_pixel", "12"), ("stride", "100")])
    func badSysfsValuesNameTheAttribute(_ bad: (String, String)) {
        var a = ["virtual_size": "800,600", "bits_per_pixel": "32", "stride": "3200"]
        a[bad.0] = bad.1
        #expect {
            try FramebufferGeometry.fromSysfs(
                virtualSize: a["virtual_size"]!, bitsPerPixel: a["bits_per_pixel"]!, stride: a["stride"]!)
        } throws: { e in
            (e as? SinkError)?.message.contains("\(bad.0) = \"\(bad.1)\"") == true
        }
    }

    @Test func placementCentersAndClips() {
        let c = CardPlacement(cardWidth: 700, cardHeight: 467, screenWidth: 1920, screenHeight: 1080, position: nil)
        #expect(c.originX == 610 && c.originY == 306 && c.x0 == 0 && c.x1 == 700 && c.y0 == 0 && c.y1 == 467)
        let left = CardPlacement(
            cardWidth: 700, cardHeight: 467, screenWidth: 1920, screenHeight: 1080, position: (-100, 1000))
        #expect(left.x0 == 100 && left.x1 == 700 && left.y0 == 0 && left.y1 == 80)
        let off = CardPlacement(
            cardWidth: 700, cardHeight: 467, screenWidth: 640, screenHeight: 480, position: (640, 0))
        #expect(off.isEmpty)
        let small = CardPlacement(cardWidth: 700, cardHeight: 467, screenWidth: 640, screenHeight: 480, position: nil)
        #expect(small.originX == -30 && small.x0 == 30 && small.x1 == 670 && small.y1 == 467)
    }
}
