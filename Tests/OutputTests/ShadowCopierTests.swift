import Raster
import Testing

@testable import Output

/// The DRM sink's copy from the shadow into scanout buffers, and the panel orientations.
struct ShadowCopierTests {
    static let orientations: [PanelOrientation] = [.normal, .upsideDown, .leftSideUp, .rightSideUp]

    @Test(arguments: orientations)
    func everyUprightPixelLandsOnItsOwnPanelPixel(_ o: PanelOrientation) {
        let pw = 5, ph = 3
        let upright = o.uprightSize(panelWidth: pw, panelHeight: ph)
        var seen = Set<Int>()
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                let p = o.panelPixel(x: x, y: y, panelWidth: pw, panelHeight: ph)
                #expect((0..<pw).contains(p.x) && (0..<ph).contains(p.y))
                seen.insert(p.y * pw + p.x)
            }
        }
        #expect(seen.count == pw * ph)
    }

    /// Where the upright top-left and top-right corners go: the picture turned 90 degrees
    /// counter-clockwise for Left Side Up (its top edge along the panel's left edge,
    /// read upwards), clockwise for Right Side Up, 180 for Upside Down.
    @Test(arguments: [
        (PanelOrientation.normal, [0, 0], [4, 0]),
        (.upsideDown, [4, 2], [0, 2]),
        (.leftSideUp, [0, 2], [0, 0]),
        (.rightSideUp, [4, 0], [4, 2]),
    ])
    func uprightCornersOnA5x3Panel(_ o: PanelOrientation, _ topLeft: [Int], _ topRight: [Int]) {
        let upright = o.uprightSize(panelWidth: 5, panelHeight: 3)
        let tl = o.panelPixel(x: 0, y: 0, panelWidth: 5, panelHeight: 3)
        let tr = o.panelPixel(x: upright.width - 1, y: 0, panelWidth: 5, panelHeight: 3)
        #expect([tl.x, tl.y] == topLeft && [tr.x, tr.y] == topRight)
    }

    @Test func twoBuffersEachGetEveryChangedRowAndOnlyThose() {
        let card = PixelBuffer(width: 4, height: 3)
        for y in 0..<3 { for x in 0..<4 { card.pixmap.row(y)[x] = UInt32(y * 16 + x + 1) } }
        let placement = CardPlacement(cardWidth: 4, cardHeight: 3, screenWidth: 8, screenHeight: 6, position: nil)
        var copier = ShadowCopier(placement: placement, orientation: .normal, bufferCount: 2)
        let buffers = [PixelBuffer(width: 8, height: 6), PixelBuffer(width: 8, height: 6)]
        func copy(_ i: Int) -> Int {
            copier.copy(
                card.pixmap, into: i, base: UnsafeMutableRawPointer(buffers[i].pixmap.row(0)), pitch: 32,
                panelWidth: 8, panelHeight: 6)
        }
        func holdsCard(_ i: Int) -> Bool {
            (0..<3).allSatisfy { y in
                (0..<4).allSatisfy { x in buffers[i].pixmap.row(1 + y)[2 + x] == card.pixmap.row(y)[x] }
            }
        }
        #expect(copy(0) == 3 && holdsCard(0))
        card.pixmap.row(1)[2] = 0xABCDEF  // a dot repainted
        #expect(copy(1) == 3 && holdsCard(1))  // first time: the whole card
        #expect(copy(0) == 1 && holdsCard(0))  // the repainted row reaches the other buffer
        #expect(copy(1) == 0 && copy(0) == 0)  // nothing changed: nothing written
        // Rows are compared with the copier's record, never read back from the buffer.
        buffers[0].pixmap.row(1)[2] = 7
        #expect(copy(0) == 0 && buffers[0].pixmap.row(1)[2] == 7)
        // Outside the card's rectangle nothing was written.
        #expect(
            buffers[1].pixmap.row(0).withMemoryRebound(to: UInt32.self, capacity: 8) { r in
                (0..<8).allSatisfy { r[$0] == 0 }
            })
        #expect((0..<6).allSatisfy { buffers[1].pixmap.row($0)[0] == 0 && buffers[1].pixmap.row($0)[7] == 0 })
    }

    @Test func inAChangedRowOnlyTheChangedBlockIsWritten() {
        let card = PixelBuffer(width: 40, height: 2)
        let placement = CardPlacement(cardWidth: 40, cardHeight: 2, screenWidth: 40, screenHeight: 2, position: nil)
        var copier = ShadowCopier(placement: placement, orientation: .normal, bufferCount: 1)
        let screen = PixelBuffer(width: 40, height: 2)
        func copy() -> Int {
            copier.copy(
                card.pixmap, into: 0, base: UnsafeMutableRawPointer(screen.pixmap.row(0)), pitch: 160,
                panelWidth: 40, panelHeight: 2)
        }
        #expect(copy() == 2)
        for x in 0..<40 { screen.pixmap.row(1)[x] = 0xEE }  // marks: written again or not
        card.pixmap.row(1)[20] = 0x123456  // in the second 16-pixel block
        #expect(copy() == 1)
        let written = (0..<40).filter { screen.pixmap.row(1)[$0] != 0xEE }
        #expect(written == Array(16..<32) && screen.pixmap.row(1)[20] == 0x123456)
    }
}
