import Glibc
import Raster

/// Copies the card from the renderer's shadow into scanout buffers (DRM dumb buffers)
/// that are written and never read: each buffer has its own record of the card pixels
/// it holds, and only the card rows that differ from that record are written, turned for
/// the panel's orientation, into the visible part of the card's rectangle. With two
/// buffers taking turns, a dot repainted in one frame reaches the other buffer when that
/// one is next drawn, so incremental rendering stays correct in both.
///
/// Given where the dots are (`regions`) and told which dots each frame repainted
/// (`repainted(_:wholeCard:)`), a buffer is brought up to date by comparing and copying
/// only the runs of the dots repainted since it was last brought up to date; a frame that
/// painted the card whole makes each buffer compare the whole card once.
///
/// Cost: with regions, a memcmp per run of each dot repainted since the buffer's last
/// turn (14,301 pixels for a 1 pt focal move, 56,594 when every dot changes) and a copy of
/// the runs that differ; without, one memcmp per visible card row per frame (2.8 KB at
/// 700 px), then in a row that changed a memcmp per 64-byte block and a copy of the blocks
/// that changed. Two card-sized records (1.3 MB each at 700 x 467).
package struct ShadowCopier {
    package let placement: CardPlacement
    package let orientation: PanelOrientation
    /// Per buffer: the card pixels it holds (row-major, card width a row); nil while it
    /// still needs the whole card.
    private var written: [[UInt32]?]
    /// Where the dots are; nil: every frame compares the whole card.
    private var regions: DotRegions?
    /// Per buffer: the dots repainted since it was last brought up to date, and whether a
    /// frame painted the whole card since (then it compares the whole card).
    private var staleDots: [[Bool]]
    private var staleCard: [Bool]
    /// Per card row, the copy that last wrote in it (the dot path counts rows written).
    private var rowCopy: [Int] = []
    private var copies = 0
    /// Card rows written so far, all buffers.
    package private(set) var rowsWritten = 0

    package init(placement: CardPlacement, orientation: PanelOrientation, bufferCount: Int, regions: DotRegions? = nil) {
        self.placement = placement
        self.orientation = orientation
        written = Array(repeating: nil, count: bufferCount)
        staleDots = Array(repeating: Array(repeating: false, count: regions?.dotCount ?? 0), count: bufferCount)
        staleCard = Array(repeating: true, count: bufferCount)
        self.regions = regions
    }

    /// The dots a frame repainted, or that it painted the card whole: what each buffer
    /// must catch up with at its next copy.
    package mutating func repainted(_ dots: UnsafeBufferPointer<Int32>, wholeCard: Bool) {
        guard !wholeCard, let n = regions?.dotCount else {
            for b in staleCard.indices { staleCard[b] = true }
            return
        }
        for b in staleDots.indices {
            staleDots[b].withUnsafeMutableBufferPointer { stale in
                for d in dots where Int(d) < n { stale[Int(d)] = true }
            }
        }
    }

    /// Brings buffer `index` (at `base`, `pitch` bytes a row, `panelWidth` x
    /// `panelHeight` pixels of XRGB8888) up to `shadow`. Returns the rows written.
    @discardableResult
    package mutating func copy(_ shadow: Pixmap, into index: Int, base: UnsafeMutableRawPointer, pitch: Int,
                               panelWidth: Int, panelHeight: Int) -> Int {
        let p = placement
        guard !p.isEmpty else { return 0 }
        if let regions, !staleCard[index], written[index] != nil {
            return copyDots(shadow, regions, into: index, base: base, pitch: pitch, panelWidth: panelWidth,
                            panelHeight: panelHeight)
        }
        staleCard[index] = false
        if !staleDots.isEmpty { staleDots[index].withUnsafeMutableBufferPointer { $0.update(repeating: false) } }
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

        func write(_ pixels: UnsafeMutablePointer<UInt32>, x: Int, y: Int, count: Int) {
            Self.write(pixels, x: x, y: y, count: count, orientation: orientation, base: base, pitch: pitch,
                       panelWidth: panelWidth, panelHeight: panelHeight)
        }
    }

    /// Buffer `index` brought up to date by the runs and shared pixels of the dots
    /// repainted since its last copy. Returns the card rows in which it wrote.
    /// (`rowCopy` marks the rows written by this copy, so each counts once.)
    private mutating func copyDots(_ shadow: Pixmap, _ r: DotRegions, into index: Int, base: UnsafeMutableRawPointer,
                                   pitch: Int, panelWidth: Int, panelHeight: Int) -> Int {
        let p = placement
        guard !p.isEmpty else { return 0 }
        let cardWidth = shadow.width
        let orientation = orientation
        var last = written[index]!
        written[index] = nil
        var rows = 0
        copies += 1
        let thisCopy = copies
        if rowCopy.count != shadow.height { rowCopy = Array(repeating: 0, count: shadow.height) }
        rowCopy.withUnsafeMutableBufferPointer { rowCopy in
        last.withUnsafeMutableBufferPointer { last in
            staleDots[index].withUnsafeMutableBufferPointer { stale in
                // One span of row y: compared with the record, copied where it differs.
                func update(y: Int, x0: Int, x1: Int) {
                    guard y >= p.y0, y < p.y1 else { return }
                    let s0 = max(x0, p.x0), s1 = min(x1, p.x1)
                    guard s0 < s1 else { return }
                    let row = shadow.row(y), copy = last.baseAddress! + y * cardWidth
                    guard memcmp(row + s0, copy + s0, (s1 - s0) * 4) != 0 else { return }
                    (copy + s0).update(from: row + s0, count: s1 - s0)
                    Self.write(row + s0, x: p.originX + s0, y: p.originY + y, count: s1 - s0, orientation: orientation,
                               base: base, pitch: pitch, panelWidth: panelWidth, panelHeight: panelHeight)
                    if rowCopy[y] != thisCopy {
                        rowCopy[y] = thisCopy
                        rows += 1
                    }
                }
                for d in stale.indices where stale[d] {
                    stale[d] = false
                    for k in r.runStart[d]..<r.runStart[d + 1] {
                        let x = Int(r.runX[k])
                        update(y: Int(r.runY[k]), x0: x, x1: x + Int(r.runCount[k]))
                    }
                    for s in r.sharedByDot[d] {
                        let x = Int(r.sharedX[Int(s)])
                        update(y: Int(r.sharedY[Int(s)]), x0: x, x1: x + 1)
                    }
                }
            }
        }
        }
        written[index] = last
        rowsWritten += rows
        return rows
    }

    /// `count` pixels of upright row `y` from column `x`, turned for the panel.
    private static func write(_ pixels: UnsafeMutablePointer<UInt32>, x: Int, y: Int, count: Int,
                              orientation: PanelOrientation, base: UnsafeMutableRawPointer, pitch: Int,
                              panelWidth: Int, panelHeight: Int) {
        if orientation == .normal {
            (base + y * pitch + x * 4).copyMemory(from: pixels, byteCount: count * 4)
            return
        }
        for i in 0..<count {
            let q = orientation.panelPixel(x: x + i, y: y, panelWidth: panelWidth, panelHeight: panelHeight)
            (base + q.y * pitch + q.x * 4).storeBytes(of: pixels[i], as: UInt32.self)
        }
    }

    /// Pixels compared and written together within a changed row (64 bytes: a cache line).
    static let blockPixels = 16
}
