import LinuxSystem

/// Where the framebuffer's visible pixels are and how they are stored.
package struct FramebufferGeometry: Sendable, Equatable, CustomStringConvertible {
    /// Visible pixels.
    package var width: Int
    package var height: Int
    /// The visible area's top-left in the virtual screen (panning), pixels.
    package var panX: Int
    package var panY: Int
    /// Bytes from one row to the next (line_length). Always used; never width * bpp.
    package var stride: Int
    package var format: PixelFormat
    /// Bytes to map from offset 0.
    package var mappedLength: Int
    /// "ioctl" or "sysfs", for the log line.
    package var source: String

    package init(
        width: Int, height: Int, panX: Int = 0, panY: Int = 0, stride: Int, format: PixelFormat,
        mappedLength: Int, source: String
    ) {
        self.width = width
        self.height = height
        self.panX = panX
        self.panY = panY
        self.stride = stride
        self.format = format
        self.mappedLength = mappedLength
        self.source = source
    }

    package var description: String {
        "\(width) x \(height), stride \(stride) bytes, \(format) (from \(source))"
    }

    /// From FBIOGET_VSCREENINFO / FBIOGET_FSCREENINFO.
    package init(_ info: FramebufferScreenInfo) {
        let format = PixelFormat(
            bitsPerPixel: info.bitsPerPixel, red: info.red, green: info.green, blue: info.blue,
            transparent: info.transparent)
        let needed = info.lineLength * max(info.virtualHeight, info.height)
        self.init(
            width: info.width, height: info.height, panX: info.panX, panY: info.panY, stride: info.lineLength,
            format: format, mappedLength: info.memoryLength > 0 ? info.memoryLength : needed, source: "ioctl")
    }

    /// From the text of /sys/class/graphics/fbN/{virtual_size, bits_per_pixel, stride}
    /// ("1920,1080", "32", "7680"); `modes` ("U:1366x768p-0", first line) gives the
    /// visible size when present, `pan` ("0,0") the panning. Sysfs has no channel offsets:
    /// the format is the conventional one for the depth (`PixelFormat.conventional`).
    /// Throws a message naming the attribute and its value.
    package static func fromSysfs(
        virtualSize: String, bitsPerPixel: String, stride: String,
        modes: String? = nil, pan: String? = nil
    ) throws(SinkError) -> FramebufferGeometry {
        func fail(_ what: String, _ value: String) -> SinkError {
            SinkError(sink: "framebuffer", "sysfs \(what) = \"\(value.trimmed)\" is not usable")
        }
        func pair(_ text: String, separator: Character) -> (Int, Int)? {
            let parts = text.trimmed.split(separator: separator)
            guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, b >= 0 else { return nil }
            return (a, b)
        }
        guard let (vw, vh) = pair(virtualSize, separator: ","), vw > 0, vh > 0 else {
            throw fail("virtual_size", virtualSize)
        }
        guard let bpp = Int(bitsPerPixel.trimmed), let format = PixelFormat.conventional(bitsPerPixel: bpp) else {
            throw fail("bits_per_pixel", bitsPerPixel)
        }
        guard let rowBytes = Int(stride.trimmed), rowBytes >= vw * bpp / 8 else { throw fail("stride", stride) }
        var width = vw, height = vh
        if let modes, let first = modes.split(separator: "\n").first, let colon = first.firstIndex(of: ":") {
            // "U:1366x768p-0": mode type, then WxH, then scan type and refresh.
            let size = first[first.index(after: colon)...].prefix { $0.isNumber || $0 == "x" }
            if let (w, h) = pair(String(size), separator: "x"), w > 0, h > 0, w <= vw, h <= vh {
                width = w
                height = h
            }
        }
        var panX = 0, panY = 0
        if let pan, let (x, y) = pair(pan, separator: ","), x + width <= vw, y + height <= vh {
            panX = x
            panY = y
        }
        return FramebufferGeometry(
            width: width, height: height, panX: panX, panY: panY, stride: rowBytes, format: format,
            mappedLength: rowBytes * vh, source: "sysfs")
    }

    /// Byte offset of visible pixel (x, y).
    package func offset(x: Int, y: Int) -> Int {
        (panY + y) * stride + (panX + x) * format.bytesPerPixel
    }
}

/// The card's rectangle on the screen, clipped to the visible area.
package struct CardPlacement: Sendable, Equatable {
    /// Screen pixel of the card's top-left (may be negative or past the edge).
    package var originX: Int
    package var originY: Int
    /// The visible part, in card pixels: columns x0..<x1, rows y0..<y1 (empty when the
    /// card is entirely off screen).
    package var x0: Int, x1: Int, y0: Int, y1: Int

    /// `position` nil centers the card (rounding down).
    package init(cardWidth: Int, cardHeight: Int, screenWidth: Int, screenHeight: Int, position: (x: Int, y: Int)?) {
        originX = position?.x ?? (screenWidth - cardWidth) / 2
        originY = position?.y ?? (screenHeight - cardHeight) / 2
        x0 = max(0, -originX)
        y0 = max(0, -originY)
        x1 = max(x0, min(cardWidth, screenWidth - originX))
        y1 = max(y0, min(cardHeight, screenHeight - originY))
    }

    package var isEmpty: Bool { x0 >= x1 || y0 >= y1 }
}

extension String {
    var trimmed: String {
        String(
            self.drop { $0 == " " || $0 == "\n" || $0 == "\0" }.reversed().drop {
                $0 == " " || $0 == "\n" || $0 == "\0"
            }.reversed())
    }
}
