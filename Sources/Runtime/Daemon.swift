import Card
import Glibc
import LinuxSystem
import Motion
import Output
import Sensors
import Systemd
import Tracing

/// Builds the pipeline from configuration (the one place where things are constructed)
/// and runs it, rebuilding on SIGHUP. Startup problems are `Failure`s with sysexits
/// codes; after startup, problems are log lines.
package final class Daemon {
    package enum SourceChoice {
        /// `Sensor.device` decides (the real daemon).
        case configured
        /// The embedded simulated accelerometer (`shimmerd demo`).
        case simulated(TiltPath)
    }

    let log: Logger
    let notifier = ServiceNotifier()
    let start = MonotonicClock.seconds()
    let startedUTC = RunDescription.utcNow()
    /// Re-reads the configuration on SIGHUP.
    let reload: () throws(Failure) -> Configuration
    let sourceChoice: SourceChoice
    package private(set) var config: Configuration
    package private(set) var trace: TraceWriter?
    package private(set) var framesPublished: UInt64 = 0
    package var onFrame: ((UInt64, Double) -> Void)?
    /// The png sink's files, in order (demo).
    package private(set) var pngFrames: [String] = []

    /// Trace time instead of wall time when a trace is the sensor (`Sensor.device =
    /// trace:FILE`); fixed at startup, so a reload cannot switch between the two.
    let traceClock: TraceClock?
    /// The command line, for the trace's header.
    package var argv: [String] = []

    package init(config: Configuration, source: SourceChoice = .configured, log: Logger,
                 reload: @escaping () throws(Failure) -> Configuration) {
        self.config = config
        self.log = log
        self.reload = reload
        sourceChoice = source
        if case .configured = source, config.sensor.device.hasPrefix("trace:") {
            traceClock = TraceClock(speed: config.sensor.traceSpeed)
        } else {
            traceClock = nil
        }
    }

    package var clock: () -> Double {
        if let traceClock { return { traceClock.now } }
        let start = self.start
        return { MonotonicClock.seconds() - start }
    }

    var wait: Pipeline.Wait {
        if let traceClock { return { traceClock.wait($0, timeoutSeconds: $1, into: &$2) } }
        return { ReadinessPoll.waitReadable($0, timeoutSeconds: $1, into: &$2) }
    }

    /// Runs until SIGTERM/SIGINT or `duration` seconds.
    package func run(duration: Double?) throws(Failure) {
        let signals = PendingSignals(signals: [SIGINT, SIGTERM, SIGHUP, SIGUSR1])
        try openTrace(config)
        var parts = try build(config)
        defer { notifier.stopping() }
        var pipeline = makePipeline(parts)
        while true {
            let outcome = pipeline.run(signals: signals, until: duration)
            if outcome == .finished {
                finish(parts)
                log.notice("stopped after \(pipeline.frames) frames and \(pipeline.samples) samples")
                return
            }
            notifier.reloading()
            let next: Configuration
            do { next = try reload() } catch {
                // The running pipeline goes on exactly as it was: same baseline, same frames.
                log.error("SIGHUP: configuration not reloaded, keeping the running one: \(error.message)")
                notifier.ready(status: "configuration reload failed; running the previous one")
                continue
            }
            finish(parts)
            do {
                if next.trace.path != config.trace.path { try openTrace(next) }
                parts = try build(next)
                config = next
                log.notice("SIGHUP: configuration reloaded; capturing a new baseline")
            } catch {
                log.error("SIGHUP: new configuration cannot start (\(error.message)); going back to the running one")
                parts = try build(config)
            }
            pipeline = makePipeline(parts)
        }
    }

    private func makePipeline(_ parts: Pipeline.Parts) -> Pipeline {
        Heap.trim()   // the fonts and the precomputation's scratch are freed by now
        let pipeline = Pipeline(parts: parts, trace: trace, log: log, notifier: notifier, clock: clock, wait: wait)
        pipeline.onFrame = { [weak self] _, t in
            guard let self else { return }
            self.framesPublished += 1
            self.onFrame?(self.framesPublished, t)
        }
        return pipeline
    }

    private func finish(_ parts: Pipeline.Parts) {
        trace?.flush()
        parts.sink.close()
        parts.source.release()
        if let png = parts.sink as? PNGSequenceSink { pngFrames += png.written }
    }

    private func openTrace(_ c: Configuration) throws(Failure) {
        trace = nil
        guard !c.trace.path.isEmpty else { return }
        do {
            trace = try TraceWriter(path: c.trace.path, log: log, maxSize: c.trace.maxSize, keep: c.trace.maxFiles)
        } catch {
            throw Failure(.cannotCreate, "Trace.path = \(c.trace.path): \(error)")
        }
    }

    private func build(_ c: Configuration) throws(Failure) -> Pipeline.Parts {
        let motion = try MotionConfiguration(c)
        let renderer = try CardFactory.renderer(c.card)
        // Frames follow a wait (poll, or a paced trace's sleep), which empties the caches;
        // only a trace replayed as fast as possible draws frame after frame.
        renderer.prefetchesAhead = traceClock == nil || c.sensor.traceSpeed != nil
        let sink = try SinkFactory.make(c.sink, renderer: renderer, log: log)
        let source: any SampleSource
        switch sourceChoice {
        case .simulated(let path):
            source = SimulatedSource(path: path, rate: c.sensor.rate)
        case .configured:
            if case .trace(let file) = motion.sensor.device {
                source = try traceSource(file, c)
            } else {
                guard traceClock == nil else {
                    throw Failure(.configuration, "Sensor.device: a run that started on a trace cannot switch to a device; restart it")
                }
                do { source = try AccelerometerService(settings: motion.sensor, log: log.sensorLog) } catch {
                    throw Failure(.unavailable, "\(error)")
                }
            }
        }
        trace?.append(header(c, source: source))
        log.notice("card \(renderer.pixelWidth) x \(renderer.pixelHeight) px, \(renderer.dotCount) dots; sink \(sink.summary); sensor \(source.summary)")
        return Pipeline.Parts(source: source, sink: sink, renderer: renderer, motion: motion, fps: c.sink.fps)
    }

    /// `Sensor.device = trace:FILE`: the whole trace is read at startup; a missing file
    /// is exit 66, a damaged one exit 65 naming file:line.
    private func traceSource(_ file: String, _ c: Configuration) throws(Failure) -> TraceSource {
        guard let traceClock else {
            throw Failure(.configuration, "Sensor.device = trace:\(file): a run that started on a device cannot switch to a trace; restart it")
        }
        let contents: TraceContents
        do { contents = try TraceReader.read(path: file) } catch {
            throw Failure(error.line == nil ? .noInput : .dataError, "Sensor.device = trace:\(error.description)")
        }
        if contents.truncatedLastLine {
            log.warning("trace \(file) ends in a partial line (a crash mid-write?); it is ignored")
        }
        let source = TraceSource(path: file, contents: contents, clock: traceClock)
        if !source.isComplete && !contents.baselines.isEmpty {
            log.notice("trace \(file) has no reading records (written before they existed): the baseline comes from its first samples, so tilts may differ from the recording")
        }
        if let recorded = contents.header?.attitude {
            var differ: [String] = []
            if recorded.filter != c.attitude.filter { differ.append("Attitude.filter=\(recorded.filter)") }
            if recorded.baselineSamples != c.attitude.baselineSamples { differ.append("Attitude.baseline_samples=\(recorded.baselineSamples)") }
            if !differ.isEmpty {
                log.notice("trace \(file) was recorded with " + differ.joined(separator: ", ") + "; replaying with this run's configuration")
            }
        }
        let speed = c.sensor.traceSpeed.map { "speed \(formatNumber($0))" } ?? "as fast as possible"
        log.notice("sensor: trace \(file), \(source.readings.count) readings, \(speed)", ["sensor.device": "trace:" + file])
        return source
    }

    private func header(_ c: Configuration, source: any SampleSource) -> TraceRecord.Header {
        let origin = c.card.origin ?? (c.card.width / 2, c.card.effectiveHeight)
        var sensor = TraceRecord.Sensor(selector: c.sensor.device, rate: c.sensor.rate)
        if case .simulated = sourceChoice {
            sensor.device = "simulated"
            sensor.mode = "simulated"
        } else if let trace = source as? TraceSource {
            sensor.device = "trace:" + trace.path
            sensor.mode = c.sensor.traceSpeed.map { "trace, speed \(formatNumber($0))" } ?? "trace, as fast as possible"
        } else {
            sensor.mode = c.sensor.mode
        }
        if c.sensor.mountMatrix != "auto" { sensor.mountMatrixSource = "configuration" }
        return TraceRecord.Header(
            sensor: sensor,
            card: .init(width: c.card.width, height: c.card.effectiveHeight, scale: c.card.scale, origin: [origin.0, origin.1]),
            mapper: .init(rollRange: c.mapper.rollRange, pitchRange: c.mapper.pitchRange, maxOffset: c.mapper.maxOffset,
                          clamp: c.mapper.clamp),
            attitude: .init(baselineSamples: c.attitude.baselineSamples, filter: c.attitude.filter,
                            minCutoff: c.attitude.minCutoff, beta: c.attitude.beta, dCutoff: c.attitude.dCutoff),
            sink: .init(type: c.sink.type, fps: c.sink.fps), shimmerd: Daemon.version,
            run: RunDescription.current(argv: argv, started: startedUTC))
    }

    package static let version = "0.1.0"
}
