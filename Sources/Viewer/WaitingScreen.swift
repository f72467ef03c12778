import Backdrop
import Fonts
import Raster

/// The picture shown while there is no frame: the card's black rounded rectangle on the
/// window's grey, with "Waiting for shimmerd" in the card's label font (white, 20 pt) and
/// one line of detail below it (grey, 11 pt). Drawn once per change of text, never per
/// frame. Grey and white only: no dot color can be mistaken for it.
struct WaitingScreen {
    static let headlinePoints = 20.0
    static let detailPoints = 11.0
    static let headlineGrey: UInt32 = 0xFF
    static let detailGrey: UInt32 = 0xA0

    /// nil when the font could not be loaded: the card is drawn without text.
    let face: FontFace?

    /// Paints `pixmap` (XRGB8888) whole.
    func draw(into pixmap: Pixmap, headline: String, detail: String, background: UInt32) {
        let scale = CardShape.scale(ofFrameWidth: pixmap.width)
        let w = Double(pixmap.width), h = Double(pixmap.height)
        let radius = CardShape.cornerRadiusPoints * scale
        // The card's shape: black over the background, anti-aliased corners.
        for y in 0..<pixmap.height {
            let row = pixmap.row(y)
            for x in 0..<pixmap.width {
                let c = roundedRectCoverage(
                    px: Double(x) + 0.5, py: Double(y) + 0.5, width: w, height: h, radius: radius)
                row[x] = Self.blend(background, 0, c)
            }
        }
        guard let face else { return }
        let headlineSize = Self.headlinePoints * scale
        let detailSize = Self.detailPoints * scale
        let middle = h / 2
        text(
            headline, face: face, pixelSize: headlineSize, centerX: w / 2, baselineY: middle, grey: Self.headlineGrey,
            into: pixmap)
        text(
            detail, face: face, pixelSize: detailSize, centerX: w / 2, baselineY: middle + detailSize * 2.2,
            grey: Self.detailGrey, into: pixmap)
    }

    /// One line, centred on `centerX`, shrunk to fit the card's width with a margin.
    private func text(
        _ s: String, face: FontFace, pixelSize: Double, centerX: Double, baselineY: Double,
        grey: UInt32, into pixmap: Pixmap
    ) {
        guard !s.isEmpty, let m = try? face.metrics(of: s, pixelSize: pixelSize) else { return }
        let room = Double(pixmap.width) * 0.9
        let size = m.advance > room ? pixelSize * room / m.advance : pixelSize
        let advance = m.advance * size / pixelSize
        guard
            let g = try? face.rasterize(
                s, pixelSize: size, penX: centerX - advance / 2, baselineY: baselineY,
                rotationRadians: 0)
        else { return }
        let color = grey << 16 | grey << 8 | grey
        for gy in 0..<g.height {
            let y = g.top + gy
            guard y >= 0, y < pixmap.height else { continue }
            let row = pixmap.row(y)
            for gx in 0..<g.width {
                let x = g.left + gx
                let a = g.coverage[gy * g.width + gx]
                guard x >= 0, x < pixmap.width, a > 0 else { continue }
                row[x] = Self.blend(row[x], color, Double(a) / 255)
            }
        }
    }

    /// `under` * (1 - a) + `over` * a per channel, XRGB8888 words.
    static func blend(_ under: UInt32, _ over: UInt32, _ a: Double) -> UInt32 {
        var out: UInt32 = 0
        for shift in [16, 8, 0] as [UInt32] {
            let u = Double(under >> shift & 0xFF), o = Double(over >> shift & 0xFF)
            out |= UInt32((u + (o - u) * a).rounded()) << shift
        }
        return out
    }
}
