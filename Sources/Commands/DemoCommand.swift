import Glibc
import LinuxSystem
import Logging
import Motion
import Output
import PNG
import Runtime
import Tracing

/// `shimmerd demo [--out DIR]`: the whole pipeline on the embedded simulated
/// accelerometer following a scripted tilt path. No hardware, no root.
struct DemoCommand: Subcommand {
    static let name = "demo"
    static let abstract =
        "run the whole pipeline on a simulated accelerometer; writes "
        + "frames, a trace and an animated PNG"
    static let options: [OptionSpec] = [
        OptionSpec("--out", value: "DIR", help: "output directory (default ./shimmerd-demo)", completion: .directory),
        .set,
    ]

    var out: String
    var overrides: [String]

    init(_ a: ParsedArguments) throws(Failure) {
        out = a.value("--out") ?? "shimmerd-demo"
        guard !out.isEmpty else { throw Failure(.usage, "demo: --out is empty") }
        overrides = a.all("--set")
    }

    func run(_ context: CommandContext) throws(Failure) {
        try emptyFramesDirectory()
        let config = try configuration()
        let path = TiltPath.demo
        let duration = (path.keyframes.last?.t ?? 0) + 1
        let daemon = Daemon(
            config: config, source: .simulated(path), log: context.log(level: config.log.level),
            argv: CommandLine.arguments, reload: { () throws(Failure) -> Configuration in config })
        let tty = isatty(1) != 0
        daemon.followWakeups(
            Self.progress(context, duration: duration, tty: tty) { [unowned daemon] in daemon.framesPublished })
        context.out(
            "demo: \(Int(duration)) s of simulated tilting, card \(config.card.width) pt at scale "
                + "\(config.card.scale), \(Int(config.sink.fps)) fps\n")
        let still = path.stillUntil
        if still > 0 {
            context.out(
                "demo: the device lies still for the first \(PlotAxis.fixed(still, decimals: 1)) s "
                    + "(the baseline is captured), then tilts\n")
        }
        try daemon.run(duration: duration)
        if tty { context.out("\n") }
        let animation = out + "/shimmer.png"
        try writeAnimation(animation, fps: config.sink.fps, duration: duration)
        context.out(
            """
            demo: \(daemon.framesPublished) frames in \(out)/frames, trace in \(out)/trace.jsonl
            demo: open \(animation) in a web browser (an animated PNG) to see the shimmer move

            """)
    }

    /// OUT/frames, created, without the frames of an earlier run (they would mix into
    /// the animation).
    private func emptyFramesDirectory() throws(Failure) {
        do { try FileSystem.createDirectories(out + "/frames") } catch {
            throw Failure(.cannotCreate, "demo: cannot create \(out)/frames: \(error)")
        }
        if let old = try? FileSystem.list(out + "/frames") {
            for name in old where name.hasPrefix("frame-") && name.hasSuffix(".png") { unlink(out + "/frames/" + name) }
        }
    }

    /// The demo's own defaults under the --set overrides: a smaller card and 15 fps keep
    /// the animation a few MB. The sink must stay the png sink in OUT/frames.
    private func configuration() throws(Failure) -> Configuration {
        let demoDefaults = [
            "Card.scale=1", "Sink.fps=15", "Sensor.rate=60", "Sink.type=png",
            "Sink.path=\(out)/frames", "Trace.path=\(out)/trace.jsonl", "Log.level=warning",
        ]
        let config = try ConfigurationLoader.load(path: nil, overrides: demoDefaults + overrides, useDefaultPath: false)
        // The animation is made of the png sink's frames in OUT/frames: another sink or
        // path would run the whole demo and then find no frames.
        for (key, value, wanted) in [
            ("Sink.type", config.sink.type.rawValue, "png"), ("Sink.path", config.sink.path, out + "/frames"),
        ]
        where value != wanted {
            throw Failure(
                .configuration,
                "demo: \(config.describe(key, value)): the demo makes its "
                    + "animation from the png sink's "
                    + "frames in \(out)/frames, so \(key) stays \(wanted); to show the "
                    + "simulated tilt in another sink, "
                    + "replay the demo's trace: shimmerd run --set "
                    + "Sensor.device=trace:\(out)/trace.jsonl --set \(key)=\(value)")
        }
        return config
    }

    /// A progress bar on a terminal, else one line for each whole second of the run, from
    /// the loop's wakeups: it goes on while the card rests and no frame is published.
    private static func progress(
        _ context: CommandContext, duration: Double, tty: Bool,
        frames: @escaping () -> UInt64
    ) -> (Double) -> Void {
        var shown = 0.0
        return { now in
            let t = min(now, duration)
            if tty {
                guard t - shown >= 0.1 || t == duration, t != shown else { return }
                shown = t
                let width = 30, done = min(width, Int(Double(width) * t / duration))
                let bar = String(repeating: "#", count: done) + String(repeating: " ", count: width - done)
                context.out("\r[\(bar)] \(PlotAxis.fixed(t, decimals: 1)) s, \(counted(frames(), "frame"))")
            } else {
                while shown + 1 <= t + 1e-9 {
                    shown += 1
                    context.out("demo: \(Int(shown)) s, \(counted(frames(), "frame"))\n")
                }
            }
        }
    }

    /// The animated PNG of this run's frames, each shown for as long as it was.
    private func writeAnimation(_ animation: String, fps: Double, duration: Double) throws(Failure) {
        do {
            // The directory was emptied above, so its frames are this run's, in order.
            let numbers = try FileSystem.list(out + "/frames").compactMap(PNGSequenceSink.number(ofFileName:)).sorted()
            let frames = try numbers.map { try FileSystem.read(out + "/frames/" + PNGSequenceSink.fileName($0)) }
            // Frames are published only when some dot changed: each is shown until the
            // next one was published (the trace's times), the last until the run ended.
            let published = Dictionary(
                try TraceReader.read(path: out + "/trace.jsonl").frames.map { ($0.frame, $0.published ?? $0.t) },
                uniquingKeysWith: { a, _ in a })
            var times: [Double] = []
            for n in numbers { times.append(published[n] ?? (times.last ?? 0) + 1 / fps) }
            try FileSystem.writeAtomically(
                try APNG.assemble(frames, delays: APNG.delays(showingAt: times, until: duration)),
                to: animation)
        } catch {
            throw Failure(.ioError, "demo: cannot write the animation \(animation): \(error)")
        }
    }
}
