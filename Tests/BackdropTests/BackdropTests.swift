import Raster
import Testing

@testable import Backdrop

/// The desktop background's placement and pixels (the surfaces themselves are tested end
/// to end under sway in Tests/IntegrationTests/sinks/test_background.py).
struct BackgroundPlacementTests {
    @Test func theDefaultCardAtScaleTwoOnAScaleTwoOutputIsCopiedOneToOneAndCentred() throws {
        // A 1280 x 720 output at scale 2: the layer surface is 640 x 360.
        let p = try #require(
            BackgroundPlacement(
                surfaceWidth: 640, surfaceHeight: 360, outputScale: 2, frameWidth: 700, frameHeight: 467))
        #expect((p.bufferWidth, p.bufferHeight) == (1280, 720))
        #expect((p.cardX, p.cardY, p.cardWidth, p.cardHeight) == (290, 126, 700, 467))
        #expect(p.isOneToOne)
        #expect(p.cornerRadius == 24)
    }

    @Test func onAScaleOneOutputTheCardKeepsItsSizeInPoints() throws {
        let p = try #require(
            BackgroundPlacement(
                surfaceWidth: 1920, surfaceHeight: 1080, outputScale: 1, frameWidth: 700, frameHeight: 467))
        #expect((p.cardWidth, p.cardHeight) == (350, 234))
        #expect((p.cardX, p.cardY) == ((1920 - 350) / 2, (1080 - 234) / 2))
        #expect(!p.isOneToOne)
        #expect(p.cornerRadius == 12)
    }

    @Test func aScaleOneCardOnAScaleThreeOutputIsEnlarged() throws {
        let p = try #require(
            BackgroundPlacement(
                surfaceWidth: 1280, surfaceHeight: 720, outputScale: 3, frameWidth: 350, frameHeight: 233))
        #expect((p.cardWidth, p.cardHeight) == (1050, 699))
        #expect(p.cornerRadius == 36)
    }

    @Test(arguments: [(300, 400, 1), (640, 100, 2), (100, 100, 3), (1, 1, 1)])
    func aCardThatDoesNotFitIsScaledDownNeverCut(_ width: Int, _ height: Int, _ scale: Int) throws {
        let p = try #require(
            BackgroundPlacement(
                surfaceWidth: width, surfaceHeight: height, outputScale: scale,
                frameWidth: 700, frameHeight: 467))
        #expect(p.cardX >= 0 && p.cardY >= 0)
        #expect(p.cardX + p.cardWidth <= p.bufferWidth && p.cardY + p.cardHeight <= p.bufferHeight)
        #expect(p.cardWidth == p.bufferWidth || p.cardHeight == p.bufferHeight, "as large as fits")
        if p.cardWidth > 10 && p.cardHeight > 10 {
            #expect(abs(Double(p.cardWidth) / Double(p.cardHeight) - 700.0 / 467) < 0.02, "aspect kept")
        }
    }

    @Test func nothingToPlaceOnAnEmptySurface() {
        #expect(
            BackgroundPlacement(surfaceWidth: 0, surfaceHeight: 720, outputScale: 1, frameWidth: 700, frameHeight: 467)
                == nil)
    }
}

struct AxisWeightsTests {
    @Test(arguments: [(700, 350), (467, 234), (700, 1050), (10, 3), (3, 10), (5, 5)])
    func everyDestinationSampleWeighsOne(_ source: Int, _ destination: Int) {
        let w = AxisWeights(source: source, destination: destination)
        for d in 0..<destination {
            let (first, weights) = w.taps(d)
            #expect(abs(weights.reduce(0, +) - 1) < 1e-5, "sample \(d)")
            #expect(first >= 0 && first + weights.count <= source, "sample \(d) reads inside the source")
        }
    }

    @Test func halvingAveragesPairs() {
        let w = AxisWeights(source: 4, destination: 2)
        #expect(w.taps(0).first == 0 && Array(w.taps(0).weights) == [0.5, 0.5])
        #expect(w.taps(1).first == 2 && Array(w.taps(1).weights) == [0.5, 0.5])
    }

    @Test func shrinkingByAFractionWeighsByOverlap() {
        // 3 -> 2: sample 0 covers [0, 1.5): all of 0, half of 1.
        let (first, weights) = AxisWeights(source: 3, destination: 2).taps(0)
        #expect(first == 0)
        #expect(
            weights.count == 2 && abs(weights[weights.startIndex] - 2.0 / 3) < 1e-6
                && abs(weights[weights.startIndex + 1] - 1.0 / 3) < 1e-6)
    }

    @Test func doublingInterpolatesBetweenCentres() {
        // 2 -> 4: destination centre 1.5 maps to source 0.25.
        let (first, weights) = AxisWeights(source: 2, destination: 4).taps(1)
        #expect(first == 0 && Array(weights) == [0.75, 0.25])
    }
}

struct BackgroundComposerTests {
    let fill: UInt32 = 0x33_6699

    /// A frame as the daemon writes it: `inside` within the card, black outside the rounded
    /// corners (docs/CARD.md), the fourth byte set to prove it is ignored.
    func frame(width: Int, height: Int, inside: UInt32) -> PixelBuffer {
        let b = PixelBuffer(width: width, height: height)
        let radius = 12 * Double(width) / 350
        for y in 0..<height {
            for x in 0..<width {
                let c = roundedRectCoverage(
                    px: Double(x) + 0.5, py: Double(y) + 0.5, width: Double(width), height: Double(height),
                    radius: radius)
                b.pixmap[x, y] = c >= 1 ? inside | 0xFF00_0000 : 0xFF00_0000
            }
        }
        return b
    }

    /// The buffer of an output `width` x `height` (surface units) at `scale` showing
    /// `source`: the fill, then the card.
    func compose(_ source: PixelBuffer, width: Int, height: Int, scale: Int) throws -> (
        BackgroundPlacement, PixelBuffer
    ) {
        let p = try #require(
            BackgroundPlacement(
                surfaceWidth: width, surfaceHeight: height, outputScale: scale,
                frameWidth: source.pixmap.width, frameHeight: source.pixmap.height))
        let composer = BackgroundComposer(placement: p, fill: fill)
        let buffer = PixelBuffer(width: p.bufferWidth, height: p.bufferHeight)
        composer.paintFill(into: buffer.pixmap)
        composer.paintCard(
            frame: UnsafeRawPointer(source.pixmap.base), stride: source.pixmap.stride, into: buffer.pixmap)
        return (p, buffer)
    }

    @Test func oneToOneTheCardIsCopiedAndTheFillIsAroundItAndInItsCorners() throws {
        let (p, buffer) = try compose(
            frame(width: 700, height: 467, inside: 0x12_3456), width: 400, height: 300, scale: 2)
        let px = buffer.pixmap
        #expect(px[0, 0] == fill && px[p.bufferWidth - 1, p.bufferHeight - 1] == fill)
        #expect(px[p.cardX - 1, p.cardY + 200] == fill, "left of the card")
        #expect(px[p.cardX + 350, p.cardY + 200] == 0x12_3456, "inside, the frame's pixel without its fourth byte")
        #expect(px[p.cardX + 24, p.cardY] == 0x12_3456, "the top edge past the corner")
        // The very corner pixel is (nearly) all fill; the four corners alike.
        for (x, y) in [(0, 0), (699, 0), (0, 466), (699, 466)] {
            #expect(px[p.cardX + x, p.cardY + y] == fill, "corner \(x), \(y)")
        }
        // Along the arc: between black and the fill, weighted by the coverage.
        let arc = px[p.cardX + 7, p.cardY + 6]  // 24.05 px from the arc's centre: coverage 0.45
        #expect(arc != fill && arc != 0 && arc & 0xFF <= fill & 0xFF)
    }

    @Test func everyPixelOfTheCardRectangleIsTheFramesWhereTheCoverageIsWhole() throws {
        let source = PixelBuffer(width: 700, height: 467)
        for y in 0..<467 { for x in 0..<700 { source.pixmap[x, y] = UInt32(x * 7 + y * 13) & 0xFF_FFFF } }
        let (p, buffer) = try compose(source, width: 350, height: 234, scale: 2)
        var differing = 0
        for y in 0..<467 {
            for x in 0..<700 where buffer.pixmap[p.cardX + x, p.cardY + y] != source.pixmap[x, y] {
                let c = roundedRectCoverage(
                    px: Double(x) + 0.5, py: Double(y) + 0.5, width: 700, height: 467, radius: 24)
                #expect(c < 1, "pixel \(x), \(y) changed where the card covers it whole")
                differing += 1
            }
        }
        #expect(differing > 4 * 100 && differing < 4 * 24 * 24, "only the corners differ: \(differing)")
    }

    @Test func scaledTheCardIsResampledNotCutAndAPlainCardStaysPlain() throws {
        let (p, buffer) = try compose(
            frame(width: 700, height: 467, inside: 0x40_8020), width: 1280, height: 720, scale: 1)
        let px = buffer.pixmap
        #expect((p.cardWidth, p.cardHeight) == (350, 234))
        #expect(px[p.cardX + 175, p.cardY + 117] == 0x40_8020)
        #expect(
            px[p.cardX + 175, p.cardY] == 0x40_8020 && px[p.cardX + 175, p.cardY + p.cardHeight - 1] != fill,
            "edges kept")
        #expect(px[p.cardX, p.cardY] == fill, "corner")
        #expect(px[p.cardX - 1, p.cardY + 117] == fill && px[p.cardX + p.cardWidth, p.cardY + 117] == fill)
    }

    @Test func overAddsTheWeightedFillToThePremultipliedCard() {
        #expect(BackgroundComposer.over(0, fill: 0x80_4020, weight: 256) == 0x80_4020)
        #expect(BackgroundComposer.over(0, fill: 0x80_4020, weight: 128) == 0x40_2010)
        #expect(BackgroundComposer.over(0x10_1010, fill: 0xFF_FFFF, weight: 256) == 0xFF_FFFF, "clamped")
        #expect(BackgroundComposer.over(0x10_2030, fill: 0x80_4020, weight: 0) == 0x10_2030)
    }
}
