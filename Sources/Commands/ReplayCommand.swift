import Card
import Glibc
import LinuxSystem
import Logging
import Motion
import Output
import PNG
import Raster
import Runtime
import Tracing

/// `shimmerd replay TRACE.jsonl --out PATH [--from samples|frames] [--at fps|frames] [--set ...]`:
/// the frames a trace describes, at a constant `Sink.fps` on the trace's clock, or at the
/// recorded frames' times (see `ReplayTimeline` for which focal points and why).
///
/// The output kind follows the path: `-` or `*.raw` raw XRGB8888 frames (stdout, a file
/// or a FIFO, for ffmpeg); `*.png` or `*.apng` one animated PNG; an existing directory or
/// a path ending in `/` a directory of `frame-NNNNNN.png` plus `frames.jsonl`, the
/// `frame` record (time, focal point) of each. Any other name is refused (`r.mp4` would
/// otherwise become a directory of PNGs). Card geometry and `Sink.fps` default to the
/// trace header's, so a replay looks like the recording; `--set` overrides them.
/// `--print-size` says the frames' size and rate, which a raw reader must be told.
struct ReplayCommand: Subcommand {
    static let name = "replay"
    static let abstract = "render the frames a trace describes: PNG directory, animated PNG or raw frames"
    static let options: [OptionSpec] = [
        OptionSpec(
            "--out", value: "PATH",
            help: "DIR/ or an existing directory (PNG frames + frames.jsonl), "
                + "FILE.png/.apng (animated PNG), FILE.raw or - (raw XRGB8888); needed unless --print-size",
            completion: .file()),
        OptionSpec(
            "--from", value: "samples|frames",
            help: "samples: smooth the samples' focal points as "
                + "the daemon does (default); frames: the recorded frames' focal points",
            completion: .words(["samples", "frames"])),
        OptionSpec(
            "--at", value: "fps|frames",
            help: "fps: frames at Sink.fps from the first record to the "
                + "last (default); frames: at the recorded frames' times, the daemon's own frames one for one",
            completion: .words(["fps", "frames"])),
        OptionSpec(
            "--print-size",
            help: "print the frames' size and rate as WIDTHxHEIGHT FPS (ffmpeg's -s "
                + "and -r of a raw replay) and exit"),
        .set,
    ]
    static let positionals = [
        PositionalSpec(
            "TRACE.jsonl", help: "a trace (Trace.path, or DIR/trace.jsonl of shimmerd demo)",
            completion: .file(extension: "jsonl"))
    ]

    enum Output: Equatable {
        case raw(String)
        case animation(String)
        case directory(String)

        /// What `--out` may name, for the line that refuses another name.
        static let kinds =
            "DIR/ or an existing directory (PNG frames), FILE.png or FILE.apng (an animated PNG), "
            + "FILE.raw or - (raw XRGB8888 frames)"

        /// Chosen by the path: `-` and `*.raw` raw frames; an existing directory or a
        /// name ending in `/` a directory of PNGs; `*.png` and `*.apng` an animated PNG;
        /// nil for any other name.
        init?(path: String, isDirectory: Bool) {
            let lower = path.lowercased()
            if path == "-" || (lower.hasSuffix(".raw") && !isDirectory) {
                self = .raw(path)
            } else if isDirectory || path.hasSuffix("/") {
                self = .directory(path)
            } else if lower.hasSuffix(".png") || lower.hasSuffix(".apng") {
                self = .animation(path)
            } else {
                return nil
            }
        }
    }

    var trace: String
    /// nil with `--print-size`, which writes no frames.
    var output: Output?
    var source: ReplayTimeline.Source
    /// `--at frames`: at the recorded frames' times.
    var atRecordedFrames: Bool
    var overrides: [String]
    var printSize = false

    init(_ a: ParsedArguments) throws(Failure) {
        guard let trace = a.positionals.first, !trace.isEmpty else {
            throw Failure(.usage, "replay: missing TRACE.jsonl")
        }
        self.trace = trace
        printSize = a.flag("--print-size")
        if let out = a.value("--out") {
            guard !out.isEmpty else { throw Failure(.usage, "replay: --out is empty") }
            let isDirectory = (try? FileStatus.of(out))?.kind == .directory
            guard let o = Output(path: out, isDirectory: isDirectory) else {
                throw Failure(
                    .usage,
                    "replay: --out \(out): not an output replay knows by its "
                        + "name; it writes \(Output.kinds)")
            }
            output = o
        } else if !printSize {
            throw Failure(.usage, "replay: missing --out PATH: \(Output.kinds); or --print-size")
        }
        let from = a.value("--from") ?? "samples"
        guard let s = ReplayTimeline.Source(rawValue: from) else {
            throw Failure(.usage, "replay: --from \"\(from)\": expected samples or frames")
        }
        source = s
        let at = a.value("--at") ?? "fps"
        guard at == "fps" || at == "frames" else {
            throw Failure(.usage, "replay: --at \"\(at)\": expected fps or frames")
        }
        atRecordedFrames = at == "frames"
        overrides = a.all("--set")
    }

    /// A frame rate as ffmpeg's -r takes it: `15`, `12.5`, `29.97`.
    static func rate(_ fps: Double) -> String {
        fps == fps.rounded() && abs(fps) < 1e15 ? String(Int(fps)) : String(fps)
    }

    func run(_ context: CommandContext) throws(Failure) {
        let contents = try TraceInput.read(trace, command: Self.name, log: context.log)
        // The header's values come first, so --set wins.
        let recorded = try TraceInput.recordedConfiguration(contents, trace: trace, command: Self.name)
        let effective = try ConfigurationLoader.load(
            path: nil, overrides: overrides, useDefaultPath: false, base: recorded)
        let renderer = try CardFactory.renderer(effective.card)
        guard let output else {
            // `--print-size`: what a raw reader must be told (ffmpeg's -s and -r).
            context.out("\(renderer.pixelWidth)x\(renderer.pixelHeight) \(Self.rate(effective.sink.fps))\n")
            return
        }
        let origin = effective.card.effectiveOrigin
        if !atRecordedFrames, let span = contents.timeSpan,
            case let count = ReplayTimeline.frameCount(span: span, fps: effective.sink.fps),
            count > ReplayTimeline.maximumFrames
        {
            throw Failure(
                .dataError,
                "replay: \(trace): t spans \(PlotAxis.fixed(span.upperBound - span.lowerBound, decimals: 3)) s, "
                    + "\(count) frames at \(PlotAxis.fixed(effective.sink.fps, decimals: 2)) fps: more than the "
                    + "\(ReplayTimeline.maximumFrames) a replay writes; cut the trace or lower Sink.fps")
        }
        let frames = ReplayTimeline.frames(
            contents, at: atRecordedFrames ? .recorded : .fps(effective.sink.fps),
            origin: origin, source: source)
        guard !frames.isEmpty else {
            throw Failure(.dataError, "replay: \(trace): no timed records, nothing to replay")
        }

        var writer = try ReplayWriter(output, renderer: renderer, fps: effective.sink.fps, count: frames.count)
        let progress = ProgressBar(total: frames.count, unit: "frames", context: context)
        var written = 0
        for frame in frames {
            _ = renderer.update(focalX: frame.focal.x, focalY: frame.focal.y)
            guard try writer.write(frame) else {
                context.log.notice(
                    "replay: the reader closed \(writer.path) after "
                        + "\(counted(written, "frame")); stopping")
                break
            }
            written += 1
            progress.update(written)
        }
        progress.finish()
        try writer.finish()
        let seconds = PlotAxis.fixed(Double(frames.count) / effective.sink.fps, decimals: 2)
        context.log.info(
            "wrote \(counted(written, "frame")) (\(seconds) s at "
                + "\(PlotAxis.fixed(effective.sink.fps, decimals: 2)) fps, "
                + "\(renderer.pixelWidth) x \(renderer.pixelHeight) px, focal points from "
                + "\(source.rawValue)) to \(writer.path)")
    }
}

/// Paints each frame and sends it where `ReplayCommand.Output` says.
struct ReplayWriter {
    let output: ReplayCommand.Output
    let renderer: CardRenderer
    let fps: Double
    /// The card's alpha for PNG frames, computed once.
    private let coverage: [UInt8]
    private var target: CardTarget
    private let buffer: PixelBuffer?
    private let pngSink: PNGSequenceSink?
    private var index: [UInt8] = []
    private var pngs: [[UInt8]] = []
    private var rawFD: Int32 = -1

    var path: String {
        switch output {
        case .raw(let p), .animation(let p), .directory(let p): p == "-" ? "stdout" : p
        }
    }

    init(_ output: ReplayCommand.Output, renderer: CardRenderer, fps: Double, count: Int) throws(Failure) {
        self.output = output
        self.renderer = renderer
        self.fps = fps
        coverage = renderer.cardCoverage
        switch output {
        case .directory(let dir):
            // Frames of an earlier, longer replay would mix into this one: a replay's
            // directory holds that replay alone, numbered from frame-000001.png.
            if let old = try? FileSystem.list(dir) {
                for name in old where name.hasPrefix("frame-") && name.hasSuffix(".png") { unlink(dir + "/" + name) }
            }
            do {
                // An offline render keeps every frame: it waits for the writer instead of dropping.
                pngSink = try PNGSequenceSink(
                    directory: dir, width: renderer.pixelWidth, height: renderer.pixelHeight,
                    coverage: renderer.cardCoverage, waitsWhenBehind: true)
            } catch {
                throw Failure(.cannotCreate, "replay: \(error)")
            }
            buffer = nil
            target = CardTarget(pixmap: pngSink!.target(slot: 0).pixmap)
        case .animation:
            pngSink = nil
            buffer = PixelBuffer(width: renderer.pixelWidth, height: renderer.pixelHeight)
            target = CardTarget(pixmap: buffer!.pixmap)
            pngs.reserveCapacity(count)
        case .raw(let p):
            pngSink = nil
            buffer = PixelBuffer(width: renderer.pixelWidth, height: renderer.pixelHeight)
            target = CardTarget(pixmap: buffer!.pixmap)
            if p == "-" {
                rawFD = 1
            } else {
                // O_NOFOLLOW: never write through a planted symlink; a FIFO is fine.
                rawFD = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
                guard rawFD >= 0 else {
                    throw Failure(.cannotCreate, "replay: cannot open \(p): \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// Paints and writes one frame; false when a raw reader has gone away (EPIPE).
    mutating func write(_ frame: ReplayFrame) throws(Failure) -> Bool {
        let report = renderer.paint(into: &target)
        switch output {
        case .directory:
            do {
                _ = try pngSink!.publish(
                    slot: 0,
                    FrameInfo(
                        number: UInt64(frame.index + 1), timeNanoseconds: UInt64(frame.t * 1e9),
                        focalX: frame.focal.x, focalY: frame.focal.y))
            } catch {
                throw Failure(.ioError, "replay: \(error)")
            }
            index += TraceRecord.line(
                TraceRecord.Frame(
                    t: frame.t, frame: UInt64(frame.index + 1),
                    focal: [frame.focal.x, frame.focal.y],
                    dots: report.dotsRepainted, pixels: report.pixelsWritten))
        case .animation:
            do { pngs.append(try PNGCodec.encode(CardImage.rgba(target.pixmap, coverage: coverage))) } catch {
                throw Failure(.ioError, "replay: frame \(frame.index + 1): \(error)")
            }
        case .raw:
            // XRGB8888 little-endian, stride = width * 4 (docs/SINKS.md, "raw"): the
            // pixmap's words are 0xXXRRGGBB, so its rows are already that format.
            let p = target.pixmap
            let rowBytes = p.width * 4
            for y in 0..<p.height {
                let row = UnsafeRawPointer(p.row(y))
                var done = 0
                while done < rowBytes {
                    let n = Glibc.write(rawFD, row + done, rowBytes - done)
                    if n < 0 {
                        if errno == EINTR { continue }
                        if errno == EPIPE { return false }
                        throw Failure(.ioError, "replay: cannot write \(path): \(String(cString: strerror(errno)))")
                    }
                    done += n
                }
            }
        }
        return true
    }

    mutating func finish() throws(Failure) {
        switch output {
        case .directory(let dir):
            do { try pngSink!.flush() } catch {
                throw Failure(.ioError, "replay: \(error)")
            }
            pngSink!.close()
            do { try FileSystem.writeAtomically(index, to: dir + "/frames.jsonl") } catch {
                throw Failure(.cannotCreate, "replay: cannot write \(dir)/frames.jsonl: \(error)")
            }
        case .animation(let file):
            // The APNG delay is a fraction of 16-bit numbers: hundredths of a frame rate
            // keep 12.5 or 29.97 fps close; whole frame rates are exact.
            let hundredths = (fps * 100).rounded()
            let (numerator, denominator): (UInt16, UInt16) =
                hundredths <= 65535
                ? (100, UInt16(max(1, hundredths))) : (1, UInt16(min(65535, fps.rounded())))
            do {
                try FileSystem.writeAtomically(
                    try APNG.assemble(pngs, delayNumerator: numerator, delayDenominator: denominator),
                    to: file)
            } catch {
                throw Failure(.cannotCreate, "replay: cannot write \(file): \(error)")
            }
        case .raw:
            if rawFD > 2 { close(rawFD) }
        }
    }
}
