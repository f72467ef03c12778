import Raster

/// What one output's buffer shows (pure): the fill everywhere, the card in its
/// `BackgroundPlacement`, and the fill again in the card's rounded corners.
///
/// The segment's frames are XRGB8888 with the fourth byte undefined (docs/SHM.md,
/// version 1), black outside the corners, so the corners are composited here from the
/// card's radius (`CardShape`, docs/CARD.md) at the card's size on this output: the
/// frame is premultiplied over black with the rounded rectangle's coverage c, and the
/// fill goes under it, weighted 1 - c (the "over" operator). The coverage is the one the
/// renderer uses (`roundedRectCoverage`, Raster), computed once for the corner squares.
///
/// At equal scales the frame's pixels are copied as they are (pixel-exact but for the
/// corners); otherwise each is resampled with `AxisWeights` (area filter when shrinking,
/// linear when enlarging).
package struct BackgroundComposer {
    package let placement: BackgroundPlacement
    /// 0x00RRGGBB.
    package let fill: UInt32
    /// Side of the corner squares, buffer pixels.
    package let cornerSide: Int
    /// The fill's weight (0 ... 256) at each pixel of the top-left corner square, row-major;
    /// the other corners are its mirror images.
    package let cornerWeights: [UInt16]
    private let horizontal: AxisWeights?
    private let vertical: AxisWeights?

    package init(placement: BackgroundPlacement, fill: UInt32) {
        self.placement = placement
        self.fill = fill & 0xFF_FFFF
        let w = placement.cardWidth, h = placement.cardHeight
        let radius = placement.cornerRadius
        let side = min(Int(radius.rounded(.up)) + 1, w / 2, h / 2)
        cornerSide = max(side, 0)
        var weights = [UInt16](repeating: 0, count: cornerSide * cornerSide)
        for y in 0..<cornerSide {
            for x in 0..<cornerSide {
                let c = roundedRectCoverage(
                    px: Double(x) + 0.5, py: Double(y) + 0.5,
                    width: Double(w), height: Double(h), radius: radius)
                weights[y * cornerSide + x] = UInt16(((1 - c) * 256).rounded())
            }
        }
        cornerWeights = weights
        if placement.isOneToOne {
            horizontal = nil
            vertical = nil
        } else {
            horizontal = AxisWeights(source: placement.frameWidth, destination: w)
            vertical = AxisWeights(source: placement.frameHeight, destination: h)
        }
    }

    /// Paints the whole buffer with the fill (once per buffer: frames repaint only the card).
    package func paintFill(into buffer: Pixmap) {
        buffer.fill(fill)
    }

    /// Paints the card's rectangle of `buffer` from `frame` (`placement.frameHeight` rows
    /// of `stride` bytes, XRGB8888), then its corners over the fill.
    package func paintCard(frame: UnsafeRawPointer, stride: Int, into buffer: Pixmap) {
        let p = placement
        precondition(
            buffer.width == p.bufferWidth && buffer.height == p.bufferHeight, "BackgroundComposer: buffer size")
        if let horizontal, let vertical {
            resample(frame, stride: stride, horizontal, vertical, into: buffer)
        } else {
            for y in 0..<p.cardHeight {
                let source = (frame + y * stride).assumingMemoryBound(to: UInt32.self)
                let target = buffer.row(p.cardY + y) + p.cardX
                for x in 0..<p.cardWidth { target[x] = source[x] & 0xFF_FFFF }
            }
        }
        compositeCorners(into: buffer)
    }

    /// The fill under the four corners.
    private func compositeCorners(into buffer: Pixmap) {
        let p = placement
        let n = cornerSide
        for y in 0..<n {
            for x in 0..<n {
                let weight = UInt32(cornerWeights[y * n + x])
                guard weight > 0 else { continue }
                let top = buffer.row(p.cardY + y) + p.cardX,
                    bottom = buffer.row(p.cardY + p.cardHeight - 1 - y) + p.cardX
                let right = p.cardWidth - 1 - x
                top[x] = Self.over(top[x], fill: fill, weight: weight)
                top[right] = Self.over(top[right], fill: fill, weight: weight)
                bottom[x] = Self.over(bottom[x], fill: fill, weight: weight)
                bottom[right] = Self.over(bottom[right], fill: fill, weight: weight)
            }
        }
    }

    /// `card` (premultiplied) over `fill` weighted `weight` / 256, per channel.
    package static func over(_ card: UInt32, fill: UInt32, weight: UInt32) -> UInt32 {
        func channel(_ shift: UInt32) -> UInt32 {
            min(255, (card >> shift & 0xFF) + ((fill >> shift & 0xFF) * weight + 128) >> 8) << shift
        }
        return channel(16) | channel(8) | channel(0)
    }

    /// The frame resampled into the card's rectangle: each destination row is first the
    /// weighted sum of its source rows (`vertical`), then of that row's samples (`horizontal`).
    private func resample(
        _ frame: UnsafeRawPointer, stride: Int, _ horizontal: AxisWeights, _ vertical: AxisWeights,
        into buffer: Pixmap
    ) {
        let p = placement
        let sourceWidth = p.frameWidth
        let row = UnsafeMutablePointer<Float>.allocate(capacity: sourceWidth * 3)
        defer { row.deallocate() }
        vertical.withTables { rowFirst, rowOffset, rowWeight in
            horizontal.withTables { columnFirst, columnOffset, columnWeight in
                for dy in 0..<p.cardHeight {
                    row.update(repeating: 0, count: sourceWidth * 3)
                    for k in rowOffset[dy]..<rowOffset[dy + 1] {
                        let weight = rowWeight[k]
                        let source = (frame + (rowFirst[dy] + k - rowOffset[dy]) * stride).assumingMemoryBound(
                            to: UInt32.self)
                        for x in 0..<sourceWidth {
                            let v = source[x]
                            row[x * 3] += weight * Float(v >> 16 & 0xFF)
                            row[x * 3 + 1] += weight * Float(v >> 8 & 0xFF)
                            row[x * 3 + 2] += weight * Float(v & 0xFF)
                        }
                    }
                    let target = buffer.row(p.cardY + dy) + p.cardX
                    for dx in 0..<p.cardWidth {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        var i = columnFirst[dx] * 3
                        for k in columnOffset[dx]..<columnOffset[dx + 1] {
                            let weight = columnWeight[k]
                            r += weight * row[i]
                            g += weight * row[i + 1]
                            b += weight * row[i + 2]
                            i += 3
                        }
                        target[dx] = Self.channel(r) << 16 | Self.channel(g) << 8 | Self.channel(b)
                    }
                }
            }
        }
    }

    private static func channel(_ v: Float) -> UInt32 {
        UInt32(min(max(v.rounded(), 0), 255))
    }
}
