import Glibc
import TestSupport
import Testing

@testable import Fonts

// Real fontconfig and FreeType on the card's default font, DejaVu Sans Bold
// (fonts-dejavu-core, which scripts/setup.sh installs).

private let cardFont = "DejaVu Sans:style=Bold"

@Test func fontconfigFindsTheCardsFontFile() throws {
    let match = try FontLocator.match(cardFont)
    #expect(match.path.hasSuffix("/DejaVuSans-Bold.ttf"))
    #expect(access(match.path, R_OK) == 0)
    #expect(match.faceIndex == 0)
    #expect(match.family == "DejaVu Sans")
    #expect(match.style == "Bold")
    #expect(try FontFace(pattern: cardFont).match == match)
}

@Test func metricsGrowWithTheTextAndScaleWithThePixelSize() throws {
    let face = try FontFace(pattern: cardFont)
    let a = try face.metrics(of: "A", pixelSize: 20)
    let ab = try face.metrics(of: "AB", pixelSize: 20)
    let a40 = try face.metrics(of: "A", pixelSize: 40)
    #expect(ab.advance > a.advance)
    #expect(ab.inkMaxX > a.inkMaxX)
    // Unhinted outlines scale linearly; advances are whole 1/64 px.
    #expect(abs(a40.advance - 2 * a.advance) <= 1.0 / 32)
    #expect(abs(a40.ascent - 2 * a.ascent) < 1e-9)
    #expect(abs(a40.descent - 2 * a.descent) < 1e-9)
    #expect(a.ascent > 0 && a.descent > 0)
    // Y down, from the pen on the baseline: a capital's ink is above the baseline and
    // under the font's ascent.
    #expect(a.inkMinY < 0 && a.inkMinY >= -a.ascent)
    #expect(a.inkMaxY <= 0.5)
    #expect(a.inkMinX >= -0.5 && a.inkMaxX <= a.advance + 0.5)
    let space = try face.metrics(of: " ", pixelSize: 20)
    #expect(space.advance > 0)
    #expect(space.inkMinX == 0 && space.inkMaxX == 0, "a space has no ink")
}

/// The rows and columns of `coverage` holding ink, in its own pixel coordinates.
private func inkBounds(_ c: GlyphCoverage) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
    var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
    for y in 0..<c.height {
        for x in 0..<c.width where c.coverage[y * c.width + x] > 0 {
            let (px, py) = (c.left + x, c.top + y)
            box = (
                min(box?.minX ?? px, px), min(box?.minY ?? py, py), max(box?.maxX ?? px, px), max(box?.maxY ?? py, py)
            )
        }
    }
    return box
}

@Test func rasterizedInkLiesInsideTheMeasuredInkBox() throws {
    let face = try FontFace(pattern: cardFont)
    let (penX, baselineY) = (10.0, 50.0)
    let m = try face.metrics(of: "Tilt", pixelSize: 32)
    let c = try face.rasterize("Tilt", pixelSize: 32, penX: penX, baselineY: baselineY, rotationRadians: 0)
    #expect(c.coverage.count == c.width * c.height)
    #expect(c.coverage.max() == 255, "bold stems at 32 px have fully covered pixels")
    let ink = try #require(inkBounds(c))
    // Anti-aliasing reaches into the pixel that holds each edge, no further.
    #expect(Double(ink.minX) >= (penX + m.inkMinX).rounded(.down) - 1)
    #expect(Double(ink.maxX) <= (penX + m.inkMaxX).rounded(.up))
    #expect(Double(ink.minY) >= (baselineY + m.inkMinY).rounded(.down) - 1)
    #expect(Double(ink.maxY) <= (baselineY + m.inkMaxY).rounded(.up))
}

@Test func aQuarterTurnClockwiseRunsTheTextDownTheScreen() throws {
    let face = try FontFace(pattern: cardFont)
    let flat = try face.rasterize("HHHH", pixelSize: 24, penX: 0, baselineY: 0, rotationRadians: 0)
    let turned = try face.rasterize("HHHH", pixelSize: 24, penX: 0, baselineY: 0, rotationRadians: Double.pi / 2)
    #expect(flat.width > flat.height)
    #expect(turned.height > turned.width)
    #expect(abs(turned.height - flat.width) <= 2)
    // Turned clockwise about the pen, the run goes down the screen (y grows) from the pen
    // and the letters' tops face right: the ink is right of the pen, within the ascent.
    let ascent = try face.metrics(of: "HHHH", pixelSize: 24).ascent
    #expect(turned.top >= -2)
    #expect(turned.left >= -2)
    #expect(turned.left + turned.width <= Int(ascent.rounded(.up)) + 2)
}

@Test func mergingPiecesCoversTheirUnionAndSaturatesWhereTheyOverlap() {
    let a = GlyphCoverage(left: 0, top: 0, width: 2, height: 1, coverage: [200, 100])
    let b = GlyphCoverage(left: 1, top: -1, width: 1, height: 2, coverage: [7, 200])
    let merged = GlyphCoverage.merging([a, b])
    #expect(merged == GlyphCoverage(left: 0, top: -1, width: 2, height: 2, coverage: [0, 7, 200, 255]))
    #expect(GlyphCoverage.merging([a]) == a)
    #expect(GlyphCoverage.merging([]) == GlyphCoverage(left: 0, top: 0, width: 0, height: 0, coverage: []))
}

@Test func aFileThatIsNoFontFailsNamingTheFile() throws {
    let scratch = ScratchDirectory("fonts")
    defer { scratch.remove() }
    let path = try scratch.write("not a font\n", to: "label.ttf")
    let e = try #require(
        caught(FontError.self) {
            _ = try FontFace(match: FontMatch(path: path, faceIndex: 0, family: "Label", style: "Bold"))
        })
    #expect(e.operation == "FT_New_Face")
    #expect(e.code != 0)
    #expect(e.description == "FT_New_Face: cannot open font \(path) (FreeType error \(e.code))")

    let missing = scratch.file("absent.ttf")
    let m = try #require(
        caught(FontError.self) {
            _ = try FontFace(match: FontMatch(path: missing, faceIndex: 0, family: "Label", style: "Bold"))
        })
    #expect(m.detail == "cannot open font \(missing)")
}

@Test func aCharacterTheFontLacksAndABadSizeAreNamed() throws {
    let face = try FontFace(pattern: cardFont)
    let glyph = try #require(caught(FontError.self) { _ = try face.metrics(of: "A\u{10FFFD}", pixelSize: 20) })
    #expect(glyph.description == "FT_Get_Char_Index: font DejaVu Sans has no glyph for U+10FFFD")
    for size in [0, -3, Double.nan] {
        let bad = try #require(caught(FontError.self) { _ = try face.metrics(of: "A", pixelSize: size) })
        #expect(bad.detail == "bad pixel size \(size)")
    }
}
