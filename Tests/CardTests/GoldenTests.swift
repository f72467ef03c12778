import Card
import Foundation
import Output
import PNG
import Raster
import Testing

/// Golden images: the default card at scale 2 for the origin focal point and a moved
/// one, compared with committed PNGs made by `shimmerd render`
/// (scripts/regenerate-golden.sh rewrites them on purpose).
///
/// Metric: the largest difference of any channel (alpha included) over all pixels, at
/// most 2 of 255, and PSNR at least 50 dB over the RGBA bytes. Anti-aliasing and FreeType
/// versions may move an edge pixel by a level or two; a wrong color, a missing dot or a
/// shifted label moves far more.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let maxChannelError = 2
    static let minimumPSNR = 50.0

    static func compare(_ image: RGBAImage, to name: String) throws -> (maxError: Int, psnr: Double) {
        let golden = try PNGCodec.read(path: directory.appendingPathComponent(name).path)
        #expect(golden.width == image.width && golden.height == image.height)
        guard golden.pixels.count == image.pixels.count else { return (255, 0) }
        var maxError = 0
        var squared = 0.0
        for i in 0..<image.pixels.count {
            let d = abs(Int(image.pixels[i]) - Int(golden.pixels[i]))
            maxError = max(maxError, d)
            squared += Double(d * d)
        }
        let mse = squared / Double(image.pixels.count)
        let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
        return (maxError, psnr)
    }
}

@Test(arguments: [
    ("card-origin.png", 175.0, 350.0 * 2 / 3),
    ("card-focal-60-60.png", 60.0, 60.0),
])
func goldenImage(_ name: String, _ fx: Double, _ fy: Double) throws {
    let renderer = try defaultRenderer()
    let buffer = render(renderer, [(fx, fy)])
    let image = withExtendedLifetime(buffer) { CardImage.rgba(buffer.pixmap, coverage: renderer.cardCoverage) }
    let (maxError, psnr) = try Golden.compare(image, to: name)
    #expect(maxError <= Golden.maxChannelError, "\(name): max channel error \(maxError)")
    #expect(psnr >= Golden.minimumPSNR, "\(name): PSNR \(psnr) dB")
}

@Test func goldenComparisonNoticesAChange() throws {
    // The metric is not blind: the origin golden against the moved-focal render fails it.
    let renderer = try defaultRenderer()
    // The buffer owns the pixels the pixmap points to: it must outlive the read (a
    // temporary would be freed before `rgba` reads it; scripts/sanitize.sh's ASan sees that).
    let buffer = render(renderer, [(60, 60)])
    let image = withExtendedLifetime(buffer) { CardImage.rgba(buffer.pixmap, coverage: renderer.cardCoverage) }
    let (maxError, psnr) = try Golden.compare(image, to: "card-origin.png")
    #expect(maxError > Golden.maxChannelError)
    #expect(psnr < Golden.minimumPSNR)
}
