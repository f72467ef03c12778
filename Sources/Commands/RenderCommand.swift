import Card
import LinuxSystem
import Logging
import Output
import PNG
import Raster
import Runtime
import Tracing

/// `shimmerd render --focal X,Y --out FILE.png [--set ...]`: one frame to a PNG.
struct RenderCommand: Subcommand {
    static let name = "render"
    static let abstract = "render one frame of the card for a focal point to a PNG"
    static let options: [OptionSpec] = [
        OptionSpec(
            "--focal", value: "X,Y",
            help: "focal point in points (default card: "
                + "175,233.333 is the untilted origin)", required: true),
        OptionSpec(
            "--out", value: "FILE.png", help: "output PNG (written atomically: never a partial file)", required: true,
            completion: .file(extension: "png")),
        .configWithoutDefault, .set,
    ]

    var focalX: Double
    var focalY: Double
    var out: String
    var configuration: ConfigurationArguments

    init(_ a: ParsedArguments) throws(Failure) {
        let focal = try a.required("--focal", command: Self.name)
        (focalX, focalY) = try Self.parseFocal(focal)
        out = try a.outputFile("--out", command: Self.name, extension: "png")
        configuration = ConfigurationArguments(a)
    }

    /// "X,Y" in points: finite numbers (off-card points are fine: they are just far away).
    static func parseFocal(_ text: String) throws(Failure) -> (Double, Double) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0].trimmingSpaces()), let y = Double(parts[1].trimmingSpaces())
        else {
            throw Failure(.usage, "render: --focal \"\(text)\" is not X,Y")
        }
        guard x.isFinite, y.isFinite else {
            throw Failure(.usage, "render: --focal \"\(text)\" must be finite numbers")
        }
        return (x, y)
    }

    func run(_ context: CommandContext) throws(Failure) {
        // render reads built-in defaults unless --config is given: a picture should not
        // depend on what happens to be in /etc.
        let config = try configuration.load(useDefaultPath: false)
        let renderer = try CardFactory.renderer(config)
        let buffer = PixelBuffer(width: renderer.pixelWidth, height: renderer.pixelHeight)
        var target = CardTarget(pixmap: buffer.pixmap)
        renderer.render(focalX: focalX, focalY: focalY, into: &target)
        let bytes: [UInt8]
        // `buffer` owns the memory `buffer.pixmap` points to; the optimizer may release a
        // local after its last use, which is reading `.pixmap`, before `rgba` reads pixels.
        let image = withExtendedLifetime(buffer) { CardImage.rgba(buffer.pixmap, coverage: renderer.cardCoverage) }
        do { bytes = try PNGCodec.encode(image) } catch {
            throw Failure(.ioError, "render: \(error)")
        }
        do { try FileSystem.writeAtomically(bytes, to: out) } catch {
            throw Failure(.cannotCreate, "render: cannot write \(out): \(error)")
        }
        context.log.info(
            "wrote \(out) (\(renderer.pixelWidth) x \(renderer.pixelHeight) "
                + "px, focal \(focalX),\(focalY) pt)")
    }
}
