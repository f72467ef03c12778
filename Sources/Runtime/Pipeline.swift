import Card
import Glibc
import LinuxSystem
import Motion
import Output
import Sensors
import Systemd
import Tracing

/// The daemon's loop: samples -> attitude -> mapper -> smoothed focal point -> colors ->
/// pixels -> sink, with the trace beside it. One thread; it sleeps in poll(2) until the
/// sensor, the next frame or a signal is due.
///
/// - Frames are paced to `Sink.fps`; a frame is published only when some dot's color
///   changes; the newest sample wins (the smoother's target is just replaced); nothing
///   queues. Once the smoother has settled no frames are rendered at all.
/// - SIGTERM/SIGINT: finish, flush the trace, release the sink and sensor, exit 0.
///   SIGHUP: reload (the caller rebuilds; an invalid file keeps the old configuration).
///   SIGUSR1: recapture the baseline.
/// - WATCHDOG=1 comes from this loop's heartbeat: if the loop hangs, systemd sees it.
package final class Pipeline {
    package enum Outcome: Equatable {
        case finished
        case reload
    }

    package struct Parts {
        package var source: any SampleSource
        package var sink: any FrameSink
        package var renderer: CardRenderer
        package var motion: MotionConfiguration
        package var fps: Double

        package init(source: any SampleSource, sink: any FrameSink, renderer: CardRenderer,
                     motion: MotionConfiguration, fps: Double) {
            self.source = source
            self.sink = sink
            self.renderer = renderer
            self.motion = motion
            self.fps = fps
        }
    }

    let parts: Parts
    let trace: TraceWriter?
    let log: Logger
    let notifier: ServiceNotifier
    let clock: () -> Double
    /// Sleeps until one of the descriptors is readable or the timeout (seconds) passes,
    /// and puts the readable ones into the array: `ReadinessPoll.waitReadable`, or a
    /// `TraceClock`'s, which advances its own time instead.
    package typealias Wait = (_ fds: [Int32], _ timeout: Double, _ readable: inout [Int32]) -> Void
    let wait: Wait
    private var targets: [CardTarget]
    private var targetGeneration: Int
    private var tracker: MotionTracker
    private var smoother: FocalSmoother
    package private(set) var frames: UInt64 = 0
    package private(set) var samples = 0
    private var limiter = RateLimiter()
    private var still = StillnessDetector()

    /// Points: target moves smaller than this are sensor noise (0.2 pt is 0.4 px at scale 2).
    static let deadBand = 0.2
    /// Seconds between reads while the device lies still (10 Hz: a tilt is noticed within 0.1 s).
    static let idlePeriod = 0.1
    /// A permanent sink failure (a raw reader went away): the run ends cleanly.
    private var sinkEnded = false
    /// Called after each published frame (demo progress).
    package var onFrame: ((UInt64, Double) -> Void)?

    /// - Parameter clock: seconds since the daemon started (monotonic); shared with the trace.
    /// - Parameter wait: `ReadinessPoll.waitReadable`, or a `TraceClock`'s.
    package init(parts: Parts, trace: TraceWriter?, log: Logger, notifier: ServiceNotifier, clock: @escaping () -> Double,
                 wait: @escaping Wait = { ReadinessPoll.waitReadable($0, timeoutSeconds: $1, into: &$2) }) {
        self.parts = parts
        self.trace = trace
        self.log = log
        self.notifier = notifier
        self.clock = clock
        self.wait = wait
        targets = Self.targets(of: parts.sink)
        targetGeneration = parts.sink.targetGeneration
        tracker = MotionTracker(attitude: parts.motion.attitude, mapper: parts.motion.mapper)
        smoother = FocalSmoother(at: parts.motion.mapper.origin)
    }

    /// Runs until a stop signal, `until` (seconds on `clock`), or a reload request.
    package func run(signals: PendingSignals, until deadline: Double?) -> Outcome {
        let interval = 1 / parts.fps
        var lastFrame = -Double.infinity
        var lastStep = clock()
        var lastHeartbeat = -Double.infinity
        let heartbeat = notifier.watchdogMicroseconds.map { Double($0) / 2e6 }
        // Kept across wakeups, emptied and refilled: a wakeup that reads a sample and
        // publishes a frame allocates nothing (Tests/IntegrationTests/test_allocations.py).
        var readable: [Int32] = []
        var events: [AccelerometerService.Event] = []
        var fds: [Int32] = []
        var detached = false
        var forceFrame = true   // the first frame: the card at rest, at once
        var outcome = Outcome.finished
        var ready = false
        var sourceIdle = false

        loop: while true {
            let now = clock()
            // Everything pending is looked at before acting: a stop outranks a reload,
            // which outranks a recapture (a reload captures a new baseline anyway), so a
            // SIGTERM that arrives with a burst of SIGHUPs is never dropped.
            let pending = signals.mayBePending(readable: readable) ? signals.drain() : []
            if let stop = pending.first(where: { $0 != SIGHUP && $0 != SIGUSR1 }) {
                log.notice("signal \(stop): stopping")
                break loop
            }
            if pending.contains(SIGHUP) {
                outcome = .reload
                break loop
            }
            if pending.contains(SIGUSR1) {
                log.notice("SIGUSR1: recapturing the baseline")
                recapture("SIGUSR1", at: now)
            }
            if let deadline, now >= deadline { break }
            if sinkEnded { break }
            parts.sink.maintain()
            if parts.sink.targetGeneration != targetGeneration {
                // New memory (a recreated shm object): new targets, painted in full, now.
                targets = Self.targets(of: parts.sink)
                targetGeneration = parts.sink.targetGeneration
                forceFrame = true
            }

            events.removeAll(keepingCapacity: true)
            parts.source.handle(now: now, readable: readable, into: &events)
            for event in events {
                switch event {
                case .sample(let a, _):
                    let r = tracker.process(acceleration: a, at: now)
                    if let b = r.baseline {
                        trace?.append(TraceRecord.Baseline(t: now, up: [b.up.x, b.up.y, b.up.z]))
                    }
                    if r.sample == nil, let reading = Self.reading(a, r.step, at: now) {
                        trace?.append(reading)
                    }
                    if let s = r.sample {
                        samples += 1
                        still.observe(s.focal, at: now)
                        // Dead band: sensor noise well under a pixel does not move the point.
                        if abs(s.focal.x - smoother.target.x) > Pipeline.deadBand
                            || abs(s.focal.y - smoother.target.y) > Pipeline.deadBand {
                            smoother.target = s.focal
                        }
                        trace?.append(TraceRecord.Sample(t: s.t, seq: s.seq, accel: [s.accel.x, s.accel.y, s.accel.z],
                                                         dpitch: s.tilt.dPitchRadians, droll: s.tilt.dRollRadians,
                                                         focal: [s.focal.x, s.focal.y]))
                    }
                // The sensor service logs these itself (one line each, with the details);
                // here they only change the state and STATUS=.
                case .attached:
                    if detached { recapture("the accelerometer attached again", at: now) }
                    detached = false
                    notifier.status(status)
                case .recapture(let why):
                    recapture(why, at: now)
                case .detached:
                    detached = true
                    smoother.target = parts.motion.mapper.origin
                    notifier.status(status)
                case .waiting(let why):
                    notifier.status("waiting for an accelerometer: \(why)")
                }
            }

            // Frames: at most fps, only while the smoothed point moves.
            if smoother.isSettled && !forceFrame {
                lastStep = now
            } else if now - lastFrame >= interval * 0.999 {
                smoother.step(now - lastStep)
                lastStep = now
                lastFrame = now
                let focal = smoother.position
                if parts.renderer.update(focalX: focal.x, focalY: focal.y) > 0 || forceFrame {
                    publish(focal, at: now)
                }
                forceFrame = false
                if !ready {
                    ready = true
                    notifier.ready(status: status)
                }
            }

            // A device lying still is read slowly; the first sample that moves restores the rate.
            let idle = still.isStill(at: now) && smoother.isSettled
            if idle != sourceIdle {
                sourceIdle = idle
                parts.source.setIdle(period: idle ? Pipeline.idlePeriod : nil)
                log.debug(idle ? "device still: reading every \(Pipeline.idlePeriod) s" : "device moving: full rate")
            }

            // A trace played to its end: finish once the picture has settled.
            if parts.source.isExhausted && smoother.isSettled && !forceFrame { break }

            if let heartbeat, now - lastHeartbeat >= heartbeat {
                notifier.watchdog()
                lastHeartbeat = now
            }
            trace?.flushIfDue(now: now)

            let sensorIn = parts.source.nextTimeout(now: now)
            var timeout = min(sensorIn, 0.25)
            if !smoother.isSettled {
                let sampleIn = parts.source.nextSampleExpected(now: now)
                // A frame due before the next sample waits for it when it comes within one
                // frame interval: one wakeup instead of two, and the frame shows the newer
                // sample. With a 100 Hz sensor and 60 fps that gives 50 frames a second
                // (Sink.fps is a maximum); a buffer delivering a batch per frame interval
                // gets a frame per batch, and a frame the timer gave is realigned with
                // the samples at the next one. A sensor slower than half the frame rate
                // keeps the frame timer: the smoothed point moves between its samples.
                let frameIn = max(0, lastFrame + interval - now)
                if !(sampleIn >= frameIn && sampleIn - frameIn <= interval) {
                    timeout = min(timeout, frameIn)
                }
            }
            if let heartbeat { timeout = min(timeout, max(0, lastHeartbeat + heartbeat - now)) }
            if let deadline { timeout = min(timeout, max(0, deadline - now)) }
            fds.removeAll(keepingCapacity: true)
            parts.source.appendFileDescriptors(to: &fds)
            if let s = signals.fileDescriptor { fds.append(s) }   // a signal wakes the loop at once
            wait(fds, timeout, &readable)
        }
        trace?.flush()
        return outcome
    }

    /// Drops the baseline (the next readings capture a new one), and says so in the trace
    /// so that a replay recaptures at the same point.
    private func recapture(_ why: String, at now: Double) {
        tracker.recapture()
        trace?.append(TraceRecord.Recapture(t: now, reason: why))
    }

    /// The `reading` record of a reading that gave no sample (baseline collection or
    /// rejected), so the trace holds every reading; nil for non-finite values, which
    /// JSON cannot carry.
    static func reading(_ a: Vector3, _ step: AttitudeStep, at t: Double) -> TraceRecord.Reading? {
        guard a.x.isFinite, a.y.isFinite, a.z.isFinite else { return nil }
        let accel = [a.x, a.y, a.z]
        switch step {
        case .collectingBaseline(_, _, let used):
            return TraceRecord.Reading(t: t, accel: accel, use: used ? "baseline" : "rejected",
                                       reason: used ? nil : "outside [0.5 g, 1.5 g] while collecting the baseline")
        case .rejected(let why):
            return TraceRecord.Reading(t: t, accel: accel, use: "rejected", reason: "\(why)")
        case .tilt:
            return nil
        }
    }

    private static func targets(of sink: any FrameSink) -> [CardTarget] {
        (0..<sink.slotCount).map { slot in
            let t = sink.target(slot: slot)
            return CardTarget(pixmap: t.pixmap, originX: t.originX, originY: t.originY)
        }
    }

    var status: String {
        "sensor: \(parts.source.summary); sink: \(parts.sink.summary); \(frames) frames"
    }

    private func publish(_ focal: FocalPoint, at now: Double) {
        let slot = parts.sink.nextSlot()
        let report = parts.renderer.paint(into: &targets[slot])
        let info = FrameInfo(number: frames + 1, timeNanoseconds: MonotonicClock.nanoseconds(),
                             focalX: focal.x, focalY: focal.y)
        do {
            try parts.sink.publish(slot: slot, info)
            frames += 1
            trace?.append(TraceRecord.Frame(t: now, frame: frames, focal: [focal.x, focal.y],
                                            dots: report.dotsRepainted, pixels: report.pixelsWritten, published: clock()))
            onFrame?(frames, now)
        } catch {
            // The slot's contents are now unknown to the sink: repaint it fully next time.
            targets[slot].invalidate()
            if error.permanent {
                log.notice("\(error); stopping", ["sink": parts.sink.summary])
                sinkEnded = true
                return
            }
            let (allowed, held) = limiter.allow("sink:" + error.message, now: now)
            if allowed {
                log.error("frame \(frames + 1) not published: \(error)" + (held > 0 ? " (\(held) more since the last report)" : ""),
                          ["sink": parts.sink.summary])
            }
        }
    }
}
