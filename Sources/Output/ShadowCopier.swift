import Glibc
import Raster

/// Copies the card from the renderer's shadow into scanout buffers (DRM dumb buffers)
/// that are written and never read: each buffer has its own record of the card pixels
/// it holds, and only the card rows that differ from that record are written, turned for
/// the panel's orientation, into the visible part of the card's rectangle. With two
/// buffers taking turns, a dot repainted in one frame reaches the other buffer when that
/// one is next drawn, so incremental rendering stays correct in both.
///
/// Cost: one memcmp per visible card row per frame (2.8 KB at 700 px), then in a row
/// that changed a memcmp per 64-byte block and a copy of the blocks that changed; two
/// card-sized records (1.3 MB each at 700 x 467).
package struct ShadowCopier {
    package let placement: CardPlacement
    package let orientation: PanelOrientation
    /// Per buffer: the card pixels it holds (row-major, card width a row); nil while it
    /// still needs the whole card.
    private var written: [[UInt32]?]
    /// Card rows written so far, all buffers.
    package private(set) var rowsWritten = 0

    package init(placement: CardPlacement, orientation: PanelOrientation, bufferCount: Int) {
        self.placement = placement
        self.orientation = orientation
        written = Array(repeating: nil, count: bufferCount)
    }

    /// Brings buffer `index` (at `base`, `pitch` bytes a row, `panelWidth` x
    /// `panelHeight` pixels of XRGB8888) up to `shadow`. Returns the rows written.
    @discardableResult
    package mutating func copy(
        _ shadow: Pixmap, into index: Int, base: UnsafeMutableRawPointer, pitch: Int,
        panelWidth: Int, panelHeight: Int
    ) -> Int {
        let p = placement
        guard !p.isEmpty else { return 0 }
        let cardWidth = shadow.width
        let all = written[index] == nil
        // Taken out while it is updated, so the array is not copied (it is the only reference).
        var last = written[index] ?? [UInt32](repeating: 0, count: cardWidth * shadow.height)
        written[index] = nil
        let orientation = orientation
        var rows = 0
        let block = Self.blockPixels
        last.withUnsafeMutableBufferPointer { last in
            for y in p.y0..<p.y1 {
                let row = shadow.row(y)
                let copy = last.baseAddress! + y * cardWidth
                if !all && memcmp(row + p.x0, copy + p.x0, (p.x1 - p.x0) * 4) == 0 { continue }
                let uy = p.originY + y
                // Within a changed row only the blocks that changed are written: a row
                // crosses several dots, and most of its pixels are the same as before.
                var x0 = p.x0
                while x0 < p.x1 {
                    let n = min(block, p.x1 - x0)
                    if all || memcmp(row + x0, copy + x0, n * 4) != 0 {
                        (copy + x0).update(from: row + x0, count: n)
                        write(row + x0, x: p.originX + x0, y: uy, count: n)
                    }
                    x0 += n
                }
                rows += 1
            }
        }
        written[index] = last
        rowsWritten += rows
        return rows

        /// `count` pixels of upright row `y` from column `x`, turned for the panel.
        func write(_ pixels: UnsafeMutablePointer<UInt32>, x: Int, y: Int, count: Int) {
            if orientation == .normal {
                (base + y * pitch + x * 4).copyMemory(from: pixels, byteCount: count * 4)
                return
            }
            for i in 0..<count {
                let q = orientation.panelPixel(x: x + i, y: y, panelWidth: panelWidth, panelHeight: panelHeight)
                (base + q.y * pitch + q.x * 4).storeBytes(of: pixels[i], as: UInt32.self)
            }
        }
    }

    /// Pixels compared and written together within a changed row (64 bytes: a cache line).
    static let blockPixels = 16
}
