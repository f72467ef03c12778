import Glibc
import Raster

/// Copies the card from the renderer's shadow into scanout buffers (DRM dumb buffers)
/// that are written and never read: each buffer has its own record of the card pixels
/// it holds, and only the card rows that differ from that record are written, turned for
/// the panel's orientation, into the visible part of the card's rectangle. With two
/// buffers taking turns, a dot repainted in one frame reaches the other buffer when that
/// one is next drawn, so incremental rendering stays correct in both.
///
/// Given `changing`, the pixels a frame may change once the card was drawn whole (the
/// dots: `CardRenderer.dotSpans`), only those are compared, unless `changedWholeCard`
/// said the whole card may have changed since the buffer was last brought up to date.
///
/// Cost: a memcmp per changing span of each visible card row (17 % of the card's pixels
/// at scale 2; every row, 2.8 KB at 700 px, without `changing`), then in a span that
/// changed a memcmp per 64-byte block and a copy of the blocks that changed; two
/// card-sized records (1.3 MB each at 700 x 467).
package struct ShadowCopier {
    package let placement: CardPlacement
    package let orientation: PanelOrientation
    /// The only card pixels a frame changes once the card was drawn whole; nil: any.
    package var changing: RowSpans?
    /// Per buffer: the card pixels it holds (row-major, card width a row); nil while it
    /// still needs the whole card.
    private var written: [[UInt32]?]
    /// Per buffer: the whole card may differ from its record (a frame drew it whole since
    /// the buffer was last brought up to date), not only the `changing` pixels.
    private var wholeCardChanged: [Bool]
    /// Card rows written so far, all buffers.
    package private(set) var rowsWritten = 0

    package init(placement: CardPlacement, orientation: PanelOrientation, bufferCount: Int, changing: RowSpans? = nil) {
        self.placement = placement
        self.orientation = orientation
        self.changing = changing
        written = Array(repeating: nil, count: bufferCount)
        wholeCardChanged = Array(repeating: true, count: bufferCount)
    }

    /// The shadow was drawn whole (its static parts too): every buffer compares the whole
    /// card at its next copy.
    package mutating func changedWholeCard() {
        for i in wholeCardChanged.indices { wholeCardChanged[i] = true }
    }

    /// Brings buffer `index` (at `base`, `pitch` bytes a row, `panelWidth` x
    /// `panelHeight` pixels of XRGB8888) up to `shadow`. Returns the rows written.
    @discardableResult
    package mutating func copy(_ shadow: Pixmap, into index: Int, base: UnsafeMutableRawPointer, pitch: Int,
                               panelWidth: Int, panelHeight: Int) -> Int {
        let p = placement
        guard !p.isEmpty else { return 0 }
        let cardWidth = shadow.width
        let all = written[index] == nil
        let spans = wholeCardChanged[index] ? nil : changing
        wholeCardChanged[index] = false
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
                var changed = false
                // Within a changed span only the blocks that changed are written: a span
                // crosses several dots, and most of its pixels are the same as before.
                func update(_ from: Int, _ to: Int) {
                    let s0 = max(from, p.x0), s1 = min(to, p.x1)
                    guard s0 < s1, all || memcmp(row + s0, copy + s0, (s1 - s0) * 4) != 0 else { return }
                    changed = true
                    var x0 = s0
                    while x0 < s1 {
                        let n = min(block, s1 - x0)
                        if all || memcmp(row + x0, copy + x0, n * 4) != 0 {
                            (copy + x0).update(from: row + x0, count: n)
                            write(row + x0, x: p.originX + x0, y: p.originY + y, count: n)
                        }
                        x0 += n
                    }
                }
                if let spans {
                    spans.forEachSpan(inRow: y, update)
                } else {
                    update(p.x0, p.x1)
                }
                if changed { rows += 1 }
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
