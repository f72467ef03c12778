import Card
import Glibc
import LinuxSystem
import Logging
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
    /// The clocks, waits, signals, service manager and bus of the machine.
    let host: DaemonHost
    var notifier: any ServiceNotifying { host.notifier }
    let start: Double
    let startedUTC: String
    /// Re-reads the configuration on SIGHUP.
    let reload: () throws(Failure) -> Configuration
    let sourceChoice: SourceChoice
    package private(set) var config: Configuration
    package private(set) var trace: TraceWriter?
    package private(set) var framesPublished: UInt64 = 0
    /// `org.shimmerd.Shimmerd1` on the system bus, kept across reloads; nil without a bus.
    private var bus: (any StatusChannel)?
    /// Called after every wait of the loop with the run's time (`followWakeups`).
    private var onWake: ((Double) -> Void)?

    /// Trace time instead of wall time when a trace is the sensor (`Sensor.device =
    /// trace:FILE`); fixed at startup, so a reload cannot switch between the two.
    let traceClock: TraceClock?
    /// The command line, for the trace's header.
    let argv: [String]

    /// - Parameter argv: the command line, for the trace's header.
    package init(
        config: Configuration, source: SourceChoice = .configured, log: Logger, host: DaemonHost = DaemonHost(),
        argv: [String] = [], reload: @escaping () throws(Failure) -> Configuration
    ) {
        self.config = config
        self.argv = argv
        self.log = log
        self.host = host
        start = host.monotonicSeconds
        startedUTC = host.utcNow()
        self.reload = reload
        sourceChoice = source
        if case .configured = source, case .trace = config.sensor.device {
            traceClock = TraceClock(speed: config.sensor.traceSpeed, realClock: { host.monotonicSeconds })
        } else {
            traceClock = nil
        }
    }

    package var clock: () -> Double {
        if let traceClock { return { traceClock.now } }
        let start = self.start, host = self.host
        return { host.monotonicSeconds - start }
    }

    var wait: Pipeline.Wait {
        if let traceClock { return { traceClock.wait($0, timeoutSeconds: $1, into: &$2) } }
        return host.wait
    }

    /// Calls `body` after every wait of the loop with the run's time (the demo's progress,
    /// which goes on while no frame is published).
    package func followWakeups(_ body: @escaping (Double) -> Void) { onWake = body }

    /// Runs until SIGTERM/SIGINT or `duration` seconds.
    ///
    /// SIGHUP is a transaction: the new configuration's whole pipeline (motion, card,
    /// sensor, sink, trace) is built beside the running one, and only when all of it is
    /// ready does it replace the running one; any failure leaves the running pipeline as
    /// it was (same sink, same trace, same baseline) with one line saying why. A sink,
    /// trace or sensor whose settings did not change is carried over, not reopened.
    package func run(duration: Double?) throws(Failure) {
        let signals = host.takeSignals(DaemonSignals.signals)
        host.prepareProcess()
        var running = try assemble(config, replacing: nil).assembly
        trace = running.trace
        defer { notifier.stopping() }
        let counters = RunCounters()
        // The real daemon offers its state on the system bus; a demo or a replay does not.
        if case .configured = sourceChoice, traceClock == nil {
            bus = host.statusChannel(log, clock)
        }
        var pipeline = makePipeline(running, counters)
        while true {
            let outcome = pipeline.run(signals: signals, until: duration)
            if outcome == .finished {
                finish(running, keeping: nil)
                try traceEnded(running.parts.source, running.config)
                log.notice(
                    "stopped after \(counted(counters.published, "frame")) and \(counted(counters.samples, "sample"))"
                        + (counters.dropped > 0 ? "; \(counted(counters.dropped, "frame")) dropped" : "")
                        + (counters.unshown > 0
                            ? "; \(counted(counters.unshown, "frame")) not shown (no display was attached)" : ""))
                return
            }
            notifier.reloading()
            guard let (next, kept) = prepareReload(from: running) else {
                // The running pipeline goes on exactly as it was: same baseline, same sink, same trace.
                notifier.ready(status: "configuration reload failed; running the previous one")
                continue
            }
            finish(running, keeping: next)
            running = next
            config = next.config
            trace = next.trace
            log.notice("SIGHUP: configuration reloaded (\(kept)); capturing a new baseline")
            pipeline = makePipeline(running, counters)
            notifier.ready(status: pipeline.status)
        }
    }

    /// The new configuration, assembled; nil (and one log line) when it cannot be.
    private func prepareReload(from running: Assembly) -> (Assembly, String)? {
        let next: Configuration
        do { next = try reload() } catch {
            log.error("SIGHUP: configuration not reloaded, keeping the running one: \(error.message)")
            return nil
        }
        do { return try assemble(next, replacing: running) } catch {
            log.error("SIGHUP: the new configuration cannot start, keeping the running one: \(error.message)")
            return nil
        }
    }

    /// Everything one pipeline runs on.
    struct Assembly {
        var config: Configuration
        var parts: Pipeline.Parts
        var trace: TraceWriter?
    }

    private func makePipeline(_ a: Assembly, _ counters: RunCounters) -> Pipeline {
        Heap.trim()  // the fonts and the precomputation's scratch are freed by now
        // Each wait of the loop ends in `onWake` (the demo's progress, which goes on while
        // no frame is published).
        let wait = self.wait, clock = self.clock
        let waking: Pipeline.Wait = { [weak self] fds, timeout, readable in
            wait(fds, timeout, &readable)
            if let onWake = self?.onWake { onWake(clock()) }
        }
        return Pipeline(
            parts: a.parts, trace: a.trace, log: log, notifier: notifier, clock: clock,
            counters: counters, wait: waking, bus: bus, frameTime: host.monotonicNanoseconds,
            onFrame: { [weak self] n, _ in self?.framesPublished = n })
    }

    /// Releases what `old` holds and `next` does not carry over (everything on a stop).
    private func finish(_ old: Assembly, keeping next: Assembly?) {
        if let t = old.trace, t !== next?.trace { t.close() } else { old.trace?.flush() }
        if old.parts.sink !== next?.parts.sink { old.parts.sink.close() }
        if old.parts.source !== next?.parts.source { old.parts.source.release() }
    }

    /// Builds the pipeline of `c`. With `old` (a reload), the sensor, sink and trace are
    /// taken over from it where their settings did not change, and nothing of `old` is
    /// touched: on a throw, whatever was opened here is closed again.
    private func assemble(_ c: Configuration, replacing old: Assembly?) throws(Failure) -> (
        assembly: Assembly, kept: String
    ) {
        let (motion, renderer) = try ConfigurationCheck.settings(c)
        // Frames follow a wait (poll, or a paced trace's sleep), which empties the caches;
        // only a trace replayed as fast as possible draws frame after frame.
        renderer.prefetchesAhead = traceClock == nil || c.sensor.traceSpeed != nil
        var kept: [String] = []

        let source: any SampleSource
        if let old, old.config.sensor == c.sensor {
            source = old.parts.source
            kept.append("sensor kept")
        } else {
            source = try makeSource(c, motion)
        }
        let sink: any FrameSink
        do {
            if let old,
                SinkFactory.canCarryOver(
                    old.parts.sink, from: old.config.sink, to: c.sink,
                    sameSize: old.parts.renderer.pixelWidth == renderer.pixelWidth
                        && old.parts.renderer.pixelHeight == renderer.pixelHeight, log: log)
            {
                sink = old.parts.sink
                kept.append("sink kept")
            } else {
                sink = try SinkFactory.make(
                    c.sink, renderer: renderer, log: log, keepsEveryFrame: traceClock != nil,
                    describe: c.describe)
            }
        } catch {
            if source !== old?.parts.source { source.release() }
            throw error
        }
        let trace: TraceWriter?
        do {
            if let old, old.config.trace.path == c.trace.path {
                trace = old.trace
                trace?.setRotation(maxSize: c.trace.maxSize, keep: c.trace.maxFiles)
                if trace != nil { kept.append("trace kept") }
            } else {
                trace = try openTrace(c)
            }
        } catch {
            if sink !== old?.parts.sink { sink.close() }
            if source !== old?.parts.source { source.release() }
            throw error
        }
        trace?.append(header(c, source: source))
        log.notice(
            "card \(renderer.pixelWidth) x \(renderer.pixelHeight) px, \(renderer.dotCount) dots; sink \(sink.summary); sensor \(source.summary)"
        )
        let parts = Pipeline.Parts(
            source: source, sink: sink, renderer: renderer, motion: motion, fps: c.sink.fps,
            demand: c.sink.demand)
        return (
            Assembly(config: c, parts: parts, trace: trace), kept.isEmpty ? "all rebuilt" : kept.joined(separator: ", ")
        )
    }

    /// `Trace.path`'s writer, or nil when tracing is off.
    private func openTrace(_ c: Configuration) throws(Failure) -> TraceWriter? {
        guard !c.trace.path.isEmpty else { return nil }
        do {
            return try TraceWriter(path: c.trace.path, log: log, maxSize: c.trace.maxSize, keep: c.trace.maxFiles)
        } catch {
            throw ConfigurationCheck.traceFailure(c, error)
        }
    }

    private func makeSource(_ c: Configuration, _ motion: MotionConfiguration) throws(Failure) -> any SampleSource {
        switch sourceChoice {
        case .simulated(let path):
            return SimulatedSource(path: path, rate: c.sensor.rate)
        case .configured:
            if case .trace(let file) = motion.sensor.device {
                return try traceSource(file, c)
            }
            guard traceClock == nil else {
                throw Failure(
                    .configuration,
                    "\(c.describe("Sensor.device", c.sensor.device.description)): a run that started on a trace cannot switch to a device; restart it"
                )
            }
            do { return try AccelerometerService(settings: motion.sensor, log: log) } catch {
                throw Failure(.unavailable, "\(error)")
            }
        }
    }

    private func header(_ c: Configuration, source: any SampleSource) -> TraceRecord.Header {
        let origin = c.card.effectiveOrigin
        var sensor = TraceRecord.Sensor(selector: c.sensor.device.description, rate: c.sensor.rate)
        if case .simulated = sourceChoice {
            sensor.device = "simulated"
            sensor.mode = "simulated"
        } else if let trace = source as? TraceSource {
            sensor.device = "trace:" + trace.path
            sensor.mode = c.sensor.traceSpeed.map { "trace, speed \(formatNumber($0))" } ?? "trace, as fast as possible"
            if trace.gyroCount > 0 {
                sensor.gyro = "trace:" + trace.path
                sensor.gyroPairing = "the trace's gyro records"
            }
        } else {
            // A live gyroscope is paired at attach time, after this header: the log line
            // "using ... gyroscope: ..." names it.
            if c.sensor.gyro != .auto { sensor.gyroPairing = "Sensor.gyro = \(c.sensor.gyro)" }
            sensor.mode = c.sensor.mode.rawValue
        }
        if c.sensor.mountMatrix != nil { sensor.mountMatrixSource = "configuration" }
        return TraceRecord.Header(
            sensor: sensor,
            card: .init(
                width: c.card.width, height: c.card.effectiveHeight, scale: c.card.scale, origin: [origin.x, origin.y]),
            mapper: .init(
                rollRange: c.mapper.rollRange, pitchRange: c.mapper.pitchRange, maxOffset: c.mapper.maxOffset,
                clamp: c.mapper.clamp),
            attitude: .init(
                baselineSamples: c.attitude.baselineSamples, filter: c.attitude.filter.rawValue,
                minCutoff: c.attitude.minCutoff, beta: c.attitude.beta, dCutoff: c.attitude.dCutoff),
            sink: .init(type: c.sink.type.rawValue, fps: c.sink.fps), shimmerd: Daemon.version,
            run: RunDescription.current(argv: argv, started: startedUTC))
    }

    /// The version `--version`, the manual and the traces' headers give (debian/changelog
    /// carries the package's).
    package static let version = "0.1.0"
}
