// PNG: the typed wrapper of libpng, through its simplified `png_image_*` API so no
// setjmp/longjmp reaches Swift.
//
// Purpose: encode 8-bit RGBA images to PNG bytes and decode PNG bytes or files back.
// Writing files is not done here: callers write the bytes atomically (LinuxSystem), so
// a failed write never leaves an empty or half PNG behind.
// Must not import: any other shimmerd module (layer 1a).
import CPNG

/// 8-bit straight (not premultiplied) RGBA, rows packed, top to bottom.
package struct RGBAImage: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "RGBAImage: pixel count mismatch")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// A libpng failure with libpng's own message.
package struct PNGError: Error, CustomStringConvertible {
    package var operation: String
    package var message: String
    package var description: String { "\(operation): \(message)" }
}

package enum PNGCodec {
    /// PNG_FORMAT_RGBA = PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA (png.h; the
    /// composite macro is not imported into Swift).
    static let formatRGBA: png_uint_32 = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    private static func newImage(width: Int = 0, height: Int = 0) -> png_image {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = formatRGBA
        return image
    }

    private static func message(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// PNG bytes of `image` (`png_image_write_to_memory`). The image is compressed once,
    /// into a buffer of the size libpng promises never to exceed
    /// (`PNG_IMAGE_PNG_SIZE_MAX`); asking for the size first would compress it twice.
    package static func encode(_ image: RGBAImage) throws -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw PNGError(
                operation: "png_image_write_to_memory", message: "empty image \(image.width) x \(image.height)")
        }
        var png = newImage(width: image.width, height: image.height)
        // PNG_IMAGE_FLAG_FAST: no row filters, zlib level 3. The card is flat black
        // around smooth dots, which unfiltered rows compress well: a 700 x 467 frame
        // comes out smaller (113 KB against 127 KB) in about a third of the time (8 ms of
        // zlib against 21 ms), which is what a png sink at 30 fps needs.
        png.flags = png_uint_32(PNG_IMAGE_FLAG_FAST)
        let capacity = Int(shim_png_image_size_max(png))
        let stride = png_int_32(image.width * 4)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { scratch.deallocate() }
        var size = png_alloc_size_t(capacity)
        let ok = image.pixels.withUnsafeBytes { px in
            png_image_write_to_memory(&png, scratch.baseAddress, &size, 0, px.baseAddress, stride, nil)
        }
        guard ok != 0 else {
            defer { png_image_free(&png) }
            throw PNGError(operation: "png_image_write_to_memory", message: message(&png))
        }
        // Copied out at its own size: the bound is about the size of the raw pixels.
        return [UInt8](UnsafeRawBufferPointer(rebasing: scratch[..<Int(size)]))
    }

    /// Decodes PNG bytes to RGBA (`png_image_begin_read_from_memory`, `png_image_finish_read`).
    package static func decode(_ bytes: [UInt8]) throws -> RGBAImage {
        try read("png_image_begin_read_from_memory") { png in
            bytes.withUnsafeBytes { raw in png_image_begin_read_from_memory(&png, raw.baseAddress, raw.count) }
        }
    }

    /// Decodes a PNG file (`png_image_begin_read_from_file`).
    package static func read(path: String) throws -> RGBAImage {
        try read("read \(path)") { png in png_image_begin_read_from_file(&png, path) }
    }

    /// The simplified API's two steps: `begin` reads the header, then
    /// `png_image_finish_read` decodes into 8-bit RGBA.
    private static func read(_ operation: String, begin: (inout png_image) -> Int32) throws -> RGBAImage {
        var png = newImage()
        guard begin(&png) != 0 else {
            defer { png_image_free(&png) }
            throw PNGError(operation: operation, message: message(&png))
        }
        png.format = formatRGBA
        let width = Int(png.width), height = Int(png.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBytes { dst in
            png_image_finish_read(&png, nil, dst.baseAddress, png_int_32(width * 4), nil)
        }
        guard finished != 0 else {
            defer { png_image_free(&png) }
            throw PNGError(operation: operation, message: message(&png))
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
